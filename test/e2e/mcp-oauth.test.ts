import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth as legacyAuth, exchangeAuthorization, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { auth as modernAuth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { startHttpsFixture, type HttpsFixture } from '../helpers/https-fixture.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { serverForTest, useServer } from '../helpers/use-server.js';
import { answerConsent } from '../helpers/oauth-browser.js';
import { MemoryOAuthProvider } from '../helpers/oauth-client-provider.js';

/**
 * OAuth end to end with the official SDK clients' own OAuth support, over HTTP in both MCP eras: the v1
 * client (initialize, 2025-11-25) and the v2 client in its modern mode (server/discover, 2026-07-28). The
 * client's metadata document is served over HTTPS by a local fixture, which the server trusts by the
 * test-only setting CORE_OAUTH_CIMD_TEST_TRUST; the person's browser is played by `answerConsent`.
 */
const REDIRECT = 'http://127.0.0.1:9/oauth/callback';
let fixture: HttpsFixture;
let key: string;
let mcpUrl: URL;
let clientId: string;

beforeAll(async () => {
  fixture = await startHttpsFixture();
});
afterAll(async () => {
  await fixture.close();
});
const server = useServer(() => ({ CORE_OAUTH: 'on', CORE_OAUTH_CIMD_TEST_TRUST: fixture.caFile, CORE_RATE_LIMIT: 'off' }));
beforeAll(async () => {
  ({ key } = await mintKey(server));
  mcpUrl = new URL(`${server.url}/api/mcp`);
  clientId = fixture.document('/sdk-client.json', { client_name: 'SDK Test Client', redirect_uris: [REDIRECT] });
});

const WHOAMI = { name: 'core_account', arguments: { action: 'whoami' } };
const SPIN_UP = (slug: string) => ({ name: 'core_spin_up', arguments: { slug } });

type Era = 'legacy' | 'modern';

function connect(era: Era, provider: MemoryOAuthProvider) {
  if (era === 'legacy') {
    const transport = new LegacyHttpTransport(mcpUrl, { authProvider: provider as never });
    const client = new LegacyClient({ name: 'e2e-oauth-legacy', version: '1.0.0' });
    return { client, transport, open: () => client.connect(transport), finish: (code: string) => transport.finishAuth(code) };
  }
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never });
  const client = new Client({ name: 'e2e-oauth-modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  return {
    client,
    transport,
    open: () => client.connect(transport),
    finish: (code: string) => transport.finishAuth(new URLSearchParams({ code, iss: server.url })),
  };
}

/** Connect, be sent to the consent page, approve with the key, finish, and connect again: an open session. */
async function login(era: Era, provider: MemoryOAuthProvider, scope = 'write', expectedClient: string | RegExp = clientId) {
  const first = connect(era, provider);
  await expect(first.open()).rejects.toThrow(/nauthorized/);
  const url = provider.lastAuthorizationUrl;
  expect(url.searchParams.get('client_id')).toMatch(expectedClient);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('resource')).toBe(mcpUrl.href);
  const consent = await answerConsent(url, { apiKey: key, scope });
  expect(consent.page).toContain(provider.clientMetadataUrl ? 'SDK Test Client' : provider.name);
  expect(consent.page).toContain('127.0.0.1:9');
  expect(consent.status).toBe(303);
  const back = new URL(consent.location!);
  expect(back.searchParams.get('state')).toBe(url.searchParams.get('state'));
  await first.finish(back.searchParams.get('code')!);
  await first.client.close();
  const again = connect(era, provider);
  await again.open();
  return again;
}

const whoamiUid = async (client: { callTool(p: typeof WHOAMI): Promise<unknown> }) =>
  (((await client.callTool(WHOAMI)) as { structuredContent?: { uid?: string } }).structuredContent?.uid ?? null) as string | null;

describe.each(['legacy', 'modern'] as const)('the %s SDK client', (era) => {
  it('discovers, logs in with a metadata document client, calls tools as the granting key, refreshes, and is refused after revocation', async () => {
    const provider = new MemoryOAuthProvider(clientId, REDIRECT);
    const session = await login(era, provider);
    expect(provider.clientInfo?.client_id).toBe(clientId);
    expect(provider.stored?.access_token).toMatch(/^oat_/);
    const direct = await server.call('GET', '/api/whoami', { key });
    expect(await whoamiUid(session.client)).toBe(direct.body.uid);
    const made = (await session.client.callTool(SPIN_UP(`oauth-${era}-made`))) as { isError?: boolean };
    expect(made.isError).toBeFalsy();

    // Refresh through each SDK's own flow: a new pair, the old refresh token spent.
    const before = provider.stored!;
    const refresh = era === 'legacy' ? legacyAuth : modernAuth;
    expect(await refresh(provider as never, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
    expect(provider.stored!.access_token).not.toBe(before.access_token);
    expect(provider.stored!.refresh_token).not.toBe(before.refresh_token);
    expect(await whoamiUid(session.client)).toBe(direct.body.uid);

    // Revocation (RFC 7009): the token is dead at once, and the next call is 401 again.
    const revoked = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.stored!.refresh_token!, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const raw = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.stored!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const asked = provider.authorizationUrls.length;
    await expect(session.client.callTool(WHOAMI)).rejects.toThrow();
    // The client fell back to a new login: its refresh was refused, so it asked for the consent page again.
    expect(provider.authorizationUrls.length).toBe(asked + 1);
    await session.client.close();
  });

  it('a read grant reads and is refused a write, as an MCP tool error', async () => {
    const provider = new MemoryOAuthProvider(clientId, REDIRECT);
    const session = await login(era, provider, 'read');
    expect(await whoamiUid(session.client)).not.toBeNull();
    const write = (await session.client.callTool(SPIN_UP(`oauth-${era}-read`))) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(write.isError).toBe(true);
    expect(write.content[0]?.text).toContain('FORBIDDEN');
    expect(write.content[0]?.text).toContain('"read" scope');
    await session.client.close();
  });
});

describe('dynamic registration, for a client without a metadata document', () => {
  it('the SDK client registers, logs in and calls tools', async () => {
    const provider = new MemoryOAuthProvider(undefined, REDIRECT, 'Registered SDK client');
    const session = await login('legacy', provider, 'write', /^dcr_/);
    expect(await whoamiUid(session.client)).not.toBeNull();
    await session.client.close();
  });
});

/** An authorization request for `client`, as a client would build it, with `over` applied. */
function authorizeUrl(client: string, over: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client,
    redirect_uri: REDIRECT,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 's1',
    scope: 'read write',
    resource: mcpUrl.href,
    ...over,
  });
  return `${server.url}/oauth/authorize?${q}`;
}
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

async function codeFor(client = clientId): Promise<string> {
  const consent = await answerConsent(authorizeUrl(client), { apiKey: key, scope: 'write' });
  expect(consent.status).toBe(303);
  return new URL(consent.location!).searchParams.get('code')!;
}

const exchange = async (code: string, over: { codeVerifier?: string; resource?: URL } = {}) =>
  exchangeAuthorization(server.url, {
    metadata: OAuthMetadataSchema.parse(await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()),
    clientInformation: { client_id: clientId },
    authorizationCode: code,
    codeVerifier: over.codeVerifier ?? VERIFIER,
    redirectUri: REDIRECT,
    ...(over.resource ? { resource: over.resource } : {}),
  });

describe('refusals', () => {
  it('wrong audience: an authorization or a token for another resource', async () => {
    const res = await fetch(authorizeUrl(clientId, { resource: 'https://other.example/api/mcp' }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    await expect(exchange(await codeFor(), { resource: new URL('https://other.example/api/mcp') })).rejects.toThrow(/resource/);
  });

  it('a reused code is refused, and the tokens of its first use are revoked', async () => {
    const code = await codeFor();
    const tokens = await exchange(code);
    expect((await server.call('GET', '/api/whoami', { key: tokens.access_token })).body.uid).not.toBeNull();
    await expect(exchange(code)).rejects.toThrow(/already used/);
    expect((await server.call('GET', '/api/whoami', { key: tokens.access_token })).body.uid).toBeNull();
  });

  it('a PKCE mismatch is refused', async () => {
    await expect(exchange(await codeFor(), { codeVerifier: 'x'.repeat(43) })).rejects.toThrow(/code_verifier/);
  });

  it('a redirect URI not in the document is refused on a page, never redirected to', async () => {
    const res = await fetch(authorizeUrl(clientId, { redirect_uri: 'http://127.0.0.1:9/elsewhere' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('not one of the client');
  });

  it('a scope above the grant: above the granting key at consent, and widened at refresh', async () => {
    const slug = 'oauth-scoped-machine';
    await createMachine(server, key, { slug });
    const created = await server.call('POST', `/api/chain/${slug}/api-keys`, { key, body: { name: 'reader', scope: 'read' } });
    expect(created.status).toBe(200);
    const consent = await answerConsent(authorizeUrl(clientId), { apiKey: created.body.api_key, scope: 'write' });
    expect(consent.status).toBe(400);
    expect(consent.body).toContain('at most');
    const readGrant = await answerConsent(authorizeUrl(clientId, { scope: 'read' }), { apiKey: key, scope: 'read' });
    const tokens = await exchange(new URL(readGrant.location!).searchParams.get('code')!);
    const widened = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId, scope: 'write' }),
    });
    expect(widened.status).toBe(400);
    expect(((await widened.json()) as { error: string }).error).toBe('invalid_scope');
  });

  it('a metadata document whose client_id is not its URL is refused, with the reason on the page', async () => {
    const url = fixture.url('/impostor.json');
    fixture.route('/impostor.json', { json: { client_id: fixture.url('/sdk-client.json'), redirect_uris: [REDIRECT], client_name: 'Impostor' } });
    const res = await fetch(authorizeUrl(url), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toContain('invalid_client');
    expect(page).toContain('CLIENT_ID_MISMATCH');
  });

  it('a metadata URL on a private address is never fetched', async () => {
    for (const host of ['10.0.0.5', '169.254.169.254', '[fd00::1]']) {
      const res = await fetch(authorizeUrl(`https://${host}/client.json`), { redirect: 'manual' });
      expect(res.status).toBe(400);
      const page = await res.text();
      expect(page).toMatch(/ADDRESS_REFUSED|not a public address/);
    }
  });
});

describe('expiry, on a fake clock', () => {
  it('an expired code is refused, and an access token is refused after its hour while a refresh still works', async () => {
    const clock = createFakeClock(Date.now());
    const timed = await serverForTest({ CORE_OAUTH: 'on', CORE_OAUTH_CIMD_TEST_TRUST: fixture.caFile, CORE_RATE_LIMIT: 'off' }, clock);
    const ownKey = (await mintKey(timed)).key;
    const url = (over: Record<string, string> = {}) =>
      authorizeUrl(clientId, over)
        .replace(server.url, timed.url)
        .replace(encodeURIComponent(mcpUrl.href), encodeURIComponent(`${timed.url}/api/mcp`));
    const metadata = OAuthMetadataSchema.parse(await (await fetch(`${timed.url}/.well-known/oauth-authorization-server`)).json());
    const codeNow = async () => new URL((await answerConsent(url(), { apiKey: ownKey, scope: 'write' })).location!).searchParams.get('code')!;
    const swap = (code: string) =>
      exchangeAuthorization(timed.url, {
        metadata,
        clientInformation: { client_id: clientId },
        authorizationCode: code,
        codeVerifier: VERIFIER,
        redirectUri: REDIRECT,
      });

    const stale = await codeNow();
    clock.advance(60_001);
    await expect(swap(stale)).rejects.toThrow(/expired/);

    const tokens = await swap(await codeNow());
    const list = (token: string) =>
      fetch(`${timed.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await list(tokens.access_token)).status).toBe(200);
    clock.advance(3600_000);
    const expired = await list(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const fresh = await refreshAuthorization(timed.url, { metadata, clientInformation: { client_id: clientId }, refreshToken: tokens.refresh_token! });
    expect((await list(fresh.access_token)).status).toBe(200);
  });
});
