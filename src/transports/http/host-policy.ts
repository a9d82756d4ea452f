/**
 * Which names this node answers to, and which pages may send it credentialed writes. One policy for
 * REST and `POST /api/mcp`: a DNS-rebinding page reaches a loopback server under a foreign name (its
 * `Host` and `Origin` both say that name), and a cross-site page makes a browser send its cookie.
 */
export interface HostPolicy {
  /** Whether a request carrying this `Host` header is served; a request without one (HTTP/1.0) is. */
  hostAllowed(host: string | undefined): boolean;
  /** Whether a page at `origin` may write to a request carrying this `Host` header. */
  originAllowed(origin: string, host: string | undefined): boolean;
  /** The names served when `hostAllowed` is enforced, for error messages; empty when every name is. */
  readonly names: readonly string[];
}

export interface HostPolicyOptions {
  /** The address the server listens on (`HOST`): on a loopback address only known names are served. */
  bindHost?: string;
  /** `CORE_PUBLIC_URL`: its host is served, and its origin may write. */
  publicUrl?: string | undefined;
  /** `CORE_ALLOWED_HOSTS`: further names (`name` or `name:port`); when set, enforced on any address. */
  allowedHosts?: readonly string[] | undefined;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const LOOPBACK = new Set(LOOPBACK_NAMES);

/** Whether the listening address only accepts connections from this machine. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.toLowerCase().replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** `Host` (or an allow-list entry) split into its lower-case name, without a trailing dot, and its port. */
function splitHost(value: string): { name: string; port: string | undefined } {
  const lower = value.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(lower);
  const name = (m?.[1] ?? lower).replace(/\.$/, '');
  return { name, port: m?.[2] || undefined };
}

/** The policy for a configuration; with no options, loopback names only and same-host origins. */
export function createHostPolicy(opts: HostPolicyOptions = {}): HostPolicy {
  const extra = [...(opts.allowedHosts ?? [])];
  const publicOrigin = opts.publicUrl ? new URL(opts.publicUrl).origin : undefined;
  if (opts.publicUrl) extra.push(new URL(opts.publicUrl).host);
  const enforced = opts.bindHost === undefined || isLoopbackAddress(opts.bindHost) || (opts.allowedHosts?.length ?? 0) > 0;
  /** name → the ports it is allowed with (undefined: any port). */
  const allowed = new Map<string, Set<string> | undefined>();
  for (const name of LOOPBACK_NAMES) allowed.set(name, undefined);
  for (const entry of extra) {
    const { name, port } = splitHost(entry);
    if (allowed.has(name) && allowed.get(name) === undefined) continue;
    if (port === undefined) allowed.set(name, undefined);
    else allowed.set(name, new Set([...(allowed.get(name) ?? []), port]));
  }
  const listed = (value: string): boolean => {
    const { name, port } = splitHost(value);
    if (!allowed.has(name)) return false;
    const ports = allowed.get(name);
    return ports === undefined || (port !== undefined && ports.has(port));
  };
  // Nearly every request carries the same Host: remember the last answer instead of parsing it again.
  let lastHost: string | undefined;
  let lastAnswer = false;

  return {
    names: enforced ? [...new Set([...LOOPBACK_NAMES, ...extra.map((entry) => entry.toLowerCase())])] : [],
    hostAllowed(host) {
      if (!enforced || host === undefined) return true;
      if (host !== lastHost) {
        lastAnswer = listed(host);
        lastHost = host;
      }
      return lastAnswer;
    },
    originAllowed(origin, host) {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        return false; // includes `null`, the origin of sandboxed pages and privacy-sensitive redirects
      }
      if (host !== undefined && url.host === host.toLowerCase()) return true;
      if (LOOPBACK.has(url.hostname)) return host === undefined || LOOPBACK.has(splitHost(host).name);
      if (url.origin === publicOrigin) return true;
      return opts.allowedHosts?.some((entry) => listedEntry(entry, url.host)) ?? false;
    },
  };
}

/** Whether `host` (`name[:port]`) is what one allow-list entry names. */
function listedEntry(entry: string, host: string): boolean {
  const want = splitHost(entry);
  const got = splitHost(host);
  return want.name === got.name && (want.port === undefined || want.port === got.port);
}
