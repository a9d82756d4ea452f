import { errors } from '../../errors.js';

/**
 * The redirect target of an SSO round trip, or VALIDATION_FAILED. Allowed: a path on this node
 * (`/explorer/`; never `//host` or a backslash, which browsers read as another host), a URL on the
 * node's own origin, or a URL on one of `allowedOrigins` (`CORE_SSO_REDIRECTS`). Anything else would
 * let a link to the node send a freshly signed-in user to a page of the link author's choosing.
 */
export function redirectTarget(uri: string, baseUrl: string, allowedOrigins: readonly string[]): string {
  const own = new URL(baseUrl).origin;
  if (uri.startsWith('/')) {
    // eslint-disable-next-line no-control-regex
    if (!uri.startsWith('//') && !/[\\\u0000-\u001f\u007f]/.test(uri)) return uri;
  } else {
    let url: URL | undefined;
    try {
      url = new URL(uri);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'https:' || url.protocol === 'http:') && (url.origin === own || allowedOrigins.includes(url.origin))) return url.href;
  }
  const others = allowedOrigins.length > 0 ? `, or a URL on ${allowedOrigins.join(', ')}` : '';
  throw errors.validation(
    `redirect_uri must be a path on this node (e.g. /explorer/) or a URL on ${own}${others}; other targets can be allowed with CORE_SSO_REDIRECTS`,
    { issues: [{ path: 'redirect_uri', message: 'not a redirect target of this node', code: 'custom' }] },
  );
}
