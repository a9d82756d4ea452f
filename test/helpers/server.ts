import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { createCore, type Core } from '../../src/compose.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import type { Clock } from '../../src/lib/clock.js';
import { createHash } from 'node:crypto';
import { callOpOk, type OperationTarget } from './call-op.js';

/**
 * `CORE_TEST_BACKEND=postgres` (with `DATABASE_URL`) runs the test servers on PostgreSQL: each data
 * directory gets a schema of its own, derived from its path, so a restart on the same directory finds its data.
 */
const onPostgres = process.env.CORE_TEST_BACKEND === 'postgres';

/** The PostgreSQL schema that stands for a data directory when the tests run on PostgreSQL. */
export function schemaForDir(dataDir: string): string {
  return `test_${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24)}`;
}

function backendEnv(dataDir: string): Record<string, string> {
  if (!onPostgres) return {};
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('CORE_TEST_BACKEND=postgres needs DATABASE_URL');
  return { DATABASE_URL: url, DATABASE_SCHEMA: schemaForDir(dataDir) };
}

export async function tempDir(prefix = 'core-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return {
    dir,
    cleanup: async () => {
      await rm(dir, { recursive: true, force: true });
      if (!onPostgres) return;
      const { dropSchema } = await import('../store/postgres-harness.js');
      await dropSchema(schemaForDir(dir), process.env.DATABASE_URL);
    },
  };
}

/**
 * Every test client mints its demo keys from 127.0.0.1, so the per-address demo-key quota is off unless
 * a test sets `CORE_QUOTAS` itself; the other quotas keep their defaults.
 */
export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    CORE_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CORE_QUOTAS: 'demo_keys_per_address=off',
    ...backendEnv(dataDir),
    ...env,
  });
}

export interface TestServer extends RunningServer {
  dataDir: string;
  /** fetch relative to the server, JSON in and out. */
  call(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** The last one-time login code the server wrote to its log for `email` (the delivery channel of `code` login). */
  loginCode(email: string): string | undefined;
  close(): Promise<void>;
}

/**
 * A logger that prints nothing and keeps only the one-time login codes, which the server delivers
 * through its log; `codeFor` reads the latest code for an address.
 */
export function loginCodeSink(): { log: ReturnType<typeof createLogger>; codeFor(email: string): string | undefined } {
  const codes = new Map<string, string>();
  const log = createLogger('warn', {}, (line) => {
    if (!line.includes('"one-time login code"')) return;
    const entry = JSON.parse(line) as { email: string; code: string };
    codes.set(entry.email, entry.code);
  });
  return { log, codeFor: (email) => codes.get(email) };
}

/** A real HTTP server on an ephemeral port over a fresh data directory. */
export async function startTestServer(env: Record<string, string> = {}, clock?: Clock): Promise<TestServer> {
  const { dir, cleanup } = await tempDir();
  const codes = loginCodeSink();
  const running = await startHttpServer({ config: testConfig(dir, env), log: codes.log, ...(clock ? { clock } : {}) });
  const call: TestServer['call'] = async (method, p, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const res = await fetch(`${running.url}${p}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    ...running,
    dataDir: dir,
    call,
    loginCode: codes.codeFor,
    close: async () => {
      await running.stop(1000);
      await cleanup();
    },
  };
}

/** The core without HTTP, over a fresh data directory. */
export async function startTestCore(env: Record<string, string> = {}, clock?: Clock): Promise<Core & { cleanup: () => Promise<void> }> {
  const { dir, cleanup } = await tempDir();
  const core = await createCore({ config: testConfig(dir, env), log: createLogger('silent'), ...(clock ? { clock } : {}) });
  return Object.assign(core, {
    cleanup: async () => {
      await core.close();
      await cleanup();
    },
  });
}

/**
 * Signs in as `email` the default way, proving the address with the one-time code from the server log:
 * the session token (also the cookie's value), the cookie header to send and the uid.
 */
export async function signIn(server: TestServer, email: string): Promise<{ token: string; cookie: string; uid: string }> {
  const first = await server.call('POST', '/api/auth/login', { body: { email } });
  if (first.status !== 200 || !first.body.code_required) throw new Error(`login: ${first.status} ${JSON.stringify(first.body)}`);
  const code = server.loginCode(email);
  const res = await server.call('POST', '/api/auth/login', { body: { email, one_time_code: code } });
  const set = res.headers.getSetCookie().find((c) => c.startsWith('core_session='));
  if (res.status !== 200 || !set) throw new Error(`login with code: ${res.status} ${JSON.stringify(res.body)}`);
  const token = set.slice('core_session='.length, set.indexOf(';'));
  return { token, cookie: `core_session=${token}`, uid: res.body.uid as string };
}

/** A new identity: a demo key and its uid. */
export async function mintKey(server: OperationTarget): Promise<{ key: string; uid: string }> {
  const { key, uid } = await callOpOk(server, 'identity.mintDemoKey', {});
  return { key, uid };
}

export interface MachineOptions {
  slug?: string;
  isPublic?: boolean;
  displayName?: string;
  purpose?: string;
}

/** A machine created by `key`'s owner: its slug and record, the machine (admin) key and its id, the genesis tick. */
export async function createMachine(server: OperationTarget, key: string, opts: MachineOptions = {}) {
  const body = {
    ...(opts.slug === undefined ? {} : { slug: opts.slug }),
    ...(opts.isPublic === undefined ? {} : { is_public: opts.isPublic }),
    ...(opts.displayName === undefined ? {} : { display_name: opts.displayName }),
    ...(opts.purpose === undefined ? {} : { purpose: opts.purpose }),
  };
  const created = await callOpOk(server, 'chain.createMachine', body, { key });
  return {
    slug: created.machine.slug,
    machine: created.machine,
    machineKey: created.api_key,
    machineKeyId: created.api_key_id,
    genesis: created.machine.genesis_tick,
  };
}

/** A new identity and a machine it owns: its user key, uid, the machine key and the genesis tick. */
export async function spinUp(server: OperationTarget, slug: string, isPublic = false) {
  const owner = await mintKey(server);
  const { machineKey, genesis } = await createMachine(server, owner.key, { slug, isPublic });
  return { ...owner, machineKey, genesis };
}
