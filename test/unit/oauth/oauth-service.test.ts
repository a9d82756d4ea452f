import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeClock, type FakeClock } from '../../../src/lib/clock.js';
import { createLowdbStore } from '../../../src/storage/lowdb/lowdb.store.js';
import type { Store } from '../../../src/storage/port.js';
import type { Caller } from '../../../src/domain/identity/caller.js';
import { hashKey } from '../../../src/domain/identity/keys.js';
import { ClientMetadataError } from '../../../src/domain/oauth/cimd/client-metadata-error.js';
import type { ClientMetadataDocument } from '../../../src/domain/oauth/cimd/client-metadata-document.js';
import { createOAuthRepository } from '../../../src/domain/oauth/oauth-repository.js';
import { OAuthError } from '../../../src/domain/oauth/oauth-error.js';
import { s256 } from '../../../src/domain/oauth/oauth-tokens.js';
import { createOAuthService, MAX_PENDING_CONSENTS, type OAuthService } from '../../../src/domain/oauth/oauth.service.js';
import { MAX_REGISTERED_CLIENTS } from '../../../src/domain/oauth/oauth-clients.js';

const ISSUER = 'https://core.example';
const CLIENT = 'https://client.example/oauth/client.json';
const REDIRECT = 'http://127.0.0.1:33418/callback';
const VERIFIER = 'v'.repeat(20) + 'erifier-of-the-test-client-0123456789';
const USER_KEY = 'core_' + 'u'.repeat(40);
const READ_KEY = 'core_' + 'r'.repeat(40);

let store: Store;
let dir: string;
let clock: FakeClock;
let oauth: OAuthService;
/** The keys the fake identity knows, by hash: deleting one is revoking it. */
let keys: Map<string, Caller>;
let documents: Map<string, ClientMetadataDocument | ClientMetadataError>;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'core-oauth-'));
  store = createLowdbStore({ dataDir: dir, fsync: false });
  await store.open();
  clock = createFakeClock();
  keys = new Map([
    [hashKey(USER_KEY), { uid: 'u_person', credential: 'user-key', keyId: 'key_user' }],
    [hashKey(READ_KEY), { uid: 'key:key_read', credential: 'machine-key', keyId: 'key_read', machine: 'm1', scope: 'read' }],
  ]);
  documents = new Map([[CLIENT, document(CLIENT)]]);
  oauth = createOAuthService({
    repo: createOAuthRepository(store),
    clock,
    issuer: () => ISSUER,
    async fetchClientDocument(url) {
      const found = documents.get(url);
      if (found instanceof ClientMetadataError) throw found;
      if (!found) throw new ClientMetadataError('FETCH_FAILED', `nothing at ${url}`);
      return found;
    },
    resolveKey: async (raw) => keys.get(hashKey(raw)),
    resolveKeyHash: async (hash) => keys.get(hash),
    resolveSession: async (token) =>
      token === 'proven-session'
        ? { uid: 'u_person', credential: 'session', proven: true, expiresAtMs: clock.now() + 2 * 3600_000 }
        : token === 'unproven-session'
          ? { uid: 'u_other', credential: 'session', proven: false }
          : undefined,
  });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function document(clientId: string, fields: Partial<ClientMetadataDocument> = {}): ClientMetadataDocument {
  return {
    client_id: clientId,
    client_name: 'Test Client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...fields,
  };
}

const authorizeParams = (over: Record<string, string | undefined> = {}) => ({
  response_type: 'code',
  client_id: CLIENT,
  redirect_uri: REDIRECT,
  code_challenge: s256(VERIFIER),
  code_challenge_method: 'S256',
  state: 'st-1',
  scope: 'read write',
  resource: `${ISSUER}/api/mcp`,
  ...over,
});

async function refusal(promise: Promise<unknown>): Promise<OAuthError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OAuthError);
  return err as OAuthError;
}

/** Authorization request, approval with `key`, and the code from the redirect. */
async function codeFor(key = USER_KEY, scope: 'read' | 'write' | 'admin' = 'write', over: Record<string, string | undefined> = {}): Promise<string> {
  const view = await oauth.startAuthorization(authorizeParams(over));
  const { redirect_to } = await oauth.approve(view.consent_id, { kind: 'key', raw: key }, scope);
  const url = new URL(redirect_to);
  expect(url.searchParams.get('state')).toBe(over.state ?? 'st-1');
  expect(url.searchParams.get('iss')).toBe(ISSUER);
  return url.searchParams.get('code')!;
}

const exchange = (code: string, over: Record<string, string | undefined> = {}) =>
  oauth.token({
    grant_type: 'authorization_code',
    code,
    client_id: CLIENT,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
    resource: `${ISSUER}/api/mcp`,
    ...over,
  });

describe('the authorization code flow', () => {
  it('issues tokens that stand for the granting key, narrowed to the scope chosen', async () => {
    const view = await oauth.startAuthorization(authorizeParams());
    expect(view).toMatchObject({
      client_id: CLIENT,
      client_name: 'Test Client',
      redirect_host: '127.0.0.1:33418',
      scope: 'write',
      source: 'metadata-document',
    });
    const tokens = await exchange(await codeFor());
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' });
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    const caller = await oauth.resolveAccessToken(tokens.access_token);
    expect(caller).toMatchObject({ uid: 'u_person', credential: 'user-key', keyId: 'key_user', oauth: { scope: 'write', clientId: CLIENT } });
    expect(await oauth.grantLive(caller!)).toBe(true);
    // The stored records hold hashes, never the secrets.
    const all = JSON.stringify(await store.docs.list('oauth-tokens'));
    expect(all).not.toContain(tokens.access_token);
    expect(all).not.toContain(tokens.refresh_token);
  });

  it('grants no more than the client asked for, whatever the person chose', async () => {
    const tokens = await exchange(await codeFor(USER_KEY, 'admin', { scope: 'read' }));
    expect(tokens.scope).toBe('read');
  });

  it('refuses a code used twice, and revokes what the first use issued', async () => {
    const code = await codeFor();
    const first = await exchange(code);
    const again = await refusal(exchange(code));
    expect(again).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(again.description).toContain('already used');
    expect(await oauth.resolveAccessToken(first.access_token)).toBeUndefined();
    expect((await refusal(oauth.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT }))).error).toBe('invalid_grant');
  });

  it('refuses a code after 60 seconds (fake clock)', async () => {
    const code = await codeFor();
    clock.advance(60_001);
    expect((await refusal(exchange(code))).description).toContain('expired');
  });

  it('refuses a wrong PKCE verifier, a missing one, and a code of another client or redirect URI', async () => {
    expect((await refusal(exchange(await codeFor(), { code_verifier: 'w'.repeat(43) }))).description).toContain('PKCE');
    expect((await refusal(exchange(await codeFor(), { code_verifier: undefined }))).error).toBe('invalid_request');
    expect((await refusal(exchange(await codeFor(), { client_id: 'https://other.example/c.json' }))).description).toContain('another client');
    expect((await refusal(exchange(await codeFor(), { redirect_uri: 'http://127.0.0.1:1/cb' }))).description).toContain('redirect_uri');
  });

  it('refuses a token request for another resource than the grant (RFC 8707)', async () => {
    const err = await refusal(exchange(await codeFor(), { resource: 'https://evil.example/mcp' }));
    expect(err).toMatchObject({ error: 'invalid_target', status: 400 });
  });
});

describe('the authorization request', () => {
  it('refuses a redirect URI the client does not list, to the person (never redirected)', async () => {
    const err = await refusal(oauth.startAuthorization(authorizeParams({ redirect_uri: 'https://evil.example/cb' })));
    expect(err).toMatchObject({ error: 'invalid_request' });
    expect(err.redirect).toBeUndefined();
  });

  it('takes the registered loopback redirect on the port the native client listens on now, and binds the code to that URI', async () => {
    const now = 'http://127.0.0.1:51999/callback';
    const view = await oauth.startAuthorization(authorizeParams({ redirect_uri: now }));
    expect(view.redirect_host).toBe('127.0.0.1:51999');
    const { redirect_to } = await oauth.approve(view.consent_id, { kind: 'key', raw: USER_KEY }, 'read');
    expect(redirect_to.startsWith(`${now}?`)).toBe(true);
    const code = new URL(redirect_to).searchParams.get('code')!;
    expect((await refusal(exchange(code, { redirect_uri: REDIRECT }))).error).toBe('invalid_grant');
    const err = await refusal(oauth.startAuthorization(authorizeParams({ redirect_uri: 'http://127.0.0.1:51999/elsewhere' })));
    expect(err.redirect).toBeUndefined();
  });

  it('lets the code be exchanged with the loopback redirect URI it was issued to', async () => {
    const now = 'http://127.0.0.1:52000/callback';
    const code = await codeFor(USER_KEY, 'read', { redirect_uri: now });
    expect(await exchange(code, { redirect_uri: now })).toMatchObject({ token_type: 'Bearer', scope: 'read' });
  });

  it('sends PKCE, resource and scope refusals back to the client', async () => {
    for (const [over, code] of [
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge_method: undefined }, 'invalid_request'],
      [{ resource: 'https://evil.example/api/mcp' }, 'invalid_target'],
      [{ scope: 'read everything' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ] as const) {
      const err = await refusal(oauth.startAuthorization(authorizeParams(over)));
      expect(err.error).toBe(code);
      expect(err.redirect).toEqual({ uri: REDIRECT, state: 'st-1' });
    }
  });

  it('maps metadata document failures: unusable documents are invalid_client, a busy fetcher 503', async () => {
    const bad = 'https://client.example/bad.json';
    documents.set(bad, new ClientMetadataError('CLIENT_ID_MISMATCH', 'the document names another client_id'));
    expect(await refusal(oauth.startAuthorization(authorizeParams({ client_id: bad })))).toMatchObject({ error: 'invalid_client', status: 401 });
    const busy = 'https://client.example/busy.json';
    documents.set(busy, new ClientMetadataError('BUSY', 'try again'));
    expect(await refusal(oauth.startAuthorization(authorizeParams({ client_id: busy })))).toMatchObject({ error: 'temporarily_unavailable', status: 503 });
    const jwt = 'https://client.example/jwt.json';
    documents.set(jwt, document(jwt, { token_endpoint_auth_method: 'private_key_jwt' }));
    expect((await refusal(oauth.startAuthorization(authorizeParams({ client_id: jwt })))).error).toBe('invalid_client');
  });

  it('keeps a consent request 10 minutes, answered once; deny redirects with access_denied', async () => {
    const stale = await oauth.startAuthorization(authorizeParams());
    clock.advance(10 * 60_000 + 1);
    expect((await refusal(oauth.approve(stale.consent_id, { kind: 'key', raw: USER_KEY }, 'read'))).error).toBe('invalid_request');
    const view = await oauth.startAuthorization(authorizeParams());
    const denied = new URL((await oauth.deny(view.consent_id)).redirect_to);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect((await refusal(oauth.approve(view.consent_id, { kind: 'key', raw: USER_KEY }, 'read'))).error).toBe('invalid_request');
  });

  it(`holds at most ${MAX_PENDING_CONSENTS} pending consent requests`, async () => {
    for (let i = 0; i < MAX_PENDING_CONSENTS; i++) await oauth.startAuthorization(authorizeParams());
    expect((await refusal(oauth.startAuthorization(authorizeParams()))).error).toBe('temporarily_unavailable');
    clock.advance(10 * 60_000 + 1);
    await oauth.startAuthorization(authorizeParams());
  });
});

describe('what a grant may carry', () => {
  it('refuses a scope above the granting credential, and an unknown key or unproven session', async () => {
    const view = await oauth.startAuthorization(authorizeParams());
    expect(await refusal(oauth.approve(view.consent_id, { kind: 'key', raw: READ_KEY }, 'write'))).toMatchObject({ error: 'invalid_scope' });
    expect((await refusal(oauth.approve(view.consent_id, { kind: 'key', raw: 'core_' + 'x'.repeat(40) }, 'read'))).error).toBe('access_denied');
    expect((await refusal(oauth.approve(view.consent_id, { kind: 'session', token: 'unproven-session' }, 'read'))).error).toBe('access_denied');
    // The refusals above left the request open: a read key may still grant read.
    const tokens = await exchange(
      new URL((await oauth.approve(view.consent_id, { kind: 'key', raw: READ_KEY }, 'read')).redirect_to).searchParams.get('code')!,
    );
    expect(await oauth.resolveAccessToken(tokens.access_token)).toMatchObject({ uid: 'key:key_read', machine: 'm1', scope: 'read', oauth: { scope: 'read' } });
  });

  it('dies with the key that granted it', async () => {
    const tokens = await exchange(await codeFor(READ_KEY, 'read'));
    const caller = (await oauth.resolveAccessToken(tokens.access_token))!;
    keys.delete(hashKey(READ_KEY));
    expect(await oauth.resolveAccessToken(tokens.access_token)).toBeUndefined();
    expect(await oauth.grantLive(caller)).toBe(false);
    expect((await refusal(oauth.token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT }))).error).toBe('invalid_grant');
  });

  it('from a session, lives no longer than the session', async () => {
    const view = await oauth.startAuthorization(authorizeParams());
    const code = new URL((await oauth.approve(view.consent_id, { kind: 'session', token: 'proven-session' }, 'admin')).redirect_to).searchParams.get('code')!;
    const tokens = await exchange(code);
    expect(await oauth.resolveAccessToken(tokens.access_token)).toMatchObject({ uid: 'u_person', credential: 'session', oauth: { scope: 'write' } });
    clock.advance(2 * 3600_000);
    expect(await oauth.resolveAccessToken(tokens.access_token)).toBeUndefined();
    expect((await refusal(oauth.token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT }))).error).toBe('invalid_grant');
  });
});

describe('refresh and revocation', () => {
  it('rotates refresh tokens; an old one used again revokes the whole family', async () => {
    const first = await exchange(await codeFor());
    const second = await oauth.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await oauth.resolveAccessToken(second.access_token)).toBeDefined();
    const replay = await refusal(oauth.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT }));
    expect(replay.description).toContain('already used');
    expect(await oauth.resolveAccessToken(second.access_token)).toBeUndefined();
    expect(await oauth.resolveAccessToken(first.access_token)).toBeUndefined();
  });

  it('narrows on refresh, never widens', async () => {
    const first = await exchange(await codeFor(USER_KEY, 'read'));
    expect((await refusal(oauth.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'write' }))).error).toBe('invalid_scope');
    const again = await exchange(await codeFor());
    expect((await oauth.token({ grant_type: 'refresh_token', refresh_token: again.refresh_token, scope: 'read' })).scope).toBe('read');
  });

  it('expires access tokens after an hour (fake clock)', async () => {
    const tokens = await exchange(await codeFor());
    clock.advance(3600_000 - 1);
    expect(await oauth.resolveAccessToken(tokens.access_token)).toBeDefined();
    clock.advance(1);
    expect(await oauth.resolveAccessToken(tokens.access_token)).toBeUndefined();
  });

  it('revokes the grant of a token (RFC 7009), ignores unknown tokens and other clients', async () => {
    const tokens = await exchange(await codeFor());
    await oauth.revoke({ token: 'oat_nonsense' });
    await oauth.revoke({ token: tokens.refresh_token, client_id: 'https://other.example/c.json' });
    expect(await oauth.resolveAccessToken(tokens.access_token)).toBeDefined();
    await oauth.revoke({ token: tokens.refresh_token, client_id: CLIENT });
    expect(await oauth.resolveAccessToken(tokens.access_token)).toBeUndefined();
    expect((await refusal(oauth.revoke({}))).error).toBe('invalid_request');
    expect((await refusal(oauth.token({ grant_type: 'password' }))).error).toBe('unsupported_grant_type');
  });
});

describe('the store', () => {
  it('sweeps expired codes and tokens in expiry order, live ones kept', async () => {
    await exchange(await codeFor());
    clock.advance(3600_000);
    const live = await exchange(await codeFor());
    const repo = createOAuthRepository(store);
    await repo.sweepExpired(clock.now(), 200);
    const tokens = await store.docs.list<{ kind: string; expires_ms: number }>('oauth-tokens');
    // Left: the first refresh token (30 days) and the second pair; the first access token and the first code went.
    expect(tokens.map((t) => t.kind).sort()).toEqual(['access', 'refresh', 'refresh']);
    expect(tokens.every((t) => t.expires_ms > clock.now())).toBe(true);
    expect(await store.docs.list('oauth-codes')).toHaveLength(1);
    clock.advance(61_000);
    await repo.sweepExpired(clock.now(), 200);
    expect(await store.docs.list('oauth-codes')).toHaveLength(0);
    expect(await oauth.resolveAccessToken(live.access_token)).toBeDefined();
  });

  it('sweeps a grant once the last code or token issued under it expired, never one a token still names', async () => {
    const repo = createOAuthRepository(store);
    const grants = () => store.docs.list<{ grant_id: string; live_until_ms: number }>('oauth-grants');
    // A code never exchanged: its grant lives as long as the code (a minute).
    await codeFor();
    const [unused] = await grants();
    expect(unused!.live_until_ms).toBe(clock.now() + 60_000);
    const first = await exchange(await codeFor());
    clock.advance(61_000);
    await repo.sweepExpired(clock.now(), 200);
    expect((await grants()).map((g) => g.grant_id)).not.toContain(unused!.grant_id);
    expect(await grants()).toHaveLength(1);
    // Refreshed 29 days on, the grant lives 30 days from the new refresh token.
    clock.advance(29 * 24 * 3600_000);
    const refreshed = await oauth.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT });
    clock.advance(2 * 24 * 3600_000);
    await repo.sweepExpired(clock.now(), 200);
    expect(await grants()).toHaveLength(1);
    expect((await oauth.token({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token, client_id: CLIENT })).token_type).toBe('Bearer');
    // Thirty days after the last refresh nothing names the grant: it goes, and its last token with it.
    clock.advance(30 * 24 * 3600_000 + 1);
    await repo.sweepExpired(clock.now(), 200);
    expect(await grants()).toHaveLength(0);
    expect(await store.docs.list('oauth-tokens')).toHaveLength(0);
  });
});

describe('dynamic client registration', () => {
  it('registers public clients for a day, with the redirect URI rules of metadata documents', async () => {
    const client = await oauth.register({ redirect_uris: [REDIRECT], client_name: 'Old Client' });
    expect(client).toMatchObject({ client_name: 'Old Client', token_endpoint_auth_method: 'none' });
    expect((await oauth.startAuthorization(authorizeParams({ client_id: client.client_id }))).source).toBe('registration');
    clock.advance(24 * 3600_000);
    expect((await refusal(oauth.startAuthorization(authorizeParams({ client_id: client.client_id })))).error).toBe('invalid_client');
    expect((await refusal(oauth.register({ redirect_uris: ['http://evil.example/cb'] }))).error).toBe('invalid_redirect_uri');
    expect((await refusal(oauth.register({ redirect_uris: ['javascript:alert(1)'] }))).error).toBe('invalid_redirect_uri');
    expect((await refusal(oauth.register({}))).error).toBe('invalid_redirect_uri');
    expect((await refusal(oauth.register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }))).error).toBe(
      'invalid_client_metadata',
    );
  });

  it(`holds at most ${MAX_REGISTERED_CLIENTS} live registrations`, async () => {
    for (let i = 0; i < MAX_REGISTERED_CLIENTS; i++) await oauth.register({ redirect_uris: [REDIRECT] });
    expect(await refusal(oauth.register({ redirect_uris: [REDIRECT] }))).toMatchObject({ error: 'temporarily_unavailable', status: 503 });
    clock.advance(24 * 3600_000);
    await oauth.register({ redirect_uris: [REDIRECT] });
  });
});
