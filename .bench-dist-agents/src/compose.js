import { allTools } from '../tools/index.js';
import { createChainService } from './domain/chain/chain.service.js';
import { createMachinesService } from './domain/chain/machines.service.js';
import { createMachineSettingsService } from './domain/chain/machine-settings.service.js';
import { createMembersService } from './domain/chain/members.service.js';
import { createApiKeysService } from './domain/chain/api-keys.service.js';
import { createChainWritesService } from './domain/chain/chain-writes.service.js';
import { createChainReadsService } from './domain/chain/chain-reads.service.js';
import { createPublicFeedService } from './domain/chain/public-feed.service.js';
import { createCheckpointsService } from './domain/chain/checkpoints.service.js';
import { createIntegrityService } from './domain/chain/integrity.service.js';
import { createAnchorsService } from './domain/chain/anchors.service.js';
import { createStreamsService } from './domain/chain/streams.service.js';
import { createSiteService } from './domain/site/site.service.js';
import { createAgentsService } from './domain/agents/agents.service.js';
import { createSandboxService } from './domain/sandbox/sandbox.service.js';
import { createBwrapRunner } from './domain/sandbox/sandbox-runner.js';
import { createConstantsService } from './domain/constants/constants.service.js';
import { createIdentityService } from './domain/identity/identity.service.js';
import { loadNodeKeys } from './domain/identity/node-keys.js';
import { createMetrics } from './domain/platform/metrics.js';
import { createPlatformService } from './domain/platform/platform.service.js';
import { createOperatorsService } from './domain/operators/operators.service.js';
import { createComputeService } from './domain/operators/compute.service.js';
import { createClock } from './lib/clock.js';
import { createEventBus } from './lib/event-bus.js';
import { createLogger } from './log.js';
import { createPipeline } from './pipeline/invoke.js';
import { buildRegistry } from './registry/registry.js';
import { createLowdbStore } from './storage/lowdb/lowdb.store.js';
import { createMcpContent } from './domain/platform/mcp-content.js';
import { catalogResources } from './domain/platform/catalog-resources.js';
/** Builds and opens the core. Nothing here listens on a port or reads stdin. */
export async function createCore(opts) {
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
    const machineSettings = createMachineSettingsService({ store, clock, chain, machines });
    const members = createMembersService({ store, clock, chain, machines, identity });
    const apiKeys = createApiKeysService({ clock, chain, machines, identity });
    const chainWrites = createChainWritesService({ store, clock, chain });
    const chainReads = createChainReadsService({ store, clock, origin: `node-${nodeKeys.keyId}` });
    const publicFeed = createPublicFeedService({ store, clock, bus, machines });
    const checkpoints = createCheckpointsService({ store, clock, chain, nodeKeys, onError: (err) => log.error('checkpoint pass failed', { err }) });
    const integrity = createIntegrityService({ store, clock, chain, machines, checkpoints, nodeKeys });
    const anchors = createAnchorsService({ store, clock, chain, machines });
    const streams = createStreamsService({ store, bus, chain, onError: (err) => log.error('stream delivery failed', { err }) });
    const site = createSiteService({ store, clock, chain, machines });
    let registry;
    let pipeline;
    const platform = createPlatformService({
        clock,
        store,
        metrics,
        version: config.version,
        startedAt: Date.now(),
        registry: () => registry,
        pipeline: () => pipeline,
    });
    const operators = createOperatorsService({ clock });
    log.info('operator registry loaded', { operators: operators.stats.count, ms: Math.round(operators.stats.loadMs * 10) / 10 });
    for (const problem of operators.stats.problems)
        log.warn('operator data skipped', { problem });
    // Receipts and usage belong to another area; looked up when a compute runs, whatever the build order.
    const optional = () => services;
    const compute = createComputeService({ clock, nodeKeys, operators, receipts: () => optional().receipts, usage: () => optional().usage });
    const agents = createAgentsService({ store, clock, chain, machines });
    const sandbox = createSandboxService({ store, clock, runner: createBwrapRunner() });
    const services = { clock, store, bus, nodeKeys, constants: createConstantsService(), identity, machines, chain, platform, operators, compute, machineSettings, members, apiKeys, chainWrites, chainReads, publicFeed, checkpoints, integrity, anchors, streams, site, agents, sandbox };
    registry = buildRegistry(allTools);
    pipeline = createPipeline({
        services,
        log,
        readOnly: config.readOnly,
        observe: (op, status, ms, surface) => metrics.observe(op.id, status, ms, surface),
    });
    checkpoints.start();
    anchors.start();
    const filter = { ...(config.toolsets ? { toolsets: config.toolsets } : {}), readOnly: config.readOnly };
    const mcpContent = createMcpContent();
    mcpContent.addResources(() => catalogResources(registry, platform));
    let closing;
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
            streams.stop();
            await Promise.all([checkpoints.stop(), anchors.stop()]);
            await store.close();
        })()),
    };
}
function createStoreFor(config, log) {
    if (config.databaseUrl) {
        throw new Error('DATABASE_URL is set, but this build has only the embedded lowdb backend; unset DATABASE_URL to use files under CORE_DATA_DIR');
    }
    return createLowdbStore({
        dataDir: config.dataDir,
        onWarning: (w) => log.warn('storage repaired at open', { ...w }),
    });
}
//# sourceMappingURL=compose.js.map