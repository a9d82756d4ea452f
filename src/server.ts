import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCore, type Core, type CoreOptions } from './compose.js';
import { createHttpApp } from './transports/http/app.js';
import { createMcpHttpHandler } from './transports/mcp/http-endpoint.js';

export interface RunningServer {
  core: Core;
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the store. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the HTTP server (REST + `POST /api/mcp`) on the configured host and port. */
export async function startHttpServer(opts: CoreOptions): Promise<RunningServer> {
  const core = await createCore(opts);
  let inflight = 0;
  let drained: (() => void) | undefined;
  const app = createHttpApp({
    registry: core.registry,
    pipeline: core.pipeline,
    log: core.log,
    mcp: createMcpHttpHandler({ registry: core.registry, pipeline: core.pipeline, filter: core.filter }, core.config.version),
    inflight: {
      enter: () => {
        inflight += 1;
      },
      leave: () => {
        inflight -= 1;
        if (inflight === 0) drained?.();
      },
    },
  });
  const server = createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(core.config.port, core.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  core.log.info('listening', { url, backend: core.store.backend, data_dir: core.config.dataDir });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000) =>
    (stopping ??= (async () => {
      core.services.platform.setStopping();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inflight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
      await core.close();
      core.log.info('stopped');
    })());

  return { core, server, url, stop };
}
