import type { Config } from '../../config.js';

/** How `core-server mcp` serves: its own core, a relay to the server holding the data, or not at all. */
export type StdioPlan = { kind: 'local' } | { kind: 'relay'; mcpUrl: string } | { kind: 'refuse'; reason: string };

/**
 * Decided before `initialize` is answered. PostgreSQL is shared by design, so each process opens it.
 * A lowdb directory belongs to one process: when a `serve` holds it, relay to its MCP endpoint; when
 * anything else holds it, refuse with the reason. (A holder that starts after this check still makes
 * the local core fail on the lock; that window is the time between this check and opening the store.)
 */
/** Who holds a lowdb data directory (its process, and the MCP endpoint it serves, if any); the storage adapter knows. */
export type HolderOf = (dataDir: string) => Promise<{ pid: number; mcpUrl?: string | undefined } | undefined>;

export async function planStdio(config: Config, holderOf: HolderOf): Promise<StdioPlan> {
  if (config.databaseUrl) return { kind: 'local' };
  const holder = await holderOf(config.dataDir);
  if (!holder) return { kind: 'local' };
  if (!holder.mcpUrl) {
    return {
      kind: 'refuse',
      reason: `The data directory ${config.dataDir} is in use by process ${holder.pid}, which serves no HTTP endpoint to relay to (another "core-server mcp"?). Stop it, or start "core-server serve" on that directory and this command relays to it, or set another CORE_DATA_DIR.`,
    };
  }
  // The relay cannot narrow what the running server offers: refuse rather than widen it silently.
  const narrowing = [config.readOnly ? 'CORE_READ_ONLY' : '', config.toolsets ? 'CORE_TOOLSETS' : ''].filter(Boolean);
  if (narrowing.length > 0) {
    return {
      kind: 'refuse',
      reason: `The data directory ${config.dataDir} is held by the running server (process ${holder.pid}); this command would relay to it, whose tool surface is its own, so ${narrowing.join(' and ')} set here cannot apply. Set them on that server, or unset them here.`,
    };
  }
  return { kind: 'relay', mcpUrl: holder.mcpUrl };
}
