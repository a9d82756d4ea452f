import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where Debian puts the PostgreSQL 15 programs; `PG_BIN` overrides it. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** Every chaos cluster's data directory starts with this, so a crashed run's cluster can be found and removed. */
const PREFIX = 'core-chaos-pg-';
/** The database the servers use inside the chaos cluster. */
const DATABASE = 'chaos';

/** A throwaway PostgreSQL cluster on 127.0.0.1 only, owned by the suite: restarting or refusing it disturbs no other test. */
export interface ChaosCluster {
  /** The cluster's own directory (removed with it): the servers' data directories can go here too. */
  dir: string;
  port: number;
  /** `DATABASE_URL` of the database the servers share. */
  url: string;
  /** Runs one statement on the maintenance database (never on the one it may refuse). */
  admin(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** Refuses new connections to the servers' database and ends every backend it has. */
  refuse(): Promise<number>;
  allow(): Promise<void>;
  /** Ends the backends whose `application_name` is one of `names`; how many it ended. */
  terminate(names: string[]): Promise<number>;
  /** `pg_ctl stop -m fast`: every connection is cut and new ones are refused until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** The server's log so far. */
  serverLog(): Promise<string>;
  /** Stops the cluster and removes its directory; safe to call twice. */
  destroy(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** PostgreSQL refuses to run as root: as root (CI), its programs run as the `postgres` user. */
function pgCommand(program: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const bin = path.join(PG_BIN, program);
  return asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);
}

/** The file naming the test process that owns a cluster directory (or a mounted tmpfs). */
export const OWNER = 'owner.pid';

/** Whether a process with this pid runs (as anyone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and removes the clusters an earlier run left behind when it crashed (found by their directory's
 * prefix); a cluster whose owning test process still runs belongs to a run going on beside this one.
 */
export async function removeStaleClusters(): Promise<number> {
  const dirs = (await readdir(os.tmpdir())).filter((name) => name.startsWith(PREFIX)).map((name) => path.join(os.tmpdir(), name));
  let removed = 0;
  for (const dir of dirs) {
    const owner = Number(await readFile(path.join(dir, OWNER), 'utf8').catch(() => '0'));
    if (owner > 0 && alive(owner)) continue;
    removed++;
    await pgCommand('pg_ctl', ['stop', '-D', path.join(dir, 'data'), '-m', 'immediate']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
  return removed;
}

/** Creates, starts and opens a cluster of its own with small settings and trust auth, then creates the servers' database. */
export async function createChaosCluster(): Promise<ChaosCluster> {
  await removeStaleClusters();
  const dir = await mkdtemp(path.join(os.tmpdir(), PREFIX));
  await writeFile(path.join(dir, OWNER), String(process.pid));
  const data = path.join(dir, 'data');
  if (asRoot) {
    const { uid, gid } = await stat('/var/lib/postgresql').catch(() => ({ uid: 0, gid: 0 }));
    await chown(dir, uid, gid);
  }
  const port = await freePort();
  await pgCommand('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    '-c max_connections=100',
    '-c shared_buffers=32MB',
    // No operating-system crash is simulated, so skipping fsync loses nothing (PostgreSQL's own restarts
    // flush WAL); commits stay synchronous, so an acknowledged write is one PostgreSQL said it committed.
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  const logFile = path.join(dir, 'server.log');
  const start = async () => {
    await pgCommand('pg_ctl', ['start', '-D', data, '-w', '-t', '120', '-l', logFile, '-o', options]);
  };
  const stop = async () => {
    await pgCommand('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '120']);
  };
  await start();
  const base = `postgres://postgres@127.0.0.1:${port}`;
  const admin = async (sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: `${base}/postgres`, application_name: 'chaos admin' });
    await client.connect();
    try {
      return await client.query(sql, params);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${DATABASE}`);
  let destroyed = false;
  return {
    dir,
    port,
    url: `${base}/${DATABASE}`,
    admin,
    async refuse() {
      await admin(`ALTER DATABASE ${DATABASE} ALLOW_CONNECTIONS false`);
      const ended = await admin('SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1', [DATABASE]);
      return Number(ended.rows[0]?.n ?? 0);
    },
    allow: async () => void (await admin(`ALTER DATABASE ${DATABASE} ALLOW_CONNECTIONS true`)),
    async terminate(names) {
      const ended = await admin(
        'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = ANY($2)',
        [DATABASE, names],
      );
      return Number(ended.rows[0]?.n ?? 0);
    },
    stop,
    start,
    serverLog: () => readFile(logFile, 'utf8').catch(() => ''),
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await pgCommand('pg_ctl', ['stop', '-D', data, '-m', 'immediate']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
