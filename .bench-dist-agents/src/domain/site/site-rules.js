import { errors } from '../../errors.js';
/** Largest file a site holds, decoded: a JSON body of base64 content still fits the 1 MiB request limit. */
export const MAX_FILE_BYTES = 512 * 1024;
/** Files (distinct paths) per site. */
export const MAX_FILES = 500;
/** Bytes of content a site may store over its life (content is append-only and kept by hash). */
export const MAX_SITE_BYTES = 64 * 1024 * 1024;
/** Media types a site may serve. Each is served with a sandboxing CSP and `nosniff`. */
const ALLOWED_TYPES = new Set([
    'text/html',
    'text/css',
    'text/plain',
    'text/markdown',
    'text/csv',
    'text/javascript',
    'application/javascript',
    'application/json',
    'application/manifest+json',
    'application/wasm',
    'application/pdf',
    'image/png',
    'image/jpeg',
    'image/gif',
    'image/webp',
    'image/avif',
    'image/svg+xml',
    'image/x-icon',
    'font/woff',
    'font/woff2',
]);
/**
 * Normalises a declared content type: a media type from the allow-list, lower-cased, plus
 * `charset=utf-8` for text types (the only charset accepted). Throws VALIDATION_FAILED otherwise.
 */
export function normalizeContentType(declared) {
    const [media = '', ...params] = declared.split(';').map((p) => p.trim().toLowerCase());
    if (!ALLOWED_TYPES.has(media)) {
        throw errors.validation(`Content type "${media}" is not served by sites; use one of: ${[...ALLOWED_TYPES].join(', ')}`, {
            issues: [{ path: 'content_type', message: 'not an allowed media type', code: 'invalid_value' }],
        });
    }
    for (const param of params) {
        if (param !== '' && param !== 'charset=utf-8') {
            throw errors.validation(`Content type parameter "${param}" is not accepted; only charset=utf-8`, {
                issues: [{ path: 'content_type', message: 'unsupported parameter', code: 'invalid_value' }],
            });
        }
    }
    const textual = media.startsWith('text/') || media === 'application/javascript' || media === 'application/json' || media === 'image/svg+xml';
    return textual ? `${media}; charset=utf-8` : media;
}
/** Checks an upload path: relative, `/`-separated, no empty, `.` or `..` segment. Returns it unchanged. */
export function checkSitePath(path) {
    const segments = path.split('/');
    if (path.startsWith('/') || segments.some((s) => s === '' || s === '.' || s === '..')) {
        throw errors.validation(`Invalid site path "${path}": use a relative path such as "index.html" or "docs/intro.html", without empty, "." or ".." parts`, {
            issues: [{ path: 'path', message: 'invalid site path', code: 'invalid_site_path' }],
        });
    }
    return path;
}
/**
 * The file a page URL names, from the part after `/s/<slug>/`: a folder (empty or ending in `/`)
 * means its `index.html`. Undefined when the URL cannot name a file.
 */
export function sitePathOfUrl(rest) {
    let decoded;
    try {
        decoded = decodeURIComponent(rest);
    }
    catch {
        return undefined;
    }
    const path = decoded === '' || decoded.endsWith('/') ? `${decoded}index.html` : decoded;
    const segments = path.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..'))
        return undefined;
    return path;
}
//# sourceMappingURL=site-rules.js.map