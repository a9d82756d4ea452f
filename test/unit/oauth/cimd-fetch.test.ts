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
