import { createBoundedCache } from './bounded-cache.js';
import { cacheLifetimeMs, type CacheBounds } from './cache-lifetime.js';
import { parseClientIdUrl } from './client-id-url.js';
import { checkClientMetadataDocument, type ClientMetadataDocument } from './client-metadata-document.js';
import { ClientMetadataError, TRANSIENT_CODES } from './client-metadata-error.js';
import { createFetchSlots } from './fetch-slots.js';
import { pinnedHttpsGet } from './pinned-https-get.js';
import { refusedAddressReason } from './public-address.js';
import { addressesOf, createDnsResolver, type ResolveHost } from './resolve-host.js';

export interface ClientMetadataFetcherOptions {
  /** Looks up a host's addresses (default: c-ares DNS). Tests inject answers they cannot serve. */
  resolve?: ResolveHost;
  /** Unix milliseconds, for cache expiry (default `Date.now`). */
  now?: () => number;
  /** Arms the time cap; returns its cancel (default `setTimeout`). Tests fire it on an event instead. */
  schedule?: (ms: number, fire: () => void) => () => void;
  /** Cap on one whole fetch: lookup, connect, TLS, headers and body (default 5000). */
  timeoutMs?: number;
  /** Cap on the body (default 5120, the draft's suggested limit). */
  maxBytes?: number;
  /** Fetches running at once, overall (default 8) and per host (default 2). */
  maxConcurrent?: number;
  maxConcurrentPerHost?: number;
  /** Documents kept (default 500 entries, between 5 minutes and 24 hours by their cache headers). */
  cache?: Partial<CacheBounds> & { maxEntries?: number };
  /** Failures kept (default 1000 entries for 60 s), so a broken or hostile URL is not fetched on every request. */
  negativeCache?: { maxEntries?: number; ttlMs?: number };
  userAgent?: string;
  /**
   * TEST ONLY (`CORE_OAUTH_CIMD_TEST_TRUST`): trust this PEM certificate instead of the system's roots, and
   * let loopback addresses through (nothing else that is not public). Unset in every real deployment.
   */
  testTrust?: { ca: string };
}

export interface ClientMetadataFetcher {
  /** The validated document at `clientIdUrl`, from the cache when fresh; throws ClientMetadataError. */
  fetchClient(clientIdUrl: string): Promise<ClientMetadataDocument>;
}

const defaultSchedule = (ms: number, fire: () => void) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/**
 * The fetcher of Client ID Metadata Documents: the one place this node requests a URL an anonymous caller
 * chooses, so every step is guarded (docs/security/cimd-fetcher.md lists the guards and their tests).
 */
export function createClientMetadataFetcher(options: ClientMetadataFetcherOptions = {}): ClientMetadataFetcher {
  const resolve = options.resolve ?? createDnsResolver();
  const now = options.now ?? Date.now;
  const schedule = options.schedule ?? defaultSchedule;
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 5120;
  const bounds: CacheBounds = { minTtlMs: options.cache?.minTtlMs ?? 5 * 60_000, maxTtlMs: options.cache?.maxTtlMs ?? 24 * 3600_000 };
  const documents = createBoundedCache<ClientMetadataDocument>(options.cache?.maxEntries ?? 500);
  const failures = createBoundedCache<ClientMetadataError>(options.negativeCache?.maxEntries ?? 1000);
  const negativeTtlMs = options.negativeCache?.ttlMs ?? 60_000;
  const slots = createFetchSlots({ total: options.maxConcurrent ?? 8, perHost: options.maxConcurrentPerHost ?? 2 });
  // Bounded by the slots: an entry exists only while its fetch holds one.
  const inFlight = new Map<string, Promise<ClientMetadataDocument>>();
  const userAgent = options.userAgent ?? 'core-server (client metadata fetcher)';
  const allowLoopback = options.testTrust !== undefined;

  async function fetchOnce(clientId: string, url: URL, signal: AbortSignal): Promise<{ doc: ClientMetadataDocument; ttlMs: number }> {
    const addresses = await addressesOf(url.hostname, resolve, signal);
    if (addresses.length === 0) throw new ClientMetadataError('RESOLUTION_FAILED', `the host ${url.hostname} has no address`);
    for (const { address } of addresses) {
      const reason = refusedAddressReason(address, allowLoopback);
      if (reason) {
        throw new ClientMetadataError(
          'ADDRESS_REFUSED',
          `the host ${url.hostname} resolves to ${address}, which is not a public address (${reason}); the metadata document must be on the public internet`,
        );
      }
    }
    const { headers, body } = await pinnedHttpsGet({ url, addresses, signal, maxBytes, userAgent, testCa: options.testTrust?.ca });
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw new ClientMetadataError('NOT_JSON', `the body at ${url.href} is not valid JSON`, { cause: err });
    }
    return { doc: checkClientMetadataDocument(json, clientId), ttlMs: cacheLifetimeMs(headers, bounds) };
  }

  /** Runs one fetch under the time cap; the slot is released only once the work has really stopped. */
  async function guardedFetch(clientId: string, url: URL, release: () => void): Promise<ClientMetadataDocument> {
    const controller = new AbortController();
    const cancelTimer = schedule(timeoutMs, () => controller.abort());
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new ClientMetadataError('TIMEOUT', `fetching ${url.href} took longer than ${timeoutMs} ms`)), {
        once: true,
      });
    });
    aborted.catch(() => undefined);
    const work = fetchOnce(clientId, url, controller.signal);
    work.catch(() => undefined).finally(release);
    try {
      const { doc, ttlMs } = await Promise.race([work, aborted]);
      documents.set(clientId, doc, now() + ttlMs);
      failures.delete(clientId);
      return doc;
    } catch (err) {
      const failure = err instanceof ClientMetadataError ? err : new ClientMetadataError('FETCH_FAILED', `could not fetch ${url.href}`, { cause: err });
      if (!TRANSIENT_CODES.has(failure.code)) failures.set(clientId, failure, now() + negativeTtlMs);
      throw failure;
    } finally {
      cancelTimer();
      controller.abort();
      inFlight.delete(clientId);
    }
  }

  return {
    async fetchClient(clientIdUrl) {
      const url = parseClientIdUrl(clientIdUrl);
      const t = now();
      const cached = documents.get(clientIdUrl, t);
      if (cached) return structuredClone(cached);
      const failed = failures.get(clientIdUrl, t);
      if (failed) throw new ClientMetadataError(failed.code, failed.message);
      let pending = inFlight.get(clientIdUrl);
      if (!pending) {
        const release = slots.tryAcquire(url.hostname);
        if (!release) {
          throw new ClientMetadataError('BUSY', 'too many client metadata documents are being fetched right now; try again in a few seconds');
        }
        pending = guardedFetch(clientIdUrl, url, release);
        inFlight.set(clientIdUrl, pending);
      }
      return structuredClone(await pending);
    },
  };
}
