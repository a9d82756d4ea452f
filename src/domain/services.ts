import type { Clock } from '../lib/clock.js';
import type { ConstantsService } from './constants/constants.service.js';
import type { IdentityService } from './identity/identity.service.js';
import type { MachinesService } from './chain/machines.service.js';
import type { ChainService } from './chain/chain.service.js';
import type { MachineSettingsService } from './chain/machine-settings.service.js';
import type { MembersService } from './chain/members.service.js';
import type { ApiKeysService } from './chain/api-keys.service.js';
import type { ChainWritesService } from './chain/chain-writes.service.js';
import type { ChainReadsService } from './chain/chain-reads.service.js';
import type { PublicFeedService } from './chain/public-feed.service.js';
import type { PlatformService } from './platform/platform.service.js';
import type { EventBus } from './events.js';
import type { NodeKeys } from './identity/node-keys.js';
import type { OperatorsService } from './operators/operators.service.js';
import type { ComputeService } from './operators/compute.service.js';
import type { CheckpointsService } from './chain/checkpoints.service.js';
import type { IntegrityService } from './chain/integrity.service.js';
import type { AnchorsService } from './chain/anchors.service.js';
import type { StreamsService } from './chain/streams.service.js';
import type { DeliveryGuard } from './chain/delivery-guard.js';
import type { SiteService } from './site/site.service.js';
import type { AgentsService } from './agents/agents.service.js';
import type { SandboxService } from './sandbox/sandbox.service.js';
import type { SolversService } from './solvers/solvers.service.js';
import type { ReceiptsService } from './receipts/receipts.service.js';
import type { ProofService } from './receipts/proof.service.js';
import type { UsageService } from './usage/usage.service.js';
import type { KernelService } from './kernel/kernel.service.js';
import type { CompressionService } from './compression/compression.service.js';
import type { ContractsService } from './contracts/contracts-area.service.js';
import type { TallyService } from './economy/tally.service.js';
import type { CreditsService } from './economy/credits.service.js';
import type { ContributeService } from './economy/contribute.service.js';
import type { CommunityOperatorsService } from './community/community.service.js';
import type { ChatService } from './chat/chat.service.js';
import type { SessionsService } from './sessions/sessions.service.js';
import type { ManifestService } from './manifest/manifest.service.js';
import type { GeneralService } from './general/general.service.js';
import type { ThreatFeedService } from './edge/threat-feed.service.js';
import type { CdnSitesService } from './edge/cdn-sites.service.js';
import type { CdnTraffic } from './edge/cdn-traffic.js';
import type { CdnEdge } from './edge/cdn-edge.service.js';
import type { TemplatesService } from './templates/templates.service.js';
import type { RateTiers } from './identity/rate-tiers.js';
import type { AuditRecovery } from './chain/audit-recovery.service.js';
import type { OAuthService } from './oauth/oauth.service.js';
/**
 * The domain services handlers call. Built once by `compose` over an explicit set of dependencies;
 * domain code imports neither Express nor the MCP SDK. No service here holds the raw store: each was
 * handed the repositories it uses.
 */
export interface Services {
  clock: Clock;
  bus: EventBus;
  /** The node's Ed25519 signing key and receipt HMAC key. */
  nodeKeys: NodeKeys;
  constants: ConstantsService;
  identity: IdentityService;
  /** OAuth 2.1 authorization server: clients, consent, codes, tokens (`CORE_OAUTH`). */
  oauth: OAuthService;
  machines: MachinesService;
  chain: ChainService;
  /** Status, settings, unlock and share tokens of a machine. */
  machineSettings: MachineSettingsService;
  /** Role grants on a machine (`/admins`). */
  members: MembersService;
  /** A machine's developer API keys. */
  apiKeys: ApiKeysService;
  /** Request rates of the keys' `rate_limit_tier`s, and which tiers a caller may give a key. */
  rateTiers: RateTiers;
  /** Typed chain appends besides `event`, the rejection log and owner-only payload decryption. */
  chainWrites: ChainWritesService;
  /** Per-machine summaries and point-in-time reads of a chain. */
  chainReads: ChainReadsService;
  /** Node-wide public lists, the recent feed and fleet counts. */
  publicFeed: PublicFeedService;
  platform: PlatformService;
  /** The operator registry: get, exists, evaluate (other areas), search (the API). */
  operators: OperatorsService;
  /** Operator-chain computes with signed claims, and attestation of other nodes' claims. */
  compute: ComputeService;
  /** Periodic node-signed checkpoints of every machine's head. */
  checkpoints: CheckpointsService;
  /** `pohc/validate` and the signed seal. */
  integrity: IntegrityService;
  /** Anchoring a machine's head into a public mother machine. */
  anchors: AnchorsService;
  /** Live SSE sources of audit rows (one machine, or every public machine). */
  streams: StreamsService;
  /** Re-checks a stream's receiver at delivery, so revoking a right ends the flows it opened. */
  deliveryGuard: DeliveryGuard;
  /** A machine's static site: content-addressed files, publish key, pages. */
  site: SiteService;
  /** Agents: who may act for one, plans, state, files, skills and the public directory. */
  agents: AgentsService;
  /** Sandboxed Python runs of agents and their rolling quota. */
  sandbox: SandboxService;
  /** The 32 sealed numerical solvers: catalogue and solve. */
  solvers: SolversService;
  /** Issues and checks HMAC proof receipts of solves and computes. */
  receipts: ReceiptsService;
  /** `POST /api/proof/verify`: receipt checks, with recompute. */
  proof: ProofService;
  /** Per-caller counts of solves and computes. */
  usage: UsageService;
  /** The kernel document and the kernel prompt for agents. */
  kernel: KernelService;
  /** Lossless compression, decompression and data analysis. */
  compression: CompressionService;
  /** State contracts: definitions, the engine and scheduler, versions, proofs, streams and the public directory. */
  contracts: ContractsService;
  /** Machine tokens: genesis, mint rate, supply, envelopes (minted by solves, computes and fires) and their locks. */
  tally: TallyService;
  /** Appends the chain rows a crash cut off (fires' and envelopes' audit rows), in the background after start. */
  auditRecovery: AuditRecovery;
  /** Compute credits: daily claim, conversion into the wallet, Ed25519-signed peer calls. */
  credits: CreditsService;
  /** Contribution seats: bonds, heartbeats, modes, census and policy. */
  contribute: ContributeService;
  /** Community operator proposals, votes by staked envelopes, and promotion into the registry. */
  communityOperators: CommunityOperatorsService;
  /** Free chat: the grounded local assistant (or a configured upstream) and its daily quota. */
  chat: ChatService;
  /** Portal sessions (JWT cookies signed by the node key), the SSO round trip and OIDC discovery. */
  sessions: SessionsService;
  /** The signed update manifest of the node's artifacts (catalog and resources). */
  updateManifest: ManifestService;
  /** Contact messages and tracked app events. */
  general: GeneralService;
  /** Threat-feed devices, scored claims, threat lists and the mesh of following machines. */
  threatFeed: ThreatFeedService;
  /** CDN sites of machines: hostnames, edge rules, purges and analytics. */
  cdnSites: CdnSitesService;
  /** Request counts of machine pages under `/s/` (CDN analytics) and the purgeable cache index. */
  cdnTraffic: CdnTraffic;
  /** Edge rules of the CDN sites, applied to machine pages under `/s/`; rule sets cached per machine. */
  cdnEdge: CdnEdge;
  /** Curated contract templates: catalogue, categories and `generate` drafts. */
  templates: TemplatesService;
}
