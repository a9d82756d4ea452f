import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src/log.js';
import { createFakeClock, type FakeClock } from '../../src/lib/clock.js';
import type { Operation } from '../../src/registry/registry.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { tempDir, testConfig } from '../helpers/server.js';
import { expectedClass, isBadKey, type AuthClass, type CallerKind } from './auth-harness.js';
import { queryValue, requestOf, withTimeout } from './fuzz-harness.js';

/**
 * The auth matrix's fixture, shared by the REST run and the MCP / core_http run: a real server on a
 * fake clock with a debug log kept in memory, every raw secret it issued (for the leak scans), and a
 * "world" of two machines with a caller of every kind.
 */
export interface Creds {
  key?: string;
  share?: string;
  cookie?: string;
}
export interface World {
  priv: string;
  pub: string;
  otherSlug: string;
  callers: Record<CallerKind, Creds>;
  uids: Record<string, string>;
}
export interface Answer {
  status: number;
  text: string;
  json: any;
  headers: Headers;
}

/** The HTTP headers that carry a caller's credentials (the same on REST and `POST /api/mcp`). */
export function credentialHeaders(creds: Creds): Record<string, string> {
  const headers: Record<string, string> = {};
  if (creds.key !== undefined) headers.authorization = `Bearer ${creds.key}`;
  if (creds.share !== undefined) headers['x-share-token'] = creds.share;
  if (creds.cookie !== undefined) headers.cookie = creds.cookie;
  return headers;
}

/** The outcome class of an answer: 401, 403, 404 naming the machine (hidden), or let through. */
export function classify(status: number, json: any, slug: string): AuthClass {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404 && json?.error?.code === 'NOT_FOUND' && json.error.message === `No machine "${slug}"`) return 'hidden';
  return 'passed';
}

/**
 * Public operations that take a credential of their own instead of a key (the site publish key): an
 * anonymous call without it is 401, with it allowed, so the catalogue rightly calls them public.
 */
const ALTERNATE_CREDENTIAL = new Set(['chain.uploadSitePage']);

/**
 * Whether an answer is the one the registry's rules allow for this caller. A domain refusal (unknown
 * id, missing field) is fine where "passed" is expected; a role refusal, a 401 or a hidden machine are
 * not: an operation that answers 401 to an anonymous caller must say it needs a key (`keyRequired`), as
 * the catalogue and OpenAPI then state. Operations without a declared role may check readability in
 * their handler: that may refuse a caller who can read the machine (403), and must hide a private
 * machine from a caller who cannot read it.
 */
export function judge(op: Operation, kind: CallerKind, machine: 'private' | 'public', status: number, json: any, slug: string) {
  const want = expectedClass(op, kind, machine);
  const got = classify(status, json, slug);
  const roleRefusal = status === 403 && /needs the \w+ role/.test(String(json?.error?.message));
  const nonReader = machine === 'private' && (kind === 'none' || kind === 'other_owner' || isBadKey(kind));
  const anonymous = kind === 'none' || kind === 'share_token' || isBadKey(kind);
  const ok =
    (want === 'passed'
      ? got === 'passed' ||
        // A bad key turns a not-found into 401 "key not known" (the key is the problem), so it may stand for a 404.
        (got === 'unauthenticated' && anonymous && (ALTERNATE_CREDENTIAL.has(op.id) || isBadKey(kind))) ||
        (got === 'forbidden' && !roleRefusal) ||
        (got === 'forbidden' && !nonReader) ||
        (got === 'hidden' && nonReader)
      : got === want) &&
    // A 401 for a bad key says the key is not known here, so an agent knows to mint a new one.
    !(got === 'unauthenticated' && isBadKey(kind) && !/not known to this server's store/.test(String(json?.error?.message)));
  return { ok, want, got, nonReader };
}

export interface AuthFixture {
  running: RunningServer;
  clock: FakeClock;
  logLines: string[];
  /** Every raw secret issued, with the label of the answer that issued it. */
  secrets: Map<string, string>;
  /** Where a secret was found in an answer or log line. */
  leaks: string[];
  /** How many worlds were built (the first plus rebuilds after a write changed one). */
  readonly worlds: number;
  scanForSecrets(text: string, where: string): void;
  send(method: string, path: string, creds: Creds, body?: unknown, query?: Record<string, string>, stream?: boolean): Promise<Answer>;
  must(method: string, path: string, creds: Creds, body?: unknown): Promise<any>;
  buildWorld(): Promise<World>;
  worldIntact(w: World): Promise<boolean>;
  /** One operation over REST with its input split into path, query and body as a client would. */
  callOp(op: Operation, input: Record<string, unknown>, slug: string, creds: Creds): Promise<Answer>;
  stop(): Promise<void>;
}

export async function startAuthFixture(prefix: string, env: Record<string, string> = {}): Promise<AuthFixture> {
  const clock = createFakeClock();
  const logLines: string[] = [];
  const secrets = new Map<string, string>();
  const leaks: string[] = [];
  const tmp = await tempDir(prefix);
  const running = await startHttpServer({
    config: testConfig(tmp.dir, { CORE_RATE_LIMIT: 'off', ...env }),
    log: createLogger('debug', {}, (line) => void logLines.push(line)),
    clock,
  });
  let worlds = 0;
  const tag = randomBytes(3).toString('hex');

  const scanForSecrets = (text: string, where: string) => {
    for (const [secret, issuedBy] of secrets) if (text.includes(secret)) leaks.push(`${where} contains ${issuedBy}`);
  };
  const secret = (value: string, label: string) => {
    secrets.set(value, label);
    return value;
  };

  const send: AuthFixture['send'] = async (method, path, creds, body, query = {}, stream = false) => {
    const headers = credentialHeaders(creds);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const qs = new URLSearchParams(query).toString();
    const abort = new AbortController();
    const where = `${method} ${path}`;
    const res = await withTimeout(
      fetch(`${running.url}${path}${qs ? `?${qs}` : ''}`, {
        method,
        headers,
        signal: abort.signal,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
      where,
    );
    if (stream && res.status === 200 && res.headers.get('content-type')?.startsWith('text/event-stream')) {
      abort.abort();
      return { status: 200, text: '', json: undefined, headers: res.headers };
    }
    const text = await withTimeout(res.text(), where);
    abort.abort();
    scanForSecrets(text, where);
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, text, json, headers: res.headers };
  };

  const must: AuthFixture['must'] = async (method, path, creds, body) => {
    const res = await send(method, path, creds, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.json;
  };

  const mint = async (label: string) => {
    const res = await send('POST', '/api/demo-key/mint', {}, {});
    if (res.status !== 200) throw new Error(`mint: ${res.status} ${res.text}`);
    return { key: secret(res.json.key as string, `${label}'s user key`), uid: res.json.uid as string };
  };

  /** Two machines of one owner (private and public), members of every role, a share token, a session. */
  const buildWorld = async (): Promise<World> => {
    const n = ++worlds;
    const owner = await mint('owner');
    const other = await mint('other owner');
    const viewer = await mint('viewer');
    const operator = await mint('operator');
    const admin = await mint('admin');
    // The default login proves the address with the one-time code the server writes to its log.
    const email = `session${n}-${tag}@example.org`;
    await must('POST', '/api/auth/login', {}, { email });
    const code = logLines
      .map((l) => JSON.parse(l))
      .filter((e) => e.msg === 'one-time login code' && e.email === email)
      .pop()?.code as string;
    const login = await send('POST', '/api/auth/login', {}, { email, one_time_code: code });
    const setCookie = login.headers.getSetCookie().find((c) => c.startsWith('core_session='));
    if (login.status !== 200 || !setCookie) throw new Error(`login: ${login.status} ${login.text}`);
    const cookie = secret(setCookie.slice(0, setCookie.indexOf(';')), 'the session cookie');
    secrets.set(cookie.slice('core_session='.length), 'the session token');
    const sessionUid = login.json.uid as string;
    const priv = `authm-priv-${n}`;
    const pub = `authm-pub-${n}`;
    const otherSlug = `authm-other-${n}`;
    await must('POST', '/api/chain/state-machines', { key: owner.key }, { slug: priv, is_public: false });
    await must('POST', '/api/chain/state-machines', { key: owner.key }, { slug: pub, is_public: true });
    await must('POST', '/api/chain/state-machines', { key: other.key }, { slug: otherSlug, is_public: true });
    for (const slug of [priv, pub]) {
      for (const [uid, role] of [
        [viewer.uid, 'viewer'],
        [operator.uid, 'operator'],
        [admin.uid, 'admin'],
        [sessionUid, 'operator'],
      ] as const) {
        await must('POST', `/api/chain/${slug}/admins`, { key: owner.key }, { uid, role });
      }
      await must('POST', `/api/chain/${slug}/event`, { key: owner.key }, { type: 'authm.seed', payload: { slug } });
    }
    const share = await must('POST', `/api/chain/state-machines/${priv}/share/set`, { key: owner.key }, {});
    secret(share.share_token, 'the share token');
    // Developer keys: one revoked, one expired (the fake clock moves past its expiry).
    const revoked = await must('POST', `/api/chain/${priv}/api-keys`, { key: owner.key }, { name: 'to revoke', scope: 'admin' });
    secret(revoked.api_key, 'the revoked developer key');
    await must('DELETE', `/api/chain/${priv}/api-keys/${revoked.key.id}`, { key: owner.key });
    const expiring = await must(
      'POST',
      `/api/chain/${priv}/api-keys`,
      { key: owner.key },
      {
        name: 'to expire',
        scope: 'admin',
        expires_at: new Date(clock.now() + 60_000).toISOString(),
      },
    );
    secret(expiring.api_key, 'the expired developer key');
    clock.advance(120_000);
    return {
      priv,
      pub,
      otherSlug,
      uids: { owner: owner.uid, other: other.uid, session: sessionUid },
      callers: {
        none: {},
        invalid_key: { key: `core_${randomBytes(24).toString('hex')}` },
        revoked_key: { key: revoked.api_key },
        expired_key: { key: expiring.api_key },
        share_token: { share: share.share_token },
        other_owner: { key: other.key },
        viewer: { key: viewer.key },
        operator: { key: operator.key },
        admin: { key: admin.key },
        session: { cookie },
        owner: { key: owner.key },
      },
    };
  };

  const worldIntact = async (w: World): Promise<boolean> => {
    const [p, q, shared, admins] = await Promise.all([
      send('GET', `/api/chain/state-machines/${w.priv}`, w.callers.owner),
      send('GET', `/api/chain/state-machines/${w.pub}`, w.callers.owner),
      send('GET', `/api/chain/state-machines/${w.priv}`, w.callers.share_token),
      send('GET', `/api/chain/${w.pub}/admins`, w.callers.session),
    ]);
    return (p.status === 200 &&
      p.json.machine?.is_public === false &&
      p.json.machine?.status === 'active' &&
      q.status === 200 &&
      q.json.machine?.is_public === true &&
      q.json.machine?.status === 'active' &&
      shared.status === 200 &&
      admins.status === 200 &&
      admins.json.admins.length === 4) as boolean;
  };

  const callOp: AuthFixture['callOp'] = (op, input, slug, creds) => {
    const { path, query, body } = requestOf(op, input, { slug, motherSlug: slug });
    const q: Record<string, string> = {};
    for (const [k, v] of Object.entries(query)) q[k] = queryValue(v);
    return send(op.method, path, creds, body, q, op.response.kind === 'stream');
  };

  return {
    running,
    clock,
    logLines,
    secrets,
    leaks,
    get worlds() {
      return worlds;
    },
    scanForSecrets,
    send,
    must,
    buildWorld,
    worldIntact,
    callOp,
    stop: async () => {
      await running.stop(1000);
      await tmp.cleanup();
    },
  };
}
