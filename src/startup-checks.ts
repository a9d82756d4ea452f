import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { Config } from './config.js';

/** A start that cannot go on: one line naming the setting to change, printed without a stack trace. */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

const codeOf = (err: unknown): string => (typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '');
const reasonOf = (err: unknown): string => {
  const code = codeOf(err);
  const text = err instanceof Error ? err.message.replace(/^[A-Z]+: /, '') : String(err);
  return code ? `${code}: ${text.split(',')[0]}` : text;
};

/** The lowdb data directory exists (created when missing), is a directory and can be written. */
export async function checkDataDir(dir: string): Promise<void> {
  const refuse = (why: string, cause?: unknown) =>
    new StartupError(`CORE_DATA_DIR: cannot use ${dir} as the data directory (${why}); set CORE_DATA_DIR to a folder this user can write`, { cause });
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw refuse(codeOf(err) === 'EEXIST' || codeOf(err) === 'ENOTDIR' ? 'it is not a directory' : reasonOf(err), err);
  }
  if (!(await stat(dir)).isDirectory()) throw refuse('it is not a directory');
  await access(dir, constants.W_OK | constants.X_OK).catch((err: unknown) => {
    throw refuse(reasonOf(err), err);
  });
}

/** Nothing listens on the configured address yet (checked before the core loads, so the answer comes at once). */
export function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(listenError(err, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** A failed `listen` as the setting that caused it. */
export function listenError(err: unknown, host: string, port: number): Error {
  const code = codeOf(err);
  if (code === 'EADDRINUSE')
    return new StartupError(`PORT: ${host}:${port} is already in use (another core-server?); stop that process or set PORT to a free port (0 picks one)`, {
      cause: err,
    });
  if (code === 'EACCES') return new StartupError(`PORT: this user may not listen on ${host}:${port}; set PORT to 1024 or above`, { cause: err });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StartupError(`HOST: ${host} is not an address of this machine; set HOST to one (127.0.0.1, or 0.0.0.0 for every interface)`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Longest the reachability check waits for the database's TCP handshake: a limit that only catches a host that never answers. */
const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The database's host and port accept a TCP connection. `mcp` checks it before it answers `initialize`
 * (as it checks the data directory), so a database that is not running or a host that does not resolve
 * reaches the client as the reason, not as a connection closed after a handshake that looked fine.
 * What only PostgreSQL itself can refuse (password, database name) comes when the core opens the store.
 */
export function checkDatabaseReachable(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<void> {
  const url = new URL(config.databaseUrl!);
  // A Unix socket (no host, or `?host=/run/postgresql`) has no TCP port to try: the store's open tells.
  if (url.hostname === '' || url.searchParams.has('host')) return Promise.resolve();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 5432);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const fail = (err: unknown) => {
      socket.destroy();
      reject(explainStartError(err, config as Config));
    };
    socket.setTimeout(DATABASE_CONNECT_TIMEOUT_MS, () => fail(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })));
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
  });
}

const DATABASE_CODES: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  '28P01': 'the password was refused',
  '28000': 'the role may not connect',
  '3D000': 'the database does not exist',
  '42501': 'the role lacks a privilege the server needs (CREATE on the database or schema)',
};

/** An error opening the store at start, as the setting to check; other errors pass through. */
export function explainStartError(err: unknown, config: Config): Error {
  if (err instanceof StartupError) return err;
  const code = codeOf(err);
  if (config.databaseUrl && code in DATABASE_CODES) {
    const url = new URL(config.databaseUrl);
    return new StartupError(
      `DATABASE_URL: cannot use PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname} (${DATABASE_CODES[code]}, ${code}); check that it runs and the URL is right`,
      { cause: err },
    );
  }
  if (!config.databaseUrl && (code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC' || code === 'ENOTDIR')) {
    return new StartupError(`CORE_DATA_DIR: cannot use ${config.dataDir} (${reasonOf(err)}); set CORE_DATA_DIR to a folder this user can write`, {
      cause: err,
    });
  }
  return err instanceof Error ? err : new Error(String(err));
}
