import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ClientMetadataError } from './client-metadata-error.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name has; the fetcher checks all of them and then connects only to those. */
export type ResolveHost = (hostname: string, signal: AbortSignal) => Promise<ResolvedAddress[]>;

const NO_SUCH_HOST = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/**
 * Looks a name up with c-ares (`dns.Resolver`), never `dns.lookup`: getaddrinfo runs on libuv's four-thread
 * pool, which file I/O shares, and cannot be cancelled, so slow DNS for names an anonymous caller chose
 * could stall the node's storage. c-ares has its own timeout and `cancel()`, which the time cap calls.
 */
export function createDnsResolver(settings: { timeoutMs: number; tries: number } = { timeoutMs: 2000, tries: 2 }): ResolveHost {
  return async (hostname, signal) => {
    const resolver = new Resolver({ timeout: settings.timeoutMs, tries: settings.tries });
    const cancel = () => resolver.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      const addresses: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const reason = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException) : undefined;
      const missing = reason?.code !== undefined && NO_SUCH_HOST.has(reason.code);
      throw new ClientMetadataError(
        'RESOLUTION_FAILED',
        missing ? `the host ${hostname} has no address in DNS` : `the DNS lookup of ${hostname} failed (${reason?.code ?? 'no answer'})`,
        { cause: reason },
      );
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };
}

/**
 * The addresses of a URL's host: an IP literal as written (no lookup), else what `resolve` says. `localhost`
 * is 127.0.0.1 without DNS (RFC 6761) and reaches the resolver only as a name that will be refused.
 */
export async function addressesOf(hostname: string, resolve: ResolveHost, signal: AbortSignal): Promise<ResolvedAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const version = isIP(bare);
  if (version !== 0) return [{ address: bare, family: version === 4 ? 4 : 6 }];
  if (bare === 'localhost' || bare.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }];
  return resolve(bare, signal);
}
