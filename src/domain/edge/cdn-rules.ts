import { errors } from '../../errors.js';

export type RuleKind = 'page_rule' | 'redirect' | 'header' | 'block';

/** Headers an edge rule may not set: they describe the message itself or carry credentials. */
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'cookie', 'authorization']);
/**
 * What a header rule may set: an allow-list, because the dangerous headers are an open class. A page of
 * `/s/{slug}` is served from the node's own origin, so a header that acts on the origin rather than on
 * the page (reporting endpoints, client hints, service-worker scope, CORS, cookies) would reach every
 * URL of the node, share tokens in query strings included. Allowed: these page-scoped headers, plus
 * custom `X-...` headers outside `X_REFUSED`.
 */
const ALLOWED_HEADERS = new Set(['x-frame-options', 'referrer-policy', 'x-robots-tag', 'content-language', 'content-disposition', 'permissions-policy']);
/** Custom-looking headers that proxies or browsers act on: prefixes, lowercase. */
const X_REFUSED = [
  'x-accel-',
  'x-sendfile',
  'x-lighttpd-',
  'x-litespeed-',
  'x-forwarded-',
  'x-real-ip',
  'x-xss-protection',
  'x-permitted-cross-domain-policies',
  'x-dns-prefetch-control',
];
/** Why a well-known header is refused, so the message says what to do instead. */
const REFUSED_BECAUSE: Record<string, string> = {
  'content-security-policy': 'the node sets it to keep site pages sandboxed',
  'content-security-policy-report-only': 'the node sets the page CSP, and its reports would send URLs of this node elsewhere',
  'x-content-type-options': 'the node sets it to keep site pages sandboxed',
  'content-type': 'it comes from the uploaded file; upload the file again with another content_type',
  'content-encoding': 'pages are served as stored',
  etag: 'the node derives it from the content',
  'cache-control': 'use a page_rule with cache or cache_ttl_s',
  expires: 'use a page_rule with cache or cache_ttl_s',
  location: 'use a redirect rule',
  'set-cookie': 'cookies would apply to the whole node, next to its session cookie',
  'strict-transport-security': 'it would apply to the whole node; use a page_rule with always_https',
  'clear-site-data': 'it would apply to the whole node',
  'alt-svc': 'it would apply to the whole node',
  nel: 'it would make browsers report every URL of this node (share tokens included) to another server',
  'report-to': 'it would make browsers report URLs of this node (share tokens included) to another server',
  'reporting-endpoints': 'it would make browsers report URLs of this node (share tokens included) to another server',
  'expect-ct': 'it reports URLs of this node to another server',
};
const REFUSED_PREFIXES: Array<[prefix: string, reason: string]> = [
  ['access-control-', "CORS headers would let other sites read pages with a visitor's credentials"],
  ['cross-origin-', 'cross-origin policies change how other sites may embed or open this node, and can report to other servers'],
];

/** Why `name` (lowercase) may not be set by a header rule, or undefined when it may. */
function refusedHeader(name: string): string | undefined {
  const known = REFUSED_BECAUSE[name] ?? REFUSED_PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
  if (known !== undefined) return known;
  if (ALLOWED_HEADERS.has(name)) return undefined;
  if (name.startsWith('x-') && name.length > 2 && !X_REFUSED.some((prefix) => name.startsWith(prefix))) return undefined;
  return 'it is not on the allow-list of page-scoped headers';
}
/** A header value naming a reporting endpoint (`report-to=`, `report-uri`, `report=`) would send URLs elsewhere. */
const REPORTING_VALUE = /report(?:-to|-uri)?\s*=|report-uri|report-to/i;
const ALLOWED_TEXT = 'X-Frame-Options, Referrer-Policy, X-Robots-Tag, Content-Language, Content-Disposition, Permissions-Policy, or a custom X-... header';
const REDIRECT_STATUS = [301, 302, 307, 308];
const BLOCK_STATUS = [403, 404, 410, 429, 451];
const CACHE_MODES = ['bypass', 'standard', 'everything'];
const MAX_TTL_S = 365 * 24 * 3600;

const invalid = (field: string, message: string) =>
  errors.validation(`Invalid action_json.${field}: ${message}`, { issues: [{ path: `action_json.${field}`, message, code: 'invalid_rule_action' }] });

/**
 * Checks a rule's `action_json` for its kind and returns it with defaults filled:
 * - redirect: `{ url (absolute http(s) URL, or a path below the site starting with "/"), status: 301|302|307|308 = 302 }`;
 * - header: `{ name, value }`, name on the allow-list of page-scoped headers (see `ALLOWED_HEADERS`),
 *   value printable ASCII naming no reporting endpoint;
 * - block: `{ status: 403|404|410|429|451 = 403, reason? }`;
 * - page_rule: any of `{ cache: bypass|standard|everything, cache_ttl_s, always_https }` (no
 *   positive cache_ttl_s with bypass).
 * Unknown keys are refused so a typo never becomes a silent no-op.
 */
export function normalizeRuleAction(kind: RuleKind, action: Record<string, unknown>): Record<string, unknown> {
  const allowed: Record<RuleKind, string[]> = {
    redirect: ['url', 'status'],
    header: ['name', 'value'],
    block: ['status', 'reason'],
    page_rule: ['cache', 'cache_ttl_s', 'always_https'],
  };
  for (const key of Object.keys(action)) {
    if (!allowed[kind].includes(key)) throw invalid(key, `a ${kind} rule takes only ${allowed[kind].join(', ')}`);
  }
  switch (kind) {
    case 'redirect': {
      const { url, status = 302 } = action;
      if (typeof url !== 'string' || !isRedirectTarget(url)) {
        throw invalid('url', 'give an absolute http(s) URL, or a path below the site starting with "/" (not "//"), without spaces or control characters');
      }
      if (!REDIRECT_STATUS.includes(status as number)) throw invalid('status', `one of ${REDIRECT_STATUS.join(', ')}`);
      return { url, status };
    }
    case 'header': {
      const { name, value } = action;
      if (typeof name !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) {
        throw invalid('name', `a header name of letters, digits and "-", not one of ${[...RESERVED_HEADERS].join(', ')}`);
      }
      const refused = refusedHeader(name.toLowerCase());
      if (refused !== undefined) throw invalid('name', `a header rule cannot set ${name}: ${refused}; it may set ${ALLOWED_TEXT}`);
      // Node refuses to send other characters in a header: they would turn the page into a 500.
      if (typeof value !== 'string' || value.length > 1024 || /[^\t\x20-\x7e]/.test(value)) {
        throw invalid('value', 'a string of at most 1024 printable ASCII characters, without line breaks or control characters');
      }
      if (REPORTING_VALUE.test(value))
        throw invalid('value', 'no reporting endpoints (report-to, report-uri, report=): browsers would send URLs of this node to them');
      return { name, value };
    }
    case 'block': {
      const { status = 403, reason } = action;
      if (!BLOCK_STATUS.includes(status as number)) throw invalid('status', `one of ${BLOCK_STATUS.join(', ')}`);
      if (reason !== undefined && (typeof reason !== 'string' || reason.length > 200)) throw invalid('reason', 'a string of at most 200 characters');
      return reason === undefined ? { status } : { status, reason };
    }
    case 'page_rule': {
      const { cache, cache_ttl_s, always_https } = action;
      if (Object.keys(action).length === 0) throw invalid('(object)', 'give at least one of cache, cache_ttl_s, always_https');
      if (cache !== undefined && !CACHE_MODES.includes(cache as string)) throw invalid('cache', `one of ${CACHE_MODES.join(', ')}`);
      if (cache_ttl_s !== undefined && !(Number.isInteger(cache_ttl_s) && (cache_ttl_s as number) >= 0 && (cache_ttl_s as number) <= MAX_TTL_S)) {
        throw invalid('cache_ttl_s', `an integer number of seconds from 0 to ${MAX_TTL_S}`);
      }
      if (always_https !== undefined && typeof always_https !== 'boolean') throw invalid('always_https', 'true or false');
      if (cache === 'bypass' && typeof cache_ttl_s === 'number' && cache_ttl_s > 0) {
        throw invalid('cache_ttl_s', 'has no effect with cache: bypass; drop it, or set cache to standard or everything');
      }
      return { ...action };
    }
  }
}

/**
 * A redirect target: an absolute http(s) URL with a host and no user info, or a path below the site
 * ("/new/"), never "//..." or "/\\..." (which browsers read as another host).
 */
function isRedirectTarget(url: string): boolean {
  // eslint-disable-next-line no-control-regex -- a redirect target with control characters is refused
  if (url.length > 2048 || /[\s\0-\x1f\x7f]/.test(url)) return false;
  if (url.startsWith('/')) return !(url.startsWith('//') || url.startsWith('/\\'));
  if (!/^https?:\/\//i.test(url)) return false;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '' && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

const badPattern = (message: string, code: string) =>
  errors.validation(`Invalid match_pattern: ${message}`, { issues: [{ path: 'match_pattern', message, code }] });

/**
 * A match pattern is a glob over the page path below `/s/{slug}` (see `cdn-match.ts`): it starts
 * with "/" or "*", `*` is the only wildcard, and it never names a query string or fragment.
 */
export function checkMatchPattern(pattern: string): void {
  // eslint-disable-next-line no-control-regex -- a pattern with control characters is refused
  if (/[\s\0-\x1f\x7f]/.test(pattern)) {
    throw badPattern('no spaces or control characters; use "*" as the wildcard, e.g. "/blog/*"', 'invalid_pattern');
  }
  if (!pattern.startsWith('/') && !pattern.startsWith('*')) {
    throw badPattern(`patterns match the page path below /s/{slug}, so start with "/" or "*", e.g. "/blog/*" (not a hostname)`, 'invalid_pattern');
  }
  if (/[?#]/.test(pattern)) {
    throw badPattern('patterns match the path only: no "?" or "#"; "*" is the only wildcard', 'invalid_pattern');
  }
  try {
    decodeURIComponent(pattern);
  } catch {
    throw badPattern('a "%" must start a valid percent-escape such as "%20"', 'invalid_pattern');
  }
}
