import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer } from '../../src/server.js';
import { createMachine, loginCodeSink, mintKey, signIn, tempDir, testConfig, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';
import { UNKNOWN_KEY_MESSAGE } from '../../src/errors.js';

const servers: TestServer[] = [];
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
  while (stops.length > 0) await stops.pop()!();
});

async function start(env: Record<string, string> = {}) {
  const server = await serverForTest(env);
  return server;
}

/** The session token set by an answer, read from its Set-Cookie header. */
function sessionOf(headers: Headers): { token: string; cookie: string } {
  const cookie = headers.getSetCookie().find((c) => c.startsWith('core_session='));
  if (!cookie) throw new Error('no session cookie');
  return { token: cookie.slice('core_session='.length, cookie.indexOf(';')), cookie };
}

/** Proves the address with its one-time code (the default mode); `res` is the answer that opened the session. */
async function login(server: TestServer, email: string) {
  expect((await server.call('POST', '/api/auth/login', { body: { email } })).body.code_required).toBe(true);
  const res = await server.call('POST', '/api/auth/login', { body: { email, one_time_code: server.loginCode(email) } });
  expect(res.status).toBe(200);
  return { res, ...sessionOf(res.headers) };
}

/** Logs in with the address alone, as a node in `CORE_LOGIN_MODE=email` allows. */
async function loginByEmailOnly(server: TestServer, email: string) {
  const res = await server.call('POST', '/api/auth/login', { body: { email } });
  expect(res.status).toBe(200);
  return { res, ...sessionOf(res.headers) };
}

describe('login by e-mail alone (CORE_LOGIN_MODE=email, an opt-in for demos)', () => {
  const emailMode = { CORE_LOGIN_MODE: 'email' };

  it('sets an HttpOnly SameSite=Lax session cookie and never puts the token in the body', async () => {
    const server = await start(emailMode);
    const { res, cookie, token } = await loginByEmailOnly(server, 'ada@example.org');
    expect(res.body).toMatchObject({ ok: true, session_issued: true, code_required: false });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now());
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    expect(JSON.stringify(res.body)).not.toContain(token);
  });

  it('maps the same address (in any case) to the same uid and another address to another uid', async () => {
    const server = await start(emailMode);
    const a = decodeJwt((await loginByEmailOnly(server, 'Ada@Example.org')).token);
    const b = decodeJwt((await loginByEmailOnly(server, 'ada@example.org')).token);
    const c = decodeJwt((await loginByEmailOnly(server, 'grace@example.org')).token);
    expect(a.sub).toMatch(/^u[a-z2-7]{15}$/);
    expect(b.sub).toBe(a.sub);
    expect(c.sub).not.toBe(a.sub);
  });

  it('never tells the uid of an address in its answer, and marks the session unproven', async () => {
    const server = await start(emailMode);
    const { res, token } = await loginByEmailOnly(server, 'ada@example.org');
    expect(res.body.uid).toBeNull();
    expect(decodeJwt(token)).toMatchObject({ amr: ['email'], prv: false });
  });

  it('lets an unproven session read but never mint a credential that outlives it or start a round trip', async () => {
    const server = await start(emailMode);
    const owner = await mintKey(server);
    const made = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: { slug: 'ada-lab' } });
    const { token } = await loginByEmailOnly(server, 'ada@example.org');
    const uid = decodeJwt(token).sub!;
    expect((await server.call('POST', '/api/chain/ada-lab/admins', { key: owner.key, body: { uid, role: 'admin' } })).status).toBe(200);
    const cookie = { cookie: `core_session=${token}` };

    expect((await server.call('GET', '/api/chain/state-machines/ada-lab', { headers: cookie })).body.role).toBe('admin');
    const machine = await server.call('POST', '/api/chain/state-machines', { headers: cookie, body: { slug: 'ada-own' } });
    expect(machine.status).toBe(403);
    expect(machine.body.error.message).toMatch(/proven identity.*one-time code/);
    const apiKey = await server.call('POST', '/api/chain/ada-lab/api-keys', { headers: cookie, body: { name: 'ci', scope: 'admin' } });
    expect(apiKey.status).toBe(403);
    expect(apiKey.body.error.message).toMatch(/Minting an API key needs a proven identity/);
    const share = await server.call('POST', '/api/chain/state-machines/ada-lab/share/set', { headers: cookie, body: {} });
    expect(share.status).toBe(403);
    const sso = await server.call('GET', `/api/auth/sso-start?${new URLSearchParams({ redirect_uri: '/explorer/', state: 'state-1234567' })}`, {
      headers: cookie,
    });
    expect(sso.status).toBe(403);
    expect(sso.headers.getSetCookie()).toEqual([]);
    expect(made.status).toBe(200);
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

describe('login with one-time codes is the default', () => {
  it('answers code_required and sets no cookie for an address alone, and tells no uid until the code is shown', async () => {
    const server = await start();
    const first = await server.call('POST', '/api/auth/login', { body: { email: 'ada@example.org' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ session_issued: false, code_required: true, uid: null });
    expect(first.headers.getSetCookie()).toEqual([]);
    const { res, token } = await (async () => {
      const r = await server.call('POST', '/api/auth/login', { body: { email: 'ada@example.org', one_time_code: server.loginCode('ada@example.org') } });
      return { res: r, ...sessionOf(r.headers) };
    })();
    expect(res.body.uid).toMatch(/^u[a-z2-7]{15}$/);
    expect(decodeJwt(token)).toMatchObject({ sub: res.body.uid, amr: ['otp'], prv: true });
  });

  it('lets a proven session mint an API key for its machine', async () => {
    const server = await start();
    const session = await signIn(server, 'ada@example.org');
    const machine = await server.call('POST', '/api/chain/state-machines', { headers: { cookie: session.cookie }, body: { slug: 'ada-lab' } });
    expect(machine.status).toBe(200);
    const apiKey = await server.call('POST', '/api/chain/ada-lab/api-keys', { headers: { cookie: session.cookie }, body: { name: 'ci', scope: 'read' } });
    expect(apiKey.status).toBe(200);
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
    const byCookie = await server.call('POST', '/api/chain/state-machines', {
      headers: { cookie: `theme=dark; core_session=${token}` },
      body: { slug: 'ada-lab' },
    });
    expect(byCookie.status).toBe(200);
    expect(byCookie.body.machine.owner_uid).toBe(res.body.uid);
    const byBearer = await createMachine(server, token, { slug: 'ada-lab-2' });
    expect(byBearer.machine.owner_uid).toBe(res.body.uid);
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
    const res = await server.call('POST', '/api/chain/state-machines', {
      key: user.key,
      headers: { cookie: `core_session=${token}` },
      body: { slug: 'key-lab' },
    });
    expect(res.status).toBe(200);
    expect(res.body.machine.owner_uid).toBe(user.uid);
  });

  it('lets a session expire after a day', async () => {
    const clock = createFakeClock(Date.now());
    const { dir, cleanup } = await tempDir();
    const codes = loginCodeSink();
    const running = await startHttpServer({ config: testConfig(dir), log: codes.log, clock });
    stops.push(async () => {
      await running.stop(1000);
      await cleanup();
    });
    const post = (body: unknown) =>
      fetch(`${running.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await post({ email: 'ada@example.org' });
    const res = await post({ email: 'ada@example.org', one_time_code: codes.codeFor('ada@example.org') });
    const { token } = sessionOf(res.headers);
    const create = (slug: string) =>
      fetch(`${running.url}/api/chain/state-machines`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slug }),
      });
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
      lines
        .map((l) => JSON.parse(l))
        .filter((e) => e.msg === 'one-time login code' && e.email === email)
        .pop()?.code as string | undefined;
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
  const redirect = '/explorer/after-login';

  /** The `core_sso=<value>` pair an answer set, to send back as this browser's cookie. */
  function bindingOf(headers: Headers): string {
    const set = headers.getSetCookie().find((c) => c.startsWith('core_sso='));
    if (!set) throw new Error('no SSO binding cookie');
    return set.slice(0, set.indexOf(';'));
  }

  async function startSso(server: TestServer, key: string, extra: Record<string, string> = {}) {
    const q = new URLSearchParams({ redirect_uri: redirect, state: 'state-1234567', ...extra });
    return server.call('GET', `/api/auth/sso-start?${q}`, { key });
  }

  /** Starts a round trip and returns the callback URL and the cookie header of the browser that started it. */
  async function started(server: TestServer, key: string, extra: Record<string, string> = {}) {
    const res = await startSso(server, key, extra);
    expect(res.status).toBe(200);
    return { url: new URL(res.body.redirect_to), cookie: bindingOf(res.headers) };
  }

  it('turns a signed-in user into a browser session: sso-start, then the callback sets the cookie once', async () => {
    const server = await start();
    const user = await mintKey(server);
    const res = await startSso(server, user.key);
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('state-1234567');
    const binding = res.headers.getSetCookie().find((c) => c.startsWith('core_sso='))!;
    expect(binding).toMatch(/; Path=\/api\/auth\/callback; Max-Age=60; HttpOnly; SameSite=Lax/);
    const url = new URL(res.body.redirect_to);
    expect(`${url.origin}${url.pathname}`).toBe(`${server.url}/api/auth/callback`);
    expect(url.searchParams.get('state')).toBe('state-1234567');

    const cookie = bindingOf(res.headers);
    const cb = await fetch(url, { headers: { cookie } });
    const body = (await cb.json()) as any;
    expect(cb.status).toBe(200);
    expect(body).toMatchObject({ ok: true, uid: user.uid, redirect_to: redirect });
    expect(cb.headers.getSetCookie().find((c) => c.startsWith('core_sso='))).toMatch(/^core_sso=; .*Max-Age=0/);
    const { token } = sessionOf(cb.headers);
    expect(decodeJwt(token)).toMatchObject({ amr: ['sso'], prv: true });
    const asSession = await server.call('POST', '/api/chain/state-machines', { key: token, body: { slug: 'sso-lab' } });
    expect(asSession.body.machine.owner_uid).toBe(user.uid);

    const replay = await fetch(url, { headers: { cookie } });
    expect(replay.status).toBe(422);
    expect(((await replay.json()) as any).error.message).toMatch(/unknown or was already used/);
  });

  it('refuses to finish a round trip in a browser other than the one that started it (login CSRF), and voids the code', async () => {
    const server = await start();
    const attacker = await mintKey(server);
    const { url, cookie } = await started(server, attacker.key);
    const victim = await fetch(url);
    expect(victim.status).toBe(400);
    const body = (await victim.json()) as any;
    expect(body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { reason: 'other_browser' } });
    expect(body.error.message).toMatch(/started in another browser/);
    expect(victim.headers.getSetCookie()).toEqual([]);
    expect((await fetch(url, { headers: { cookie } })).status).toBe(422);
    const second = await started(server, attacker.key);
    const forged = await fetch(second.url, { headers: { cookie: 'core_sso=not-the-binding-value' } });
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as any).error.details.reason).toBe('other_browser');
  });

  it('refuses redirect targets off this node with 400 and allows paths, its own origin and CORE_SSO_REDIRECTS', async () => {
    const server = await start({ CORE_SSO_REDIRECTS: 'https://app.example.org' });
    const user = await mintKey(server);
    for (const target of [
      'https://evil.example/after',
      '//evil.example/after',
      '/\\evil.example',
      'javascript:alert(1)',
      'https://app.example.org.evil.example/',
      'ftp://x.org/',
      'explorer/',
    ]) {
      const res = await startSso(server, user.key, { redirect_uri: target });
      expect(res.status, target).toBe(400);
      expect(res.body.error.message, target).toMatch(/redirect_uri must be a path on this node/);
      expect(res.headers.getSetCookie(), target).toEqual([]);
    }
    for (const target of ['/explorer/', `${server.url}/explorer/machine.html?slug=x`, 'https://app.example.org/after-login']) {
      const { url, cookie } = await started(server, user.key, { redirect_uri: target });
      const cb = await fetch(url, { headers: { cookie } });
      expect(((await cb.json()) as any).redirect_to, target).toBe(target);
    }
    const plain = await start();
    const other = await mintKey(plain);
    expect((await startSso(plain, other.key, { redirect_uri: 'https://app.example.org/after-login' })).status).toBe(400);
  });

  it('starts a round trip only where the answer can set the binding cookie (REST, not core_http)', async () => {
    const server = await start();
    const user = await mintKey(server);
    const q = new URLSearchParams({ redirect_uri: redirect, state: 'state-1234567' });
    const res = await server.call('POST', '/api/http', { key: user.key, body: { method: 'GET', path: `/api/auth/sso-start?${q}` } });
    expect(JSON.stringify(res.body)).toMatch(/UNPROCESSABLE|over HTTP/);
    expect(JSON.stringify(res.body)).not.toMatch(/api\/auth\/callback\?code=/);
    const client = new Client({ name: 'sso', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${user.key}` } } }),
    );
    try {
      const viaMcp = await client.callTool({ name: 'core_auth', arguments: { action: 'sso_start', redirect_uri: redirect, state: 'state-1234567' } });
      expect(viaMcp.isError).toBe(true);
      expect(JSON.stringify(viaMcp.structuredContent)).toMatch(/UNPROCESSABLE/);
    } finally {
      await client.close();
    }
  });

  it('refuses a wrong state and voids the code', async () => {
    const server = await start();
    const user = await mintKey(server);
    const { url, cookie } = await started(server, user.key);
    const code = url.searchParams.get('code')!;
    const bad = await server.call('GET', `/api/auth/callback?code=${code}&state=other-state-99`, { headers: { cookie } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.reason).toBe('state_mismatch');
    expect((await fetch(url, { headers: { cookie } })).status).toBe(422);
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
    const res = await fetch(`${running.url}/api/auth/sso-start?${q}`, { headers: { authorization: `Bearer ${key}` } });
    const startedBody = (await res.json()) as any;
    clock.advance(61_000);
    const cb = await fetch(startedBody.redirect_to, { headers: { cookie: bindingOf(res.headers) } });
    expect(cb.status).toBe(422);
    expect(((await cb.json()) as any).error.details.reason).toBe('expired');
  });

  it('binds a code to its PKCE challenge: no verifier or a wrong one is refused, the right one works', async () => {
    const server = await start();
    const user = await mintKey(server);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const codeOf = async () => {
      const { url, cookie } = await started(server, user.key, { code_challenge: challenge, code_challenge_method: 'S256' });
      return { code: url.searchParams.get('code')!, headers: { cookie } };
    };
    const a = await codeOf();
    const missing = await server.call('GET', `/api/auth/callback?code=${a.code}&state=state-1234567`, { headers: a.headers });
    expect(missing.body.error.details.reason).toBe('verifier_required');
    const b = await codeOf();
    const wrong = await server.call('GET', `/api/auth/callback?code=${b.code}&state=state-1234567&code_verifier=${randomBytes(32).toString('base64url')}`, {
      headers: b.headers,
    });
    expect(wrong.body.error.details.reason).toBe('verifier_mismatch');
    const c = await codeOf();
    const right = await server.call('GET', `/api/auth/callback?code=${c.code}&state=state-1234567&code_verifier=${verifier}`, { headers: c.headers });
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
    expect(
      (await server.call('GET', `/api/auth/sso-start?${new URLSearchParams({ redirect_uri: 'ftp://x.org/', state: 'state-1234567' })}`, { key: user.key }))
        .status,
    ).toBe(400);
  });
});
