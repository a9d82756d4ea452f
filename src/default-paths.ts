import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding this package's package.json (the checkout, or where npm installed it). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  // src/ under vitest, dist/src/ once built: the first folder up with a package.json.
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('core-server: package.json not found above the running code');
    dir = up;
  }
  return dir;
}

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
