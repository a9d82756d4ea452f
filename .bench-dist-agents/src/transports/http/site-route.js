import { CoreError, errors, publicError, toCoreError } from '../../errors.js';
import { proxyRuleOf } from '../../domain/site/site-proxy.js';
import { sitePathOfUrl } from '../../domain/site/site-rules.js';
import { authenticate, bearerFrom } from '../../pipeline/authenticate.js';
import { isSseSource } from '../../pipeline/collect-events.js';
import { restInput } from './rest-input.js';
import { streamSse } from './sse.js';
/** True for `/s/...`: checked with three character codes so the `/api` path pays nothing. */
export function isSitePath(path) {
    return path.charCodeAt(1) === 115 && path.charCodeAt(2) === 47 && path.charCodeAt(0) === 47;
}
const SITE = /^\/s\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(\/.*)?$/;
const PROXY = '/sdk/core/';
/**
 * Machine sites: pages at `/s/{slug}/...` and the operation proxy at `/s/{slug}/sdk/core/{op}` (see
 * `site-proxy.ts` for what it exposes). Pages are served sandboxed (CSP `sandbox` without
 * `allow-same-origin`), so a page's scripts never act with this origin's storage; the proxy answers
 * CORS requests from any origin, sandboxed pages having an opaque one.
 */
export function createSiteRoute(deps) {
    const { services, registry, pipeline } = deps;
    return async (req, res) => {
        const match = SITE.exec(req.path);
        if (!match)
            return sendError(res, errors.notFound(`No site at ${req.path}; sites live at /s/<slug>/`));
        const slug = match[1];
        const rest = match[2];
        if (rest === undefined) {
            const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
            res.redirect(301, `/s/${slug}/${query}`);
            return;
        }
        if (rest.startsWith(PROXY))
            return proxy(req, res, slug, rest.slice(PROXY.length));
        if (req.method !== 'GET' && req.method !== 'HEAD') {
            res.setHeader('Allow', 'GET, HEAD');
            return sendError(res, new CoreError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on site pages; use GET`));
        }
        try {
            const path = sitePathOfUrl(rest.slice(1));
            if (path === undefined)
                throw errors.notFound(`No page ${rest} on the site of "${slug}"`);
            const caller = await authenticate(services, credentialsOf(req));
            const page = await services.site.page(slug, path, caller);
            const etag = `"${page.sha}"`;
            res.setHeader('Content-Security-Policy', 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads');
            res.setHeader('X-Content-Type-Options', 'nosniff');
            res.setHeader('Referrer-Policy', 'no-referrer');
            res.setHeader('Cache-Control', page.isPublic ? 'public, max-age=60' : 'private, no-store');
            res.setHeader('ETag', etag);
            if (req.header('if-none-match') === etag) {
                res.status(304).end();
                return;
            }
            res.status(200).type(page.contentType);
            if (req.method === 'HEAD')
                res.setHeader('Content-Length', page.body.length).end();
            else
                res.send(page.body);
        }
        catch (err) {
            sendError(res, toCoreError(err));
        }
    };
    async function proxy(req, res, slug, opId) {
        res.setHeader('Access-Control-Allow-Origin', '*');
        if (req.method === 'OPTIONS') {
            res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
            res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Last-Event-ID, X-Share-Token');
            res.setHeader('Access-Control-Max-Age', '600');
            res.status(204).end();
            return;
        }
        const op = registry.byId.get(opId);
        if (!op)
            return sendError(res, errors.notFound(`No operation "${opId}"; {op} is an operation id such as chain.getState`));
        const rule = proxyRuleOf(op.def);
        if (rule.kind === 'refused')
            return sendError(res, errors.forbidden(rule.reason));
        const method = rule.kind === 'read' ? 'GET' : 'POST';
        if (req.method !== method) {
            res.setHeader('Allow', method);
            return sendError(res, new CoreError('METHOD_NOT_ALLOWED', `Call ${op.id} through the site proxy with ${method}`));
        }
        const input = restInput(op, { slug }, req.query, req.body);
        if (input instanceof CoreError)
            return sendError(res, input);
        const creds = credentialsOf(req);
        const opts = { surface: 'rest', requestId: res.locals.requestId };
        let result;
        if (rule.kind === 'read') {
            result = await pipeline.invoke(op, input, creds, opts);
        }
        else {
            try {
                const visitor = await authenticate(services, creds);
                const site = await services.site.siteAuthority(slug, visitor);
                result = await pipeline.invokeAs(op, rule.prepare(input), site, opts);
            }
            catch (err) {
                return sendError(res, toCoreError(err));
            }
        }
        if (!result.ok)
            return sendError(res, result.error);
        if (op.def.stream && isSseSource(result.value))
            return streamSse(req, res, result.value);
        if (op.def.produces) {
            const raw = result.value;
            res.status(200).type(raw.contentType).send(typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body));
            return;
        }
        res.status(200).json(result.value);
    }
}
function credentialsOf(req) {
    const creds = {};
    const bearer = bearerFrom(req.headers.authorization);
    if (bearer !== undefined)
        creds.bearer = bearer;
    const header = req.headers['x-share-token'];
    const query = req.query.share_token;
    const share = typeof header === 'string' ? header : typeof query === 'string' ? query : undefined;
    if (share)
        creds.shareToken = share;
    return creds;
}
function sendError(res, error) {
    if (res.headersSent) {
        res.end();
        return;
    }
    if (error.code === 'UNAUTHENTICATED')
        res.setHeader('WWW-Authenticate', 'Bearer');
    res.status(error.status).json({ error: publicError(error, res.locals.requestId) });
}
//# sourceMappingURL=site-route.js.map