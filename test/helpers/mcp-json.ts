import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** mcp.json's stdio entry as the file has it: the installed `core-server` command, no path of this checkout. */
export interface StdioJsonEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export function mcpJson(): { mcpServers: { core: StdioJsonEntry; 'core-http': { type: string; url: string; headers: Record<string, string> } } } {
  return JSON.parse(readFileSync(path.join(root, 'mcp.json'), 'utf8'));
}

/**
 * The stdio entry of mcp.json started from this checkout: its `core-server` (the package's `bin`, on PATH
 * once installed) is this build's `dist/src/cli.js` run by the Node running the tests; its arguments and
 * environment are the file's. Anything else than the `bin` is refused, so the file stays copyable.
 */
export function stdioEntryOfCheckout(): StdioJsonEntry {
  const entry = mcpJson().mcpServers.core;
  if (entry.command !== 'core-server') throw new Error(`mcp.json's core entry runs "${entry.command}"; it must run the installed core-server command`);
  return { command: process.execPath, args: [path.join(root, 'dist', 'src', 'cli.js'), ...entry.args], env: entry.env };
}
