import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientMetadataFetcher, type ClientMetadataFetcherOptions } from '../../../src/domain/oauth/cimd/client-metadata-fetcher.js';
import { ClientMetadataError } from '../../../src/domain/oauth/cimd/client-metadata-error.js';
import type { ResolveHost } from '../../../src/domain/oauth/cimd/resolve-host.js';
import { startHttpsFixture, type HttpsFixture } from '../../helpers/https-fixture.js';

let fixture: HttpsFixture;
beforeAll(async () => {
  fixture = await startHttpsFixture();
});
afterAll(async () => {
  await fixture.close();
});

/** `client.test` and its subdomains exist nowhere but here: a fetch that succeeds connected to the address this gave. */
const fixtureDns: ResolveHost = async (hostname) => {
  if (hostname.endsWith('client.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw new ClientMetadataError('RESOLUTION_FAILED', `no ${hostname} in the test resolver`);
};

function fetcher(options: ClientMetadataFetcherOptions = {}) {
  return createClientMetadataFetcher({ resolve: fixtureDns, testTrust: { ca: fixture.caPem }, ...options });
}

async function refusal(promise: Promise<unknown>): Promise<ClientMetadataError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ClientMetadataError);
  return err as ClientMetadataError;
}

describe('fetching a client metadata document over HTTPS', () => {
  it('returns the validated document, connecting to the checked address with the name in SNI and Host', async () => {
    const clientId = fixture.document('/ok.json', { client_uri: 'https://client.test/' }, { host: 'client.test' });
    const doc = await fetcher().fetchClient(clientId);
    expect(doc).toMatchObject({
      client_id: clientId,
      client_name: 'Fixture Client',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const seen = fixture.requests.filter((r) => r.path === '/ok.json');
    expect(seen).toEqual([{ path: '/ok.json', host: `client.test:${fixture.port}`, servername: 'client.test', remoteAddress: '127.0.0.1' }]);
  });

  it('reaches localhost only with the test-only trust, and refuses it without', async () => {
    const clientId = fixture.document('/local.json');
    await expect(fetcher().fetchClient(clientId)).resolves.toMatchObject({ client_id: clientId });
    const err = await refusal(createClientMetadataFetcher({ resolve: fixtureDns }).fetchClient(clientId));
    expect(err.code).toBe('ADDRESS_REFUSED');
    expect(err.message).toContain('127.0.0.1');
  });

  it('refuses a certificate the test trust does not name', async () => {
    const other = await startHttpsFixture();
    try {
      const clientId = other.document('/x.json', {}, { host: 'client.test' });
      const err = await refusal(fetcher().fetchClient(clientId));
      expect(err.code).toBe('FETCH_FAILED');
    } finally {
      await other.close();
    }
  });
});

describe('refusing what a metadata fetch must not do', () => {
  it.each([
    ['http://client.test/app.json', 'only https'],
    ['https://client.test/', 'must have a path'],
    ['https://client.test', 'must have a path'],
    ['https://client.test/app.json#x', 'fragment'],
    ['https://user:pw@client.test/app.json', 'user name or password'],
    ['https://client.test/a/../app.json', '".." segments'],
    ['https://client.test/a/%2e%2e/app.json', '".." segments'],
    ['https://CLIENT.test/app.json', 'canonical form, https://client.test/app.json'],
    ['https://client.test:443/app.json', 'canonical form'],
    ['https://client.test/a b', 'space'],
    ['not-a-url', 'not an absolute URL'],
  ])('refuses the client_id %s before any lookup', async (clientId, words) => {
    let lookups = 0;
    const f = createClientMetadataFetcher({ resolve: async () => (lookups++, []) });
    const err = await refusal(f.fetchClient(clientId));
    expect(err.code).toBe('INVALID_CLIENT_ID_URL');
    expect(err.message).toContain(words);
    expect(lookups).toBe(0);
  });

  it.each([
    ['10.0.0.7', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'IPv6 global unicast'],
    ['::ffff:10.0.0.1', 'IPv6 global unicast'],
    ['::ffff:8.8.8.8', 'IPv6 global unicast'],
    ['fe80::1', 'IPv6 global unicast'],
    ['fd12::1', 'IPv6 global unicast'],
    ['64:ff9b::a00:1', 'IPv6 global unicast'],
    ['2002:a00:1::1', '6to4'],
  ])('refuses a name that resolves to %s (%s) without connecting', async (address, words) => {
    const f = createClientMetadataFetcher({ resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }] });
    const err = await refusal(f.fetchClient('https://evil.example/app.json'));
    expect(err.code).toBe('ADDRESS_REFUSED');
    expect(err.message).toContain(address);
    expect(err.message).toContain(words);
  });

  it('refuses a name that resolves to both a public and a private address', async () => {
    const f = createClientMetadataFetcher({
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    });
    expect((await refusal(f.fetchClient('https://mixed.example/app.json'))).code).toBe('ADDRESS_REFUSED');
  });

  it('refuses IP literals of private ranges, which need no lookup', async () => {
    const f = createClientMetadataFetcher({ resolve: async () => [] });
    expect((await refusal(f.fetchClient('https://[::1]/app.json'))).code).toBe('ADDRESS_REFUSED');
    expect((await refusal(f.fetchClient('https://192.168.0.1/app.json'))).code).toBe('ADDRESS_REFUSED');
  });

  it('under the test trust still refuses private addresses other than loopback', async () => {
    const f = fetcher({ resolve: async () => [{ address: '10.1.1.1', family: 4 }] });
    expect((await refusal(f.fetchClient('https://client.test/app.json'))).code).toBe('ADDRESS_REFUSED');
  });

  it('does not follow a redirect', async () => {
    fixture.document('/target.json', {}, { host: 'client.test' });
    fixture.route('/moved.json', { status: 302, headers: { location: fixture.url('/target.json', 'client.test') } });
    const err = await refusal(fetcher().fetchClient(fixture.url('/moved.json', 'client.test')));
    expect(err.code).toBe('REDIRECT_REFUSED');
    expect(fixture.requests.some((r) => r.path === '/target.json')).toBe(false);
  });

  it('refuses a status other than 200', async () => {
    expect((await refusal(fetcher().fetchClient(fixture.url('/missing.json', 'client.test')))).code).toBe('HTTP_STATUS');
  });

  it('stops reading a body larger than the cap, announced or not', async () => {
    fixture.route('/huge.json', { stream: { bytes: 10 * 1024 * 1024 } });
    const err = await refusal(fetcher({ maxBytes: 4096 }).fetchClient(fixture.url('/huge.json', 'client.test')));
    expect(err.code).toBe('TOO_LARGE');
    fixture.route('/announced.json', { headers: { 'content-length': '999999' }, body: '' });
    expect((await refusal(fetcher({ maxBytes: 4096 }).fetchClient(fixture.url('/announced.json', 'client.test')))).code).toBe('TOO_LARGE');
  });

  it('gives up on a body that drips past the time cap', async () => {
    fixture.route('/drip.json', { drip: { everyMs: 20 } });
    let fire: () => void = () => undefined;
    // The cap fires when the fixture says the drip has begun: an event, not a race against the clock.
    const f = fetcher({ schedule: (_ms, cb) => ((fire = cb), () => undefined) });
    fixture.events.once('dripping', () => fire());
    const err = await refusal(f.fetchClient(fixture.url('/drip.json', 'client.test')));
    expect(err.code).toBe('TIMEOUT');
  });

  it('refuses a body that is not JSON, by content type or by syntax', async () => {
    fixture.route('/html.json', { headers: { 'content-type': 'text/html' }, body: '<html>' });
    expect((await refusal(fetcher().fetchClient(fixture.url('/html.json', 'client.test')))).code).toBe('NOT_JSON');
    fixture.route('/broken.json', { body: '{"client_id":' });
    expect((await refusal(fetcher().fetchClient(fixture.url('/broken.json', 'client.test')))).code).toBe('NOT_JSON');
  });

  it('refuses a document whose client_id is not exactly its URL', async () => {
    fixture.route('/impostor.json', { json: { client_id: 'https://claude.ai/oauth/client.json', redirect_uris: ['https://evil.example/cb'] } });
    const err = await refusal(fetcher().fetchClient(fixture.url('/impostor.json', 'client.test')));
    expect(err.code).toBe('CLIENT_ID_MISMATCH');
    expect(err.message).toContain('https://claude.ai/oauth/client.json');
  });

  it.each([
    [{ redirect_uris: undefined }, 'redirect_uris'],
    [{ redirect_uris: [] }, 'at least one redirect URI'],
    [{ redirect_uris: ['http://evil.example/cb'] }, 'http only on a loopback host'],
    [{ redirect_uris: ['javascript:alert(1)'] }, 'javascript:'],
    [{ token_endpoint_auth_method: 'client_secret_basic' }, 'shared secret'],
    [{ client_secret: 's3cret' }, 'client_secret'],
    [{ token_endpoint_auth_method: 'private_key_jwt' }, 'jwks_uri or jwks'],
    [{ grant_types: ['client_credentials'] }, 'authorization_code'],
  ])('refuses an invalid document (%j)', async (fields, words) => {
    const clientId = fixture.document(`/invalid-${words.replace(/\W/g, '')}.json`, fields, { host: 'client.test' });
    const err = await refusal(fetcher().fetchClient(clientId));
    expect(err.code).toBe('INVALID_DOCUMENT');
    expect(err.message).toContain(words);
  });
});
