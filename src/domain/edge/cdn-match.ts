import type { ErrorBody } from '../../errors.js';
import type { RuleKind } from './cdn-rules.js';

/**
 * Compiles a rule's `match_pattern` (already checked by `checkMatchPattern`) into a test over a
 * percent-decoded page path below `/s/{slug}`, such as "/docs/intro.html":
 * - the whole path must match (anchored at both ends), case-sensitively;
 * - `*` matches any run of characters, `/` included, and the empty run: "/blog/*" matches
 *   "/blog/" and "/blog/2024/post.html", not "/blog"; "*.pdf" matches every PDF; "*" matches all;
 * - every other character matches itself; percent-escapes in the pattern are decoded first, so
 *   "/a%20b.html" matches the page "a b.html".
 * Runs in time linear in the path for each literal piece (no regular expression, no backtracking).
 */
export function compileGlob(pattern: string): (path: string) => boolean {
  let decoded = pattern;
  try {
    decoded = decodeURIComponent(pattern);
  } catch {
    // Checked on write; a pattern stored before that check matches literally.
  }
  const pieces = decoded.split('*');
  if (pieces.length === 1) return (path) => path === decoded;
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const least = head.length + tail.length + middle.reduce((n, p) => n + p.length, 0);
  return (path) => {
    if (path.length < least || !path.startsWith(head) || !path.endsWith(tail)) return false;
    const end = path.length - tail.length;
    let at = head.length;
    // Leftmost placement of each piece leaves the most room for the next: correct for `*`-only globs.
    for (const piece of middle) {
      const found = path.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

export interface CompiledRule {
  kind: RuleKind;
  priority: number;
  matches: (path: string) => boolean;
  /** The action as `normalizeRuleAction` returns it. */
  action: Record<string, unknown>;
}

/** A page request as the edge sees it. */
export interface PageRequest {
  /** Path below `/s/{slug}`, percent-decoded, e.g. "/docs/". */
  path: string;
  /** The file that path names, e.g. "/docs/index.html" for "/docs/". */
  file: string;
  /** Path below `/s/{slug}` and query string exactly as received, for an https redirect. */
  url: string;
  https: boolean;
}

/** Cache settings of the page rules that matched; fields left undefined keep the node's default. */
export interface PageCache {
  mode?: 'bypass' | 'standard' | 'everything';
  ttl_s?: number;
}

export type EdgeDecision =
  | { kind: 'serve'; headers: Array<[string, string]>; cache: PageCache }
  | { kind: 'answer'; status: number; headers: Array<[string, string]>; location?: string; error?: ErrorBody };

/** Nearest stable error code for each status a block rule may answer (the HTTP status is the rule's). */
const BLOCK_CODE: Record<number, ErrorBody['code']> = { 403: 'FORBIDDEN', 404: 'NOT_FOUND', 410: 'NOT_FOUND', 429: 'RATE_LIMITED', 451: 'FORBIDDEN' };

export const DEFAULT_TTL_S = 60;
export const SERVE_AS_IS: EdgeDecision = Object.freeze({ kind: 'serve', headers: [], cache: {} }) as EdgeDecision;

/**
 * Runs the rules (sorted by priority, lower first) over a request. A rule applies when its pattern
 * matches the request path or the file it names, so "/docs/index.html" also covers "/docs/". Rules
 * run in order until one answers: `block` (its status), `redirect` (its status and Location) or a
 * `page_rule` with `always_https` on a plain-http request (301 to https). Before that, `header`
 * rules set headers (the first rule to name a header wins) and page rules set the cache mode and
 * TTL (the first to set each wins); those headers also go on the answer of the rule that stops.
 */
export function decide(rules: readonly CompiledRule[], req: PageRequest, site: { slug: string; httpsOrigin: string | undefined }): EdgeDecision {
  if (rules.length === 0) return SERVE_AS_IS;
  const headers = new Map<string, [string, string]>();
  const cache: PageCache = {};
  const answer = (status: number, extra: { location?: string; error?: ErrorBody }): EdgeDecision => ({
    kind: 'answer',
    status,
    headers: [...headers.values()],
    ...extra,
  });
  for (const rule of rules) {
    if (!rule.matches(req.path) && (req.file === req.path || !rule.matches(req.file))) continue;
    const a = rule.action;
    switch (rule.kind) {
      case 'header': {
        const name = a.name as string;
        if (!headers.has(name.toLowerCase())) headers.set(name.toLowerCase(), [name, a.value as string]);
        break;
      }
      case 'page_rule':
        if (cache.mode === undefined && a.cache !== undefined) cache.mode = a.cache as PageCache['mode'];
        if (cache.ttl_s === undefined && a.cache_ttl_s !== undefined) cache.ttl_s = a.cache_ttl_s as number;
        // Without a host to send the visitor to, the rule cannot redirect: serve rather than loop.
        if (a.always_https === true && !req.https && site.httpsOrigin !== undefined) {
          return answer(301, { location: `${site.httpsOrigin}/s/${site.slug}${req.url}` });
        }
        break;
      case 'redirect':
        return answer(a.status as number, { location: redirectLocation(a.url as string, site.slug) });
      case 'block': {
        const status = a.status as number;
        const reason = a.reason as string | undefined;
        const code = BLOCK_CODE[status] ?? 'FORBIDDEN';
        // A 404 block without a reason reads exactly like a missing page.
        const error: ErrorBody =
          reason === undefined && status === 404
            ? { code, message: `No page "${req.file.slice(1)}" on the site of "${site.slug}"`, details: { slug: site.slug, path: req.file.slice(1) } }
            : { code, message: reason ?? 'This page is blocked by a rule of its site' };
        return answer(status, { error });
      }
    }
  }
  return { kind: 'serve', headers: [...headers.values()], cache };
}

/**
 * The Location of a redirect rule: an absolute URL as the URL parser writes it (so the browser
 * reads the host the rule was checked for), a path as a path below the site.
 */
function redirectLocation(url: string, slug: string): string {
  if (url.startsWith('/')) return `/s/${slug}${url}`.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
  return new URL(url).href;
}

/**
 * The Cache-Control of a served page. A private machine's page is always `private, no-store`,
 * whatever the rules say: no shared cache may keep it. Otherwise: `bypass` is `no-store`;
 * `standard` caches static files for the TTL and makes browsers and caches revalidate HTML pages
 * (by ETag) on every use; `everything` and the default cache every file for the TTL (60 s unless a
 * page rule sets `cache_ttl_s`).
 */
export function cacheControlOf(cache: PageCache, page: { isPublic: boolean; contentType: string }): string {
  if (!page.isPublic) return 'private, no-store';
  if (cache.mode === 'bypass') return 'no-store';
  if (cache.mode === 'standard' && page.contentType.startsWith('text/html')) return 'public, no-cache';
  return `public, max-age=${cache.ttl_s ?? DEFAULT_TTL_S}`;
}
