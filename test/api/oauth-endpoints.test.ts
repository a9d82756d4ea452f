import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { mintKey, createMachine, signIn } from '../helpers/server.js';
import { serverForTest, useServer } from '../helpers/use-server.js';
import { answerConsent } from '../helpers/oauth-browser.js';
import { openSse, type OpenSse } from '../helpers/sse.js';

/** The OAuth endpoints over HTTP with a registered (RFC 7591) client; the SDK clients and metadata documents are in test/e2e/mcp-oauth.test.ts. */
let key: string;
const REDIRECT = 'http://127.0.0.1:9/callback';

const server = useServer({ CORE_OAUTH: 'on', CORE_RATE_LIMIT: 'off' });
beforeAll(async () => {
  key = (await mintKey(server)).key;
});

const verifier = () => randomBytes(32).toString('base64url');
const challengeOf = (v: string) => createHash('sha256').update(v).digest('base64url');

async function register(): Promise<string> {
  const res = await server.call('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT], client_name: 'Registered <b>client</b>' } });
  expect(res.status).toBe(201);
  return res.body.client_id;
}

function authorizeUrl(clientId: string, v: string, over: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challengeOf(v),
    code_challenge_method: 'S256',
    state: 'xyz',
    scope: 'read write admin',
    resource: `${server.url}/api/mcp`,
    ...over,
  });
  return `${server.url}/oauth/authorize?${q}`;
}

const form = (path: string, fields: Record<string, string>) =>
  server.call('POST', path, { body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function tokensFor(scope: string, apiKey = key) {
  const clientId = await register();
  const v = verifier();
  const { location, status } = await answerConsent(authorizeUrl(clientId, v), { apiKey, scope });
  expect(status).toBe(303);
  const code = new URL(location!).searchParams.get('code')!;
  const res = await form('/oauth/token', { grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT, code_verifier: v });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return { clientId, ...(res.body as { access_token: string; refresh_token: string; scope: string }) };
}

describe('discovery', () => {
  it('serves RFC 9728 metadata at the root and for /api/mcp, and RFC 8414 metadata with CIMD support', async () => {
    const root = await server.call('GET', '/.well-known/oauth-protected-resource');
    expect(OAuthProtectedResourceMetadataSchema.parse(root.body)).toMatchObject({ resource: server.url, authorization_servers: [server.url] });
    const mcp = await server.call('GET', '/.well-known/oauth-protected-resource/api/mcp');
    expect(mcp.body.resource).toBe(`${server.url}/api/mcp`);
    const as = await server.call('GET', '/.well-known/oauth-authorization-server');
    expect(OAuthMetadataSchema.parse(as.body)).toMatchObject({
      issuer: server.url,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      token_endpoint: `${server.url}/oauth/token`,
    });
  });

  it('answers /api/mcp without a credential with 401 and the challenge; a key still works', async () => {
    const res = await server.call('POST', '/api/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/mcp"`);
    const unknown = await server.call('POST', '/api/mcp', { key: 'core_' + 'z'.repeat(40), body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const rest = await server.call('GET', '/api/whoami', { key: 'oat_' + 'z'.repeat(43) });
    expect(rest.status).toBe(200);
    expect(rest.body.uid).toBeNull();
    const bearerOnly = await server.call('POST', '/api/chain/state-machines', { key: 'oat_' + 'z'.repeat(43), body: { slug: 'never-made' } });
    expect(bearerOnly.status).toBe(401);
    expect(bearerOnly.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
  });
});

describe('tokens over REST', () => {
  it('a read token reads as the granting key; a write is 403 insufficient_scope with the challenge', async () => {
    const { access_token, scope } = await tokensFor('read');
    expect(scope).toBe('read');
    const me = await server.call('GET', '/api/whoami', { key: access_token });
    const direct = await server.call('GET', '/api/whoami', { key });
    expect(me.body.uid).toBe(direct.body.uid);
    const write = await server.call('POST', '/api/chain/state-machines', { key: access_token, body: { slug: 'oauth-read-try' } });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="write"');
    // Through the relay, the operation it runs is what the scope is checked on.
    const relayedRead = await server.call('POST', '/api/http', { key: access_token, body: { method: 'GET', path: '/api/whoami' } });
    expect(relayedRead.status).toBe(200);
    expect(JSON.stringify(relayedRead.body)).toContain(direct.body.uid);
    const relayedWrite = await server.call('POST', '/api/http', {
      key: access_token,
      body: { method: 'POST', path: '/api/chain/state-machines', body: { slug: 'oauth-relay-try' } },
    });
    expect(JSON.stringify(relayedWrite.body)).toContain('insufficient_scope');
  });

  it('a write token writes; revoking it makes it dead at once', async () => {
    const { access_token, refresh_token, clientId } = await tokensFor('write');
    await createMachine(server, access_token, { slug: 'oauth-write-ok' });
    expect((await form('/oauth/revoke', { token: refresh_token, client_id: clientId })).status).toBe(200);
    const after = await server.call('POST', '/api/chain/state-machines', { key: access_token, body: { slug: 'oauth-write-2' } });
    expect(after.status).toBe(401);
  });
});

/** Waits for the server to end the stream (a hang-catcher only) and returns its final event. */
async function finalEvent(stream: OpenSse): Promise<{ event?: string; code?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the stream was not ended within 60 s')), 60_000);
  });
  await Promise.race([stream.ended, hang]).finally(() => clearTimeout(timer));
  const last = stream.events.at(-1);
  return { event: last?.event, code: last ? (JSON.parse(last.data) as { code?: string }).code : undefined };
}

describe('open streams follow the grant', () => {
  const append = (slug: string) => server.call('POST', `/api/chain/${slug}/event`, { key, body: { type: 'reading', payload: { v: 1 } } });

  it('a stream opened with a token ends when its grant is revoked', async () => {
    const slug = 'oauth-stream-grant';
    await createMachine(server, key, { slug });
    const { access_token, refresh_token, clientId } = await tokensFor('read');
    const stream = await openSse(`${server.url}/api/chain/${slug}/explore/sse`, { authorization: `Bearer ${access_token}` });
    expect(stream.res.status).toBe(200);
    await append(slug);
    await stream.until(1);
    await form('/oauth/revoke', { token: refresh_token, client_id: clientId });
    expect(await finalEvent(stream)).toEqual({ event: 'access.revoked', code: 'UNAUTHENTICATED' });
  });

  it('a stream opened with a token granted by a machine key ends when that key is revoked', async () => {
    const slug = 'oauth-stream-key';
    await createMachine(server, key, { slug });
    const created = await server.call('POST', `/api/chain/${slug}/api-keys`, { key, body: { name: 'reader', scope: 'read' } });
    const { access_token } = await tokensFor('read', created.body.api_key);
    const stream = await openSse(`${server.url}/api/chain/${slug}/explore/sse`, { authorization: `Bearer ${access_token}` });
    await append(slug);
    await stream.until(1);
    expect((await server.call('DELETE', `/api/chain/${slug}/api-keys/${created.body.key.id}`, { key })).status).toBe(200);
    expect(await finalEvent(stream)).toEqual({ event: 'access.revoked', code: 'UNAUTHENTICATED' });
    expect((await server.call('GET', '/api/whoami', { key: access_token })).body.uid).toBeNull();
  });
});

describe('the consent page', () => {
  it('shows the client name escaped and the redirect host, with a self-only CSP that lets the form reach the redirect', async () => {
    const clientId = await register();
    const res = await fetch(authorizeUrl(clientId, verifier()));
    const page = await res.text();
    expect(page).toContain('Registered &lt;b&gt;client&lt;/b&gt;');
    expect(page).toContain('127.0.0.1:9');
    expect(page).not.toContain('<script');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('refuses an unknown redirect URI on a page, never redirecting; sends other refusals to the client', async () => {
    const clientId = await register();
    const bad = await fetch(authorizeUrl(clientId, verifier(), { redirect_uri: 'https://evil.example/cb' }), { redirect: 'manual' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('location')).toBeNull();
    const plain = await fetch(authorizeUrl(clientId, verifier(), { code_challenge_method: 'plain' }), { redirect: 'manual' });
    expect(plain.status).toBe(303);
    const back = new URL(plain.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('xyz');
  });

  it('approves with a proven session only from its own origin (no cross-site approval)', async () => {
    const { cookie, uid } = await signIn(server, 'oauth-person@example.org');
    const clientId = await register();
    const crossSite = await answerConsent(authorizeUrl(clientId, verifier()), { cookie, origin: 'https://evil.example', scope: 'read' });
    expect(crossSite.status).toBe(400);
    expect(crossSite.page).toContain(uid);
    const v = verifier();
    const ok = await answerConsent(authorizeUrl(clientId, v), { cookie, origin: server.url, scope: 'admin' });
    expect(ok.status).toBe(303);
    const code = new URL(ok.location!).searchParams.get('code')!;
    const tokens = await form('/oauth/token', { grant_type: 'authorization_code', code, client_id: clientId, code_verifier: v });
    expect((await server.call('GET', '/api/whoami', { key: tokens.body.access_token })).body.uid).toBe(uid);
  });

  it("signs in with the node's one-time code on the page itself", async () => {
    const clientId = await register();
    const v = verifier();
    const page = await (await fetch(authorizeUrl(clientId, v))).text();
    const consentId = /name="consent_id" value="([^"]+)"/.exec(page)![1]!;
    const post = (fields: Record<string, string>) =>
      fetch(`${server.url}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ consent_id: consentId, decision: 'approve', scope: 'read', ...fields }),
      });
    const email = 'consent-code@example.org';
    const asked = await post({ email });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('One-time code');
    const wrong = await post({ email, one_time_code: '000000x' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('wrong, used or expired');
    await post({ email });
    const done = await post({ email, one_time_code: server.loginCode(email)! });
    expect(done.status).toBe(303);
    expect(done.headers.get('set-cookie')).toContain('HttpOnly');
    const code = new URL(done.headers.get('location')!).searchParams.get('code')!;
    const tokens = await form('/oauth/token', { grant_type: 'authorization_code', code, client_id: clientId, code_verifier: v });
    expect(tokens.body.scope).toBe('read');
    const me = await server.call('GET', '/api/whoami', { key: tokens.body.access_token });
    expect(me.body.uid).toMatch(/^u/);
    expect(me.body.uid).not.toBe((await server.call('GET', '/api/whoami', { key })).body.uid);
  });

  it('shows a wrong key again on the page, the request still open', async () => {
    const clientId = await register();
    const res = await answerConsent(authorizeUrl(clientId, verifier()), { apiKey: 'core_' + 'q'.repeat(40), scope: 'read' });
    expect(res.status).toBe(400);
    expect(res.body).toContain('not known to this server');
  });
});

describe('bad input is an OAuth error, never a 500', () => {
  it('token, register and revoke refuse malformed requests with the right status', async () => {
    const cases: Array<[Promise<{ status: number; body: any }>, number, string]> = [
      [server.call('POST', '/oauth/token', { body: { grant_type: 'authorization_code' } }), 400, 'invalid_request'],
      [form('/oauth/token', { grant_type: 'password' }), 400, 'unsupported_grant_type'],
      [
        server.call('POST', '/oauth/token', { body: 'grant_type=a&grant_type=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        400,
        'invalid_request',
      ],
      [form('/oauth/token', { grant_type: 'authorization_code', code: 'oac_nope', client_id: 'x', code_verifier: 'v'.repeat(43) }), 400, 'invalid_grant'],
      [form('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'ort_' + 'a'.repeat(43) }), 400, 'invalid_grant'],
      [form('/oauth/token', { grant_type: 'authorization_code', code: 'x', __proto__: 'y' } as Record<string, string>), 400, 'invalid_grant'],
      [server.call('POST', '/oauth/register', { body: '{not json', headers: { 'content-type': 'application/json' } }), 400, 'invalid_client_metadata'],
      [server.call('POST', '/oauth/register', { body: [1] }), 400, 'invalid_client_metadata'],
      [server.call('POST', '/oauth/register', { body: { redirect_uris: ['http://evil.example/cb'] } }), 400, 'invalid_redirect_uri'],
      [server.call('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT], padding: 'x'.repeat(20_000) } }), 413, 'invalid_request'],
      [form('/oauth/revoke', {}), 400, 'invalid_request'],
      [server.call('GET', '/oauth/token'), 404, 'invalid_request'],
    ];
    for (const [pending, status, error] of cases) {
      const res = await pending;
      expect([res.status, res.body?.error]).toEqual([status, error]);
    }
  });
});

describe('with CORE_OAUTH off (the default)', () => {
  it('serves no OAuth endpoint, and /api/mcp answers without a credential as before', async () => {
    const plain = await serverForTest({ CORE_RATE_LIMIT: 'off' });
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/api/mcp']) {
      expect((await plain.call('GET', path)).status).toBe(404);
    }
    expect((await plain.call('POST', '/oauth/token', { body: 'grant_type=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(
      404,
    );
    const listed = await plain.call('POST', '/api/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(listed.status).toBe(200);
    const refused = await plain.call('POST', '/api/chain/state-machines', { body: { slug: 'nobody' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });
});
