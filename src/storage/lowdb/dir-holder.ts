import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, LOCK_FILE } from './dir-lock.js';

/**
 * Beside the lock: where the process holding a data directory serves MCP over HTTP. `core-server serve`
 * writes it once listening, so a `core-server mcp` started on the same directory (the usual set-up: the
 * server runs, an MCP client starts the stdio command from mcp.json) can relay to it instead of failing
 * on the lock.
 */
export const SERVE_FILE = '.serve.json';

interface ServeRecord {
  pid: number;
  /** `POST` here for MCP (JSON-RPC over Streamable HTTP). */
  mcp_url: string;
}

/** What holds a data directory: a live process, and its MCP endpoint when it is a `serve`. */
export interface DataDirHolder {
  pid: number;
  mcpUrl?: string;
}

/** Records this process's MCP endpoint; the returned function removes the record (call it before unlocking). */
export async function publishMcpUrl(dataDir: string, mcpUrl: string): Promise<() => Promise<void>> {
  const file = join(dataDir, SERVE_FILE);
  const record: ServeRecord = { pid: process.pid, mcp_url: mcpUrl };
  // Whole or absent: a reader never sees half a record.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  await rename(tmp, file);
  return async () => {
    const current = await readRecord(file);
    if (current?.pid === process.pid) await unlink(file).catch(() => undefined);
  };
}

/**
 * The live process holding the directory's lock, or undefined when none does (a crashed holder's lock
 * is free to take). `mcpUrl` only when the serve record was written by that same process: a record left
 * by a crashed server names an endpoint nobody answers.
 */
export async function dataDirHolder(dataDir: string): Promise<DataDirHolder | undefined> {
  const pid = Number((await readFile(join(dataDir, LOCK_FILE), 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !alive(pid)) return undefined;
  const record = await readRecord(join(dataDir, SERVE_FILE));
  return record?.pid === pid ? { pid, mcpUrl: record.mcp_url } : { pid };
}

async function readRecord(file: string): Promise<ServeRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<ServeRecord>;
    return typeof parsed.pid === 'number' && typeof parsed.mcp_url === 'string' ? { pid: parsed.pid, mcp_url: parsed.mcp_url } : undefined;
  } catch {
    return undefined;
  }
}
