import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCore, type Core, type CoreOptions } from './compose.js';
import { createHttpApp } from './transports/http/app.js';
import { expressServerClasses } from './transports/http/express-classes.js';
import { createMcpHttpHandler } from './transports/mcp/http-endpoint.js';
import { createSiteRoute } from './transports/http/site-route.js';
import { createSseCap } from './transports/http/sse-cap.js';
import { createExplorerRoute } from './transports/http/explorer-route.js';
import { createHostPolicy } from './transports/http/host-policy.js';
import { publishMcpUrl } from './storage/lowdb/dir-holder.js';
import { listenError } from './startup-checks.js';
import { createOAuthRoute } from './transports/http/oauth-route.js';

export interface RunningServer {
  core: Core;
  server: Server;
  url: string;
  /** `url` as a local client reaches it (a wildcard address as loopback). */
  reachableUrl: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the store. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the HTTP server (REST + `POST /api/mcp`) on the configured host and port. */
export async function startHttpServer(opts: CoreOptions): Promise<RunningServer> {
  const core = await createCore(opts);
  const hosts = createHostPolicy({ bindHost: core.config.host, publicUrl: core.config.publicUrl, allowedHosts: core.config.allowedHosts });
  // One count of open streams per caller, whether opened through the API or a site's proxy.
  const sseCap = createSseCap(core.config.sseMaxPerCaller);
  const app = createHttpApp({
    registry: core.registry,
    pipeline: core.pipeline,
    log: core.log,
    mcp: createMcpHttpHandler(core.surface, core.config.version, hosts),
    site: createSiteRoute({ services: core.services, registry: core.registry, pipeline: core.pipeline, onSseSubscriber: core.metrics.sseSubscribers, sseCap }),
    onSiteRequest: core.services.cdnTraffic.record,
    onSseSubscriber: core.metrics.sseSubscribers,
    explorer: createExplorerRoute(),
    sseCap,
    hosts,
    responseTimeoutMs: core.config.responseTimeoutMs,
    ...(core.config.oauth
      ? { oauth: createOAuthRoute({ oauth: core.services.oauth, sessions: core.services.sessions, pipeline: core.pipeline, log: core.log }) }
      : {}),
  });
  // A client that sends its headers or body slowly (slowloris) holds a socket: cut it once the whole
  // request has not arrived in time. Responses (event streams) are not bounded by these.
  const requestTimeout = core.config.requestTimeoutMs;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 15_000),
      connectionsCheckingInterval: Math.min(1_000, requestTimeout),
      ...expressServerClasses(app),
    },
    app,
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, core.config.host, core.config.port)));
    server.listen(core.config.port, core.config.host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  core.services.sessions.useListenUrl(url);
  // The data directory is this process's alone: tell a `core-server mcp` started on it where to relay.
  const unpublish =
    core.store.backend === 'lowdb'
      ? await publishMcpUrl(core.config.dataDir, `${reachableUrl(address)}/api/mcp`).catch((err: unknown) => {
          core.log.warn('could not record the MCP endpoint in the data directory; `core-server mcp` there will refuse to start', { err });
          return undefined;
        })
      : undefined;
  core.log.info('listening', { url, backend: core.store.backend, data_dir: core.config.dataDir });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000) =>
    (stopping ??= (async () => {
      core.services.platform.setStopping();
      // server.close() stops accepting and resolves once every connection has ended; keep-alive
      // connections become idle when their in-flight request is answered, so close idle ones
      // until none is left, and cut the rest after the grace period.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(grace);
      await unpublish?.();
      await core.close();
      core.log.info('stopped');
    })());

  return { core, server, url, reachableUrl: reachableUrl(address), stop };
}

/** The listening address as a local client reaches it: a wildcard address becomes loopback. */
function reachableUrl(address: AddressInfo): string {
  const host =
    address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '[::1]' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
