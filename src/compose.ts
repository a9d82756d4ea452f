import { allTools } from '../tools/index.js';
import type { Config } from './config.js';
import { createChainService } from './domain/chain/chain.service.js';
import { createMachinesService } from './domain/chain/machines.service.js';
import { createConstantsService } from './domain/constants/constants.service.js';
import { createIdentityService } from './domain/identity/identity.service.js';
import { loadNodeKeys } from './domain/identity/node-keys.js';
import { createMetrics } from './domain/platform/metrics.js';
import { createPlatformService } from './domain/platform/platform.service.js';
import type { Services } from './domain/services.js';
import { createClock, type Clock } from './lib/clock.js';
import { createEventBus, type EventBus } from './lib/event-bus.js';
import { createLogger, type Logger } from './log.js';
import { createPipeline, type Pipeline } from './pipeline/invoke.js';
import { buildRegistry, type Registry } from './registry/registry.js';
import type { SurfaceFilter } from './registry/mcp-tools.js';
import { createLowdbStore } from './storage/lowdb/lowdb.store.js';
import type { Store } from './storage/port.js';
import { createMcpContent } from './domain/platform/mcp-content.js';
import { catalogResources } from './domain/platform/catalog-resources.js';
import type { ToolSurface } from './transports/mcp/call-tool.js';

/** The core shared by every surface: one registry, one pipeline, one set of services. */
export interface Core {
  config: Config;
  log: Logger;
  clock: Clock;
  bus: EventBus;
  store: Store;
  services: Services;
  registry: Registry;
  pipeline: Pipeline;
  /** Surface controls for MCP clients (`CORE_TOOLSETS`, `CORE_READ_ONLY`). */
  filter: SurfaceFilter;
  /** What both MCP transports serve: the tools, plus resources and prompts. */
  surface: ToolSurface;
  /** Stops background work and closes the store; idempotent. */
  close(): Promise<void>;
}

export interface CoreOptions {
  config: Config;
  clock?: Clock;
  log?: Logger;
  store?: Store;
}

/** Builds and opens the core. Nothing here listens on a port or reads stdin. */
export async function createCore(opts: CoreOptions): Promise<Core> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? createClock();
  const bus = createEventBus();
  const store = opts.store ?? createStoreFor(config, log);
  await store.open();

  const nodeKeys = await loadNodeKeys({ store, receiptKey: config.receiptKey, now: clock.now });
  const metrics = createMetrics();
  const identity = createIdentityService({ store, clock });
  const chain = createChainService({ store, clock, bus });
  const machines = createMachinesService({ store, clock, chain, identity });
  let registry: Registry | undefined;
  let pipeline: Pipeline | undefined;
  const platform = createPlatformService({
    clock,
    store,
    metrics,
    version: config.version,
    startedAt: Date.now(),
    registry: () => registry!,
    pipeline: () => pipeline!,
  });
  const services: Services = { clock, store, bus, nodeKeys, constants: createConstantsService(), identity, machines, chain, platform };
  registry = buildRegistry(allTools);
  pipeline = createPipeline({
    services,
    log,
    readOnly: config.readOnly,
    observe: (op, status, ms, surface) => metrics.observe(op.id, status, ms, surface),
  });

  const filter: SurfaceFilter = { ...(config.toolsets ? { toolsets: config.toolsets } : {}), readOnly: config.readOnly };
  const mcpContent = createMcpContent();
  mcpContent.addResources(() => catalogResources(registry!, platform));
  let closing: Promise<void> | undefined;
  return {
    config,
    log,
    clock,
    bus,
    store,
    services,
    registry,
    pipeline,
    filter,
    surface: { registry, pipeline, filter, content: mcpContent },
    close: () => (closing ??= (async () => {
      platform.setStopping();
      await store.close();
    })()),
  };
}

function createStoreFor(config: Config, log: Logger): Store {
  if (config.databaseUrl) {
    throw new Error(
      'DATABASE_URL is set, but this build has only the embedded lowdb backend; unset DATABASE_URL to use files under CORE_DATA_DIR',
    );
  }
  return createLowdbStore({
    dataDir: config.dataDir,
    onWarning: (w) => log.warn('storage repaired at open', { ...w }),
  });
}
