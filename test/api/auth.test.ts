import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer } from '../../src/server.js';
import { mintKey, startTestServer, tempDir, testConfig, type TestServer } from '../helpers/server.js';
import { UNKNOWN_KEY_MESSAGE } from '../../src/errors.js';

const servers: TestServer[] = [];
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
  while (stops.length > 0) await stops.pop()!();
});

async function start(env: Record<string, string> = {}) {
  const server = await startTestServer(env);
  servers.push(server);
  return server;
}

/** The session token set by an answer, read from its Set-Cookie header. */
function sessionOf(headers: Headers): { token: string; cookie: string } {
  const cookie = headers.getSetCookie().find((c) => c.startsWith('core_session='));
  if (!cookie) throw new Error('no session cookie');
  return { token: cookie.slice('core_session='.length, cookie.indexOf(';')), cookie };
}

async function login(server: TestServer, email: string) {
  const res = await server.call('POST', '/api/auth/login', { body: { email } });
  expect(res.status).toBe(200);
  return { res, ...sessionOf(res.headers) };
}

describe('login by e-mail (default mode)', () => {
  it('sets an HttpOnly SameSite=Lax session cookie and never puts the token in the body', async () => {
    const server = await start();
    const { res, cookie, token } = await login(server, 'ada@example.org');
    expect(res.body).toMatchObject({ ok: true, session_issued: true, code_required: false });
    expect(res.body.uid).toMatch(/^u[a-z2-7]{15}$/);
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now());
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    expect(JSON.stringify(res.body)).not.toContain(token);
  });

  it('maps the same address (in any case) to the same uid and another address to another uid', async () => {
    const server = await start();
    const a = await login(server, 'Ada@Example.org');
    const b = await login(server, 'ada@example.org');
    const c = await login(server, 'grace@example.org');
    expect(b.res.body.uid).toBe(a.res.body.uid);
    expect(c.res.body.uid).not.toBe(a.res.body.uid);
  });

  it('refuses an invalid address', async () => {
    const server = await start();
    const res = await server.call('POST', '/api/auth/login', { body: { email: 'not-an-address' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/email/);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('refuses to log in where no cookie can be set (the generic caller)', async () => {
    const server = await start();
    const res = await server.call('POST', '/api/http', { body: { method: 'POST', path: '/api/auth/login', body: { email: 'ada@example.org' } } });
    expect(JSON.stringify(res.body)).toMatch(/UNPROCESSABLE|over HTTP/);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

describe('session tokens and discovery', () => {
  it('publishes a discovery document and a JWKS against which a session JWT verifies with jose', async () => {
    const server = await start();
    const { token, res } = await login(server, 'ada@example.org');
    const discovery = await server.call('GET', '/api/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/api/auth/sso-start`,
      jwks_uri: `${server.url}/api/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['EdDSA'],
      code_challenge_methods_supported: ['S256'],
    });
    const jwks = await server.call('GET', '/api/.well-known/jwks.json');
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(jwks.body.keys[0]).not.toHaveProperty('d');

    const keySet = createRemoteJWKSet(new URL(discovery.body.jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(token, keySet, { issuer: discovery.body.issuer, audience: 'core-session' });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: jwks.body.keys[0].kid, typ: 'JWT' });
    expect(payload.sub).toBe(res.body.uid);
    expect(payload.exp! * 1000).toBe(Date.parse(res.body.expires_at));

    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(token), sub: 'uintruder' })).toString('base64url')}.${signature}`;
    await expect(jwtVerify(forged, keySet)).rejects.toThrow();
  });

  it('authenticates requests with the session cookie or the JWT as a bearer token, as the session uid', async () => {
    const server = await start();
    const { token, res } = await login(server, 'ada@example.org');
    const byCookie = await server.call('POST', '/api/chain/state-machines', { headers: { cookie: `theme=dark; core_session=${token}` }, body: { slug: 'ada-lab' } });
    expect(byCookie.status).toBe(200);
    expect(byCookie.body.machine.owner_uid).toBe(res.body.uid);
    const byBearer = await server.call('POST', '/api/chain/state-machines', { key: token, body: { slug: 'ada-lab-2' } });
    expect(byBearer.status).toBe(200);
    expect(byBearer.body.machine.owner_uid).toBe(res.body.uid);
    const mine = await server.call('GET', '/api/chain/state-machines/ada-lab', { headers: { cookie: `core_session=${token}` } });
    expect(mine.body.role).toBe('owner');
    expect(mine.status).toBe(200);
  });

  it('refuses a tampered JWT bearer token with 401, and treats a stale cookie as no credential', async () => {
    const server = await start();
    const { token } = await login(server, 'ada@example.org');
    const tampered = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const bearer = await server.call('POST', '/api/chain/state-machines', { key: tampered, body: { slug: 'x-lab' } });
    expect(bearer.status).toBe(401);
    expect(bearer.body.error.message).toBe(UNKNOWN_KEY_MESSAGE);
    const cookieOnly = await server.call('POST', '/api/chain/state-machines', { headers: { cookie: `core_session=${tampered}` }, body: { slug: 'x-lab' } });
    expect(cookieOnly.status).toBe(401);
    const publicRead = await server.call('GET', '/api/.well-known/jwks.json', { headers: { cookie: `core_session=${tampered}` } });
    expect(publicRead.status).toBe(200);
  });

  it('still authenticates API keys as before, and a key wins over a session cookie', async () => {
    const server = await start();
    const user = await mintKey(server);
    const { token } = await login(server, 'ada@example.org');
    const res = await server.call('POST', '/api/chain/state-machines', { key: user.key, headers: { cookie: `core_session=${token}` }, body: { slug: 'key-lab' } });
    expect(res.status).toBe(200);
    expect(res.body.machine.owner_uid).toBe(user.uid);
  });

  it('lets a session expire after a day', async () => {
    const clock = createFakeClock(Date.now());
    const { dir, cleanup } = await tempDir();
    const running = await startHttpServer({ config: testConfig(dir), log: createLogger('silent'), clock });
    stops.push(async () => {
      await running.stop(1000);
      await cleanup();
    });
    const res = await fetch(`${running.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.org' }) });
    const { token } = sessionOf(res.headers);
    const create = (slug: string) =>
      fetch(`${running.url}/api/chain/state-machines`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ slug }) });
    expect((await create('before-expiry')).status).toBe(200);
    clock.advance(24 * 3600 * 1000 + 1000);
    expect((await create('after-expiry')).status).toBe(401);
  });
});

describe('login with one-time codes (CORE_LOGIN_MODE=code)', () => {
  async function codeServer() {
    const lines: string[] = [];
    const { dir, cleanup } = await tempDir();
    const running = await startHttpServer({
      config: testConfig(dir, { CORE_LOGIN_MODE: 'code' }),
      log: createLogger('info', {}, (line) => void lines.push(line)),
    });
    stops.push(async () => {
      await running.stop(1000);
      await cleanup();
    });
    const post = async (body: unknown) => {
      const res = await fetch(`${running.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any, headers: res.headers };
    };
    const codeFor = (email: string) =>
      lines.map((l) => JSON.parse(l)).filter((e) => e.msg === 'one-time login code' && e.email === email).pop()?.code as string | undefined;
    return { post, codeFor };
  }

  it('writes a code to the server log on the first call and opens a session only with it, once', async () => {
    const t = await codeServer();
    const first = await t.post({ email: 'ada@example.org' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ok: true, session_issued: false, code_required: true, uid: null, expires_at: null });
    expect(first.headers.getSetCookie()).toEqual([]);
    const code = t.codeFor('ada@example.org');
    expect(code).toMatch(/^\d{8}$/);
    const wrong = await t.post({ email: 'ada@example.org', one_time_code: code === '00000000' ? '11111111' : '00000000' });
    expect(wrong.status).toBe(422);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const right = await t.post({ email: 'ada@example.org', one_time_code: code });
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ session_issued: true, code_required: false });
    expect(sessionOf(right.headers).token.split('.')).toHaveLength(3);
    expect((await t.post({ email: 'ada@example.org', one_time_code: code })).status).toBe(422);
  });

  it('refuses a code of another address and rate-limits new codes for one address', async () => {
    const t = await codeServer();
    await t.post({ email: 'ada@example.org' });
    await t.post({ email: 'grace@example.org' });
    const adaCode = t.codeFor('ada@example.org')!;
    expect((await t.post({ email: 'grace@example.org', one_time_code: adaCode })).status).toBe(adaCode === t.codeFor('grace@example.org') ? 200 : 422);
    const again = await t.post({ email: 'ada@example.org' });
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('RATE_LIMITED');
  });

  it('voids a code after five wrong guesses', async () => {
    const t = await codeServer();
    await t.post({ email: 'ada@example.org' });
    const code = t.codeFor('ada@example.org')!;
    const other = code === '12345678' ? '87654321' : '12345678';
    for (let i = 0; i < 5; i++) expect((await t.post({ email: 'ada@example.org', one_time_code: other })).status).toBe(422);
    expect((await t.post({ email: 'ada@example.org', one_time_code: code })).status).toBe(422);
  });
});

describe('SSO authorization-code round trip', () => {
  const redirect = 'https://app.example.org/after-login';

  async function startSso(server: TestServer, key: string, extra: Record<string, string> = {}) {
    const q = new URLSearchParams({ redirect_uri: redirect, state: 'state-1234567', ...extra });
    return server.call('GET', `/api/auth/sso-start?${q}`, { key });
  }

  it('turns a signed-in user into a browser session: sso-start, then the callback sets the cookie once', async () => {
    const server = await start();
    const user = await mintKey(server);
    const started = await startSso(server, user.key);
    expect(started.status).toBe(200);
    expect(started.body.state).toBe('state-1234567');
    const url = new URL(started.body.redirect_to);
    expect(`${url.origin}${url.pathname}`).toBe(`${server.url}/api/auth/callback`);
    expect(url.searchParams.get('state')).toBe('state-1234567');

    const cb = await fetch(url);
    const body = (await cb.json()) as any;
    expect(cb.status).toBe(200);
    expect(body).toMatchObject({ ok: true, uid: user.uid, redirect_to: redirect });
    const { token } = sessionOf(cb.headers);
    const asSession = await server.call('POST', '/api/chain/state-machines', { key: token, body: { slug: 'sso-lab' } });
    expect(asSession.body.machine.owner_uid).toBe(user.uid);

    const replay = await fetch(url);
    expect(replay.status).toBe(422);
    expect(((await replay.json()) as any).error.message).toMatch(/unknown or was already used/);
  });

  it('refuses a wrong state and voids the code', async () => {
    const server = await start();
    const user = await mintKey(server);
    const url = new URL((await startSso(server, user.key)).body.redirect_to);
    const code = url.searchParams.get('code')!;
    const bad = await server.call('GET', `/api/auth/callback?code=${code}&state=other-state-99`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.reason).toBe('state_mismatch');
    expect((await fetch(url)).status).toBe(422);
  });

  it('expires codes after a minute', async () => {
    const clock = createFakeClock(Date.now());
    const { dir, cleanup } = await tempDir();
    const running = await startHttpServer({ config: testConfig(dir), log: createLogger('silent'), clock });
    stops.push(async () => {
      await running.stop(1000);
      await cleanup();
    });
    const key = ((await (await fetch(`${running.url}/api/demo-key/mint`, { method: 'POST' })).json()) as any).key as string;
    const q = new URLSearchParams({ redirect_uri: redirect, state: 'state-1234567' });
    const started = (await (await fetch(`${running.url}/api/auth/sso-start?${q}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    clock.advance(61_000);
    const cb = await fetch(started.redirect_to);
    expect(cb.status).toBe(422);
    expect(((await cb.json()) as any).error.details.reason).toBe('expired');
  });

  it('binds a code to its PKCE challenge: no verifier or a wrong one is refused, the right one works', async () => {
    const server = await start();
    const user = await mintKey(server);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const codeOf = async () => new URL((await startSso(server, user.key, { code_challenge: challenge, code_challenge_method: 'S256' })).body.redirect_to).searchParams.get('code')!;
    const missing = await server.call('GET', `/api/auth/callback?code=${await codeOf()}&state=state-1234567`);
    expect(missing.body.error.details.reason).toBe('verifier_required');
    const wrong = await server.call('GET', `/api/auth/callback?code=${await codeOf()}&state=state-1234567&code_verifier=${randomBytes(32).toString('base64url')}`);
    expect(wrong.body.error.details.reason).toBe('verifier_mismatch');
    const right = await server.call('GET', `/api/auth/callback?code=${await codeOf()}&state=state-1234567&code_verifier=${verifier}`);
    expect(right.status).toBe(200);
    expect(right.body.uid).toBe(user.uid);
  });

  it('needs a signed-in person: anonymous is 401, a machine key is 403', async () => {
    const server = await start();
    const user = await mintKey(server);
    const machine = await server.call('POST', '/api/chain/state-machines', { key: user.key, body: { slug: 'm-lab' } });
    const q = new URLSearchParams({ redirect_uri: redirect, state: 'state-1234567' });
    expect((await server.call('GET', `/api/auth/sso-start?${q}`)).status).toBe(401);
    const byMachineKey = await server.call('GET', `/api/auth/sso-start?${q}`, { key: machine.body.api_key });
    expect(byMachineKey.status).toBe(403);
    expect((await server.call('GET', `/api/auth/sso-start?${new URLSearchParams({ redirect_uri: 'ftp://x.org/', state: 'state-1234567' })}`, { key: user.key })).status).toBe(400);
  });
});
