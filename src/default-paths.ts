import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from './lib/paths.js';

/**
 * Where the data lives when `CORE_DATA_DIR` is unset. In a checkout (its sources beside it) the
 * checkout's own `data/`, so `npm start` keeps `./data` and a client starting the same build from any
 * folder finds the same data; once installed (no sources), the per-user data directory of the XDG
 * base directory rules, never the folder a client happened to start it in.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const root = packageRoot();
  if (existsSync(path.join(root, 'src', 'cli.ts'))) return path.join(root, 'data');
  const base = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(base, 'core-server');
}

/** The per-user file `mcp` remembers minted keys in: the XDG state directory, never the working folder. */
export function rememberedKeyFile(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(base, 'core-server', 'keys.json');
}
