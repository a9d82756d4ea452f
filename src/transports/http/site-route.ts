import type { Request, Response } from 'express';
import { CoreError, errors, toCoreError } from '../../errors.js';
import { cacheControlOf } from '../../domain/edge/cdn-match.js';
import type { Services } from '../../domain/services.js';
import { proxyRuleOf } from '../../domain/site/site-proxy.js';
import { sitePathOfUrl } from '../../domain/site/site-rules.js';
import { authenticate } from '../../pipeline/authenticate.js';
import type { InvokeResult, Pipeline } from '../../pipeline/invoke.js';
import type { Registry } from '../../registry/registry.js';
import { credentialsOf } from './credentials.js';
import { restInput } from '../../registry/rest-input.js';
import type { SseSubscriberHook } from './sse.js';
import { sendError, writeResult } from './result-writer.js';
import type { SseCap } from './sse-cap.js';

export type SiteRoute = (req: Request, res: Response) => Promise<void>;

/** True for `/s/...`: checked with three character codes so the `/api` path pays nothing. */
export function isSitePath(path: string): boolean {
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
export function createSiteRoute(deps: {
  services: Services;
  registry: Registry;
  pipeline: Pipeline;
  onSseSubscriber?: SseSubscriberHook;
  sseCap?: SseCap;
}): SiteRoute {
  const { services, registry, pipeline } = deps;

  return async (req, res) => {
    const match = SITE.exec(req.path);
    if (!match) return sendError(res, errors.notFound(`No site at ${req.path}; sites live at /s/<slug>/`));
    const slug = match[1]!;
    const rest = match[2];
    if (rest === undefined) {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      res.redirect(301, `/s/${slug}/${query}`);
      return;
    }
    if (rest.startsWith(PROXY)) return proxy(req, res, slug, rest.slice(PROXY.length));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendError(res, new CoreError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on site pages; use GET`));
    }
    try {
      const path = sitePathOfUrl(rest.slice(1));
      if (path === undefined) throw errors.notFound(`No page ${rest} on the site of "${slug}"`);
      const caller = await authenticate(services, credentialsOf(req));
      const edge = await services.cdnEdge.decide(slug, caller, {
        path: decodeURIComponent(rest),
        file: `/${path}`,
        url: req.originalUrl.slice(3 + slug.length),
        https: req.secure || forwardedProto(req) === 'https',
        host: req.headers.host,
      });
      res.setHeader('Content-Security-Policy', 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Referrer-Policy', 'no-referrer');
      for (const [name, value] of edge.headers) res.setHeader(name, value);
      if (edge.kind === 'answer') {
        if (edge.location !== undefined) res.setHeader('Location', edge.location);
        if (edge.error) res.status(edge.status).json({ error: { ...edge.error, request_id: res.locals.requestId as string } });
        else res.status(edge.status).end();
        return;
      }
      const page = await services.site.page(slug, path, caller);
      const etag = `"${page.sha}"`;
      res.setHeader('Cache-Control', cacheControlOf(edge.cache, page));
      res.setHeader('ETag', etag);
      if (req.header('if-none-match') === etag) {
        res.status(304).end();
        return;
      }
      res.status(200).type(page.contentType);
      if (req.method === 'HEAD') res.setHeader('Content-Length', page.body.length).end();
      else res.send(page.body);
    } catch (err) {
      sendError(res, toCoreError(err));
    }
  };

  async function proxy(req: Request, res: Response, slug: string, opId: string): Promise<void> {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Last-Event-ID, X-Share-Token');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    const op = registry.byId.get(opId);
    if (!op) return sendError(res, errors.notFound(`No operation "${opId}"; {op} is an operation id such as chain.getState`));
    const rule = proxyRuleOf(op.def);
    if (rule.kind === 'refused') return sendError(res, errors.forbidden(rule.reason));
    const method = rule.kind === 'read' ? 'GET' : 'POST';
    if (req.method !== method) {
      res.setHeader('Allow', method);
      return sendError(res, new CoreError('METHOD_NOT_ALLOWED', `Call ${op.id} through the site proxy with ${method}`));
    }
    const input = restInput(op, { slug }, req.query as Record<string, unknown>, req.body);
    if (input instanceof CoreError) return sendError(res, input);
    const creds = credentialsOf(req);
    // Visitors are limited per key, else per address, like any other REST caller.
    const opts = {
      surface: 'rest' as const,
      requestId: res.locals.requestId as string,
      ...(req.socket.remoteAddress ? { clientIp: req.socket.remoteAddress } : {}),
    };
    let result: InvokeResult;
    if (rule.kind === 'read') {
      result = await pipeline.invoke(op, input, creds, opts);
    } else {
      try {
        // Writes count explicit credentials only: a page elsewhere could make a logged-in browser
        // POST here with its cookie (a site's own sandboxed pages never send it: opaque origin).
        const explicit = { ...creds };
        delete explicit.session;
        const visitor = await authenticate(services, explicit);
        const site = await services.site.siteAuthority(slug, visitor);
        // Run as the site, charged to the visitor and to the site's own budget: many visitors cannot
        // write through one site faster than the node lets one caller write.
        result = await pipeline.invokeAs(op, rule.prepare(input), site, { ...opts, chargeTo: [visitor, site] });
      } catch (err) {
        return sendError(res, toCoreError(err));
      }
    }
    if (!result.ok) return sendError(res, result.error);
    writeResult(req, res, op, result.value, deps);
  }
}

/** First value of X-Forwarded-Proto: behind a TLS proxy, whether the visitor used https. */
function forwardedProto(req: Request): string | undefined {
  const value = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0];
  return first?.trim().toLowerCase();
}
