import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';

/**
 * The key a stdio session sends. A caller with no `CORE_API_KEY` who mints a demo key through
 * `core_account` uses it at once, in the same session, and (unless `CORE_REMEMBER_KEY=0`) finds it
 * again at the next start, so an agent finishes on its own instead of asking a person to edit its
 * client's configuration and restart it. A key set in `CORE_API_KEY` is the operator's choice and is
 * never replaced.
 */
export interface StdioKey {
  current(): string | undefined;
  /** Adopts the key a successful mint answered with, and says so in the answer; other answers pass through. */
  observe(tool: string, args: Record<string, unknown> | undefined, result: CallToolResult): Promise<CallToolResult>;
}

type KeyFile = { keys: Record<string, string> };

/**
 * The store a key belongs to: a key is known only to the store that minted it. The data directory, or
 * the database's host, port, name and schema (never its password).
 */
export function storeIdOf(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>): string {
  if (!config.databaseUrl) return `lowdb:${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  return `postgres:${url.hostname}:${url.port || 5432}${url.pathname}#${config.databaseSchema ?? 'public'}`;
}

async function readKeys(file: string): Promise<KeyFile> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return { keys: {} };
  try {
    const parsed = JSON.parse(text) as Partial<KeyFile>;
    return { keys: typeof parsed.keys === 'object' && parsed.keys !== null ? parsed.keys : {} };
  } catch {
    return { keys: {} };
  }
}

/** Written owner-only (folder 0700, file 0600) and renamed into place, so no reader sees half a file. */
async function writeKeys(file: string, content: KeyFile): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

export interface StdioKeyOptions {
  /** `CORE_API_KEY`, when set. */
  configured: string | undefined;
  /** `Config.keyFile`: undefined when remembering is off. */
  file: string | undefined;
  storeId: string;
  onError?: (err: unknown) => void;
}

export async function createStdioKey(opts: StdioKeyOptions): Promise<StdioKey> {
  let key = opts.configured ?? (opts.file ? (await readKeys(opts.file)).keys[opts.storeId] : undefined);
  const noteFor = (remembered: boolean) =>
    opts.configured !== undefined
      ? 'This stdio session keeps sending the key in CORE_API_KEY; to act as the new identity, start it with CORE_API_KEY set to this key.'
      : `This stdio session sends this key from now on${remembered ? `, and finds it again at its next start (kept owner-only in ${opts.file}; CORE_REMEMBER_KEY=0 turns that off)` : ' (not remembered: CORE_REMEMBER_KEY=0)'}. Only its SHA-256 is stored by the server.`;
  return {
    current: () => key,
    async observe(tool, args, result) {
      const minted = mintedKeyOf(tool, args, result);
      if (minted === undefined) return result;
      let remembered = false;
      if (opts.configured === undefined) {
        key = minted;
        if (opts.file) {
          const file = opts.file;
          remembered = await readKeys(file)
            .then(async (content) => writeKeys(file, { keys: { ...(await live(content.keys)), [opts.storeId]: minted } }))
            .then(
              () => true,
              (err: unknown) => (opts.onError?.(err), false),
            );
        }
      }
      return withNote(result, noteFor(remembered));
    },
  };
}

/** The entries whose data directory still exists: test runs and moved folders leave no trail of dead keys. */
async function live(keys: Record<string, string>): Promise<Record<string, string>> {
  const kept: Record<string, string> = {};
  for (const [id, value] of Object.entries(keys)) {
    if (
      id.startsWith('lowdb:') &&
      !(await stat(id.slice('lowdb:'.length)).then(
        () => true,
        () => false,
      ))
    )
      continue;
    kept[id] = value;
  }
  return kept;
}

/** The raw key of a successful `core_account` `mint_demo_key` answer. */
function mintedKeyOf(tool: string, args: Record<string, unknown> | undefined, result: CallToolResult): string | undefined {
  if (tool !== 'core_account' || args?.action !== 'mint_demo_key' || result.isError) return undefined;
  const key = (result.structuredContent as { key?: unknown } | undefined)?.key;
  return typeof key === 'string' && key.startsWith('core_') ? key : undefined;
}

/** The answer's `note` (structured and as text) replaced by what this session does with the key. */
function withNote(result: CallToolResult, note: string): CallToolResult {
  const structured = { ...result.structuredContent, note };
  return {
    ...result,
    structuredContent: structured,
    // The first item is the JSON of the structured copy (call-tool.ts); notes and warnings follow it.
    content: result.content.map((item, i) => (i === 0 && item.type === 'text' ? { type: 'text' as const, text: JSON.stringify(structured) } : item)),
  };
}
