import { allTools } from '../tools/index.js';
import type { Config } from './config.js';
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
import { createStreamDelivery } from './domain/chain/stream-delivery.js';
import { createSiteService } from './domain/site/site.service.js';
import { createAgentsService } from './domain/agents/agents.service.js';
import { createSandboxService } from './domain/sandbox/sandbox.service.js';
import { createBwrapRunner } from './domain/sandbox/sandbox-runner.js';
import { createConstantsService } from './domain/constants/constants.service.js';
import { createIdentityAndOAuth } from './compose-oauth.js';
import { createQuotasService } from './domain/quotas/quotas.service.js';
import { loadNodeKeys } from './domain/identity/node-keys.js';
import { countSandboxRuns, createMetrics, type Metrics } from './domain/platform/metrics.js';
import { observeAppends } from './storage/observe-appends.js';
import { createPlatformService } from './domain/platform/platform.service.js';
import type { Services } from './domain/services.js';
import { createOperatorsService } from './domain/operators/operators.service.js';
import { createComputeService } from './domain/operators/compute.service.js';
import { createReceiptsService } from './domain/receipts/receipts.service.js';
import { createProofService } from './domain/receipts/proof.service.js';
import { createSolversService } from './domain/solvers/solvers.service.js';
import { createUsageService } from './domain/usage/usage.service.js';
import { createKernelService } from './domain/kernel/kernel.service.js';
import { createCompressionService, MAX_INPUT_BYTES, MAX_OUTPUT_BYTES } from './domain/compression/compression.service.js';
import { createClock, type Clock } from './lib/clock.js';
import { createEventBus, type EventBus } from './domain/events.js';
import { createLogger, type Logger } from './log.js';
import { createPipeline, type Pipeline } from './pipeline/invoke.js';
import { createRateLimiter } from './pipeline/rate-limit.js';
import { createRateTiers } from './domain/identity/rate-tiers.js';
import { createContractsService } from './domain/contracts/contracts-area.service.js';
import { createAuditRecovery } from './domain/chain/audit-recovery.service.js';
import { createTemplatesService } from './domain/templates/templates.service.js';
import { buildRegistry, type Registry } from './registry/registry.js';
import type { AppServices } from './registry/app-ports.js';
import { createHttpRelay } from './application/http-relay.js';
import { createSelfCheck } from './application/self-check.js';
import type { SurfaceFilter } from './registry/mcp-tools.js';
import type { Store } from './storage/port.js';
import { createStoreFor } from './compose-store.js';
import { createStorageDeps } from './compose-repositories.js';
import { createMcpContent } from './domain/platform/mcp-content.js';
import { catalogResources, createApiDescription } from './application/api-description.js';
import { solverResources } from './domain/solvers/solver-resources.js';
import { operatorResources } from './domain/operators/operator-resources.js';
import type { ToolSurface } from './transports/mcp/call-tool.js';
import { createTallyService } from './domain/economy/tally.service.js';
import { createCreditsService } from './domain/economy/credits.service.js';
import { createContributeService } from './domain/economy/contribute.service.js';
import { loadPeerKeys } from './domain/economy/peer-keys.js';
import { createCommunityOperatorsService } from './domain/community/community.service.js';
import { createChatService } from './domain/chat/chat.service.js';
import { createChatSources } from './domain/chat/chat-sources.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './config.js';
import { packageRoot } from './lib/paths.js';
import { createSessionsService } from './domain/sessions/sessions.service.js';
import { createManifestService } from './domain/manifest/manifest.service.js';
import { createGeneralService } from './domain/general/general.service.js';
import { createThreatFeedService } from './domain/edge/threat-feed.service.js';
import { createCdnSitesService } from './domain/edge/cdn-sites.service.js';
import { createCdnTraffic } from './domain/edge/cdn-traffic.js';
import { createCdnEdge } from './domain/edge/cdn-edge.service.js';

/** The core shared by every surface: one registry, one pipeline, one set of services. */
export interface Core {
  config: Config;
  log: Logger;
  clock: Clock;
  bus: EventBus;
  store: Store;
  services: Services;
  /** Operations above the pipeline: `core_http`'s relay and the self-check. */
  app: AppServices;
  registry: Registry;
  pipeline: Pipeline;
  /** Surface controls for MCP clients (`CORE_TOOLSETS`, `CORE_READ_ONLY`). */
  filter: SurfaceFilter;
  /** What both MCP transports serve: the tools, plus resources and prompts. */
  surface: ToolSurface;
  /** Prometheus metrics of this core (its own registry); transports feed SSE subscriber counts. */
  metrics: Metrics;
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
  const startedAt = Date.now();
  const metrics = createMetrics({ gauges: () => ({ core_uptime_seconds: Math.round((Date.now() - startedAt) / 1000), core_tick: clock.tick() }) });
  const store = observeAppends(opts.store ?? createStoreFor(config, log), metrics.appended);
  await store.open();
  // Spread into each factory's deps: its parameter type names the repositories it uses, and only those type-check.
  const storage = createStorageDeps(store, clock);

  const nodeKeys = await loadNodeKeys({ ...storage, receiptKey: config.receiptKey, now: clock.now });
  const quotas = createQuotasService({ ...storage, clock, settings: config.quotas });
  const { identity, oauth } = createIdentityAndOAuth({ storage, clock, bus, quotas, config, sessions: () => sessions });
  const chain = createChainService({ ...storage, clock, bus });
  const machines = createMachinesService({ ...storage, clock, chain, identity, quotas });
  const machineSettings = createMachineSettingsService({ ...storage, clock, chain, machines });
  const members = createMembersService({ ...storage, clock, chain, machines, identity });
  const apiKeys = createApiKeysService({ clock, chain, machines, identity, quotas });
  const rateTiers = createRateTiers(config.rateLimit, config.rateTiers);
  const chainWrites = createChainWritesService({ ...storage, clock, chain });
  const chainReads = createChainReadsService({ ...storage, clock, origin: `node-${nodeKeys.keyId}` });
  const publicFeed = createPublicFeedService({ ...storage, clock, bus, machines });
  const checkpoints = createCheckpointsService({ ...storage, clock, chain, nodeKeys, onError: (err) => log.error('checkpoint pass failed', { err }) });
  const integrity = createIntegrityService({ ...storage, clock, chain, machines, checkpoints, nodeKeys });
  const anchors = createAnchorsService({ ...storage, clock, chain, machines });
  const { streams, deliveryGuard, appendRelay } = createStreamDelivery({ ...storage, bus, clock, chain, machines, identity, log });
  const site = createSiteService({ ...storage, clock, chain, machines });
  // The registry is the tools' declarations alone: built before the services that describe it.
  const registry = buildRegistry(allTools);
  // The surface controls: what the tools list, and what the relay and the catalogue reach.
  const filter: SurfaceFilter = { ...(config.toolsets ? { toolsets: config.toolsets } : {}), readOnly: config.readOnly };
  const platform = createPlatformService({ clock, storeHealth: store, metrics, version: config.version, startedAt });
  const description = createApiDescription({ registry, version: config.version, filter });
  const operators = createOperatorsService({ clock });
  log.info('operator registry loaded', { operators: operators.stats.count, ms: Math.round(operators.stats.loadMs * 10) / 10 });
  for (const problem of operators.stats.problems) log.warn('operator data skipped', { problem });
  const receipts = createReceiptsService({ nodeKeys, clock });
  const usage = createUsageService({ ...storage, clock });
  const compute = createComputeService({ clock, nodeKeys, operators, receipts, usage });
  const agents = createAgentsService({ ...storage, clock, chain, machines });
  const sandbox = createSandboxService({ ...storage, clock, runner: countSandboxRuns(createBwrapRunner(), metrics) });
  const solvers = createSolversService({ receipts, usage });
  const proof = createProofService({ receipts, solvers, compute });
  const constants = createConstantsService();
  const kernel = createKernelService({
    constants,
    solvers: () => solvers.list().solvers,
    operators,
    limits: {
      max_operators_per_compute: 3,
      solvers: solvers.list().total,
      http_body_bytes: 1024 * 1024,
      compress_input_bytes: MAX_INPUT_BYTES,
      decompress_output_bytes: MAX_OUTPUT_BYTES,
    },
  });
  const compression = createCompressionService();
  const contracts = createContractsService({
    ...storage,
    clock,
    bus,
    chain,
    machines,
    nodeKeys,
    operators,
    receipts,
    // The economy area is built after contracts: look it up at call time.
    mintEnvelope: (req) => tally.mintEnvelope(req),
    onError: (err) => log.error('contract work failed', { err }),
    onFireLag: (ms) => metrics.fireLag(ms),
    quotas,
  });
  const templates = createTemplatesService({ operators });
  const { nodeAudit } = storage;
  const tally = createTallyService({
    ...storage,
    clock,
    chain,
    machines,
    nodeKeys,
    onError: (err) => log.error('envelope mint failed', { err }),
    writer: () => auditRecovery.writer,
  });
  const auditRecovery = createAuditRecovery({
    ...storage,
    clock,
    chain,
    lockContract: (id, fn) => contracts.core.locked(id, fn),
    mintEnvelope: (req) => tally.mintEnvelope(req),
    onError: (err) => log.error('audit recovery failed', { err }),
    onDone: (report) => log.info('audit recovery done', { ...report }),
  });
  const credits = createCreditsService({
    ...storage,
    clock,
    identity,
    audit: nodeAudit,
    peerKeys: loadPeerKeys(config.peerKeys),
    authority: config.creditsAuthority,
  });
  const contribute = createContributeService({ ...storage, clock, ledger: tally.ledger, audit: nodeAudit });
  const communityOperators = createCommunityOperatorsService({
    ...storage,
    clock,
    operators,
    ledger: tally.ledger,
    audit: nodeAudit,
    onError: (err) => log.error('community operator step failed', { err }),
  });
  const chat = createChatService({
    ...storage,
    clock,
    sources: createChatSources({ endpoints: () => description.searchEndpoints({}).endpoints, operators }),
    upstream: config.chatUpstream ? { url: config.chatUpstream, key: config.chatUpstreamKey } : undefined,
    onUpstreamError: (err) => log.warn('chat upstream failed; the local assistant answered', { err }),
  });
  const sessions = createSessionsService({
    ...storage,
    clock,
    nodeKeys,
    identity,
    log,
    mode: config.loginMode,
    publicUrl: config.publicUrl,
    redirectOrigins: config.ssoRedirectOrigins,
    defaultUrl: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`,
  });
  const updateManifest = createManifestService({ ...storage, clock, nodeKeys, root: packageRoot() });
  const general = createGeneralService({ ...storage, clock, chain, machines });
  const cdnTraffic = createCdnTraffic({
    ...storage,
    clock,
    trackedSlugs: () => storage.cdnSiteRecords.siteMachineSlugs(),
    onError: (err) => log.error('CDN request counts not saved', { err }),
  });
  const edgeDomain = config.publicUrl ? `edge.${new URL(config.publicUrl).hostname}` : 'edge.localhost';
  const cdnEdge = createCdnEdge({ ...storage, clock, machines, publicUrl: config.publicUrl });
  const cdnSites = createCdnSitesService({ ...storage, clock, chain, machines, traffic: cdnTraffic, edge: cdnEdge, edgeDomain: () => edgeDomain });
  const threatFeed = createThreatFeedService({ ...storage, clock, chain, machines, quotas, contracts });
  const services: Services = {
    clock,
    bus,
    nodeKeys,
    constants,
    identity,
    oauth,
    machines,
    chain,
    platform,
    operators,
    compute,
    machineSettings,
    members,
    apiKeys,
    chainWrites,
    chainReads,
    publicFeed,
    checkpoints,
    integrity,
    anchors,
    streams,
    deliveryGuard,
    site,
    agents,
    sandbox,
    solvers,
    receipts,
    proof,
    usage,
    kernel,
    compression,
    contracts,
    tally,
    credits,
    contribute,
    communityOperators,
    chat,
    sessions,
    updateManifest,
    general,
    threatFeed,
    cdnSites,
    cdnTraffic,
    cdnEdge,
    templates,
    rateTiers,
    auditRecovery,
  };
  const app: AppServices = {
    // The relay runs its target through this core's pipeline, made next; it is reached only once a call comes.
    relay: createHttpRelay({ registry, filter, invokeAs: (op, input, caller, opts) => pipeline.invokeAs(op, input, caller, opts) }),
    selfCheck: createSelfCheck({ open: openThrowawayCore, now: clock.now }),
    description,
  };
  const pipeline = createPipeline({
    services,
    app,
    log,
    readOnly: config.readOnly,
    storeStatus: () => store.status(),
    observe: (op, status, ms, surface) => metrics.observe(op.id, status, ms, surface),
    ...(config.rateLimit
      ? {
          rateLimiter: createRateLimiter(
            config.rateLimit,
            () => performance.now(),
            rateTiers.rateOf,
            store.backend === 'lowdb' ? undefined : { pubsub: store.pubsub, isOpen: () => store.isOpen() },
          ),
        }
      : {}),
  });

  checkpoints.start();
  anchors.start();
  // Before anything can mint: the writer lock tells other processes' recovery this process is alive.
  await auditRecovery.start();
  await contracts.start();
  await cdnTraffic.start();
  await communityOperators.start();
  const mcpContent = createMcpContent();
  mcpContent.addResources(() => catalogResources(description));
  mcpContent.addResources(() => solverResources(solvers));
  mcpContent.addResources(() => operatorResources(operators));
  let closing: Promise<void> | undefined;
  return {
    config,
    log,
    clock,
    bus,
    store,
    services,
    app,
    registry,
    pipeline,
    filter,
    surface: { registry, pipeline, filter, content: mcpContent },
    metrics,
    close: () =>
      (closing ??= (async () => {
        platform.setStopping();
        streams.stop();
        await appendRelay?.stop();
        await Promise.all([checkpoints.stop(), anchors.stop()]);
        await contracts.stop();
        await cdnTraffic.stop();
        await auditRecovery.stop();
        await store.close();
      })()),
  };
}

/**
 * A core for the self-check: default settings (no environment: no upstreams, no database), a
 * temporary data directory and a silent log; `close` removes the directory.
 */
async function openThrowawayCore(): Promise<Core> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'core-self-check-'));
  try {
    const core = await createCore({ config: loadConfig({ CORE_DATA_DIR: dir, LOG_LEVEL: 'silent', PORT: '0' }), log: createLogger('silent') });
    return {
      ...core,
      close: async () => {
        await core.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
