import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** A hang-catcher: a process that has not listened by then never will. */
const LISTEN_LIMIT_MS = 120_000;
/** Starts tried after a crash before giving up (one a second: a database outage in the suite lasts seconds). */
const RELAUNCH_ATTEMPTS = 120;

/** One `node dist/src/cli.js serve` child, restartable on the same port and environment. */
export interface ServeProcess {
  name: string;
  url: string;
  /** Everything it logged so far (stderr, JSON lines), across restarts. */
  logs(): string;
  /** Exits nobody asked for (a crash), with the end of the log before each. */
  crashes: Array<{ code: number | null; signal: string | null; tail: string }>;
  /** `kill -9`; resolves once it exited. */
  kill9(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it listens. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL if it is still running after the hang limit; resolves once it exited. */
  stop(): Promise<void>;
  running(): boolean;
}

/**
 * Starts `serve` with `env` on `port`; resolves once it logged its listening URL. A process that exits
 * by itself is recorded in `crashes` and started again (`onCrash` is told), so one crash does not hide
 * what the later faults would show.
 */
export async function startServe(name: string, port: number, env: Record<string, string>, onCrash?: (name: string) => void): Promise<ServeProcess> {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let log = '';
  let expected = false;
  const crashes: ServeProcess['crashes'] = [];
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      expected = false;
      const c = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
        cwd: root,
        env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child = c;
      let listening = false;
      exited = new Promise((done) =>
        c.once('exit', (code, signal) => {
          done();
          if (!listening) return reject(new Error(`${name} exited before listening: ${log.slice(-2000)}`));
          if (expected) return;
          crashes.push({ code, signal, tail: log.slice(-3000) });
          onCrash?.(name);
          void relaunch();
        }),
      );
      const limit = setTimeout(() => reject(new Error(`${name} did not listen: ${log.slice(-2000)}`)), LISTEN_LIMIT_MS);
      let mine = '';
      c.stderr!.on('data', (chunk: Buffer) => {
        log += chunk;
        if (listening) return;
        mine += chunk;
        if (/"url":"http:/.test(mine)) {
          listening = true;
          clearTimeout(limit);
          resolve();
        }
      });
    });
  /** After a crash: starts it again, retrying while it fails to start (the database may still be down). */
  const relaunch = async () => {
    for (let attempt = 0; attempt < RELAUNCH_ATTEMPTS && !expected; attempt++) {
      try {
        return await launch();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };
  await launch();
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    logs: () => log,
    crashes,
    running,
    async kill9() {
      expected = true;
      if (running()) child!.kill('SIGKILL');
      await exited;
    },
    restart: launch,
    async stop() {
      expected = true;
      if (!running()) return;
      child!.kill('SIGTERM');
      const force = setTimeout(() => child?.kill('SIGKILL'), LISTEN_LIMIT_MS);
      await exited;
      clearTimeout(force);
    },
  };
}
