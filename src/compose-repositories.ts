import type { Clock } from './lib/clock.js';
import type { LockStore, PubSub, Store, StoreBackend } from './storage/port.js';
import { createOAuthRepository, type OAuthRepository } from './domain/oauth/oauth-repository.js';
import { createKeyRepository, type KeyRepository } from './domain/identity/key-repository.js';
import { createNodeKeyRepository, type NodeKeyRepository } from './domain/identity/node-key-repository.js';
import { createUserRepository, type UserRepository } from './domain/identity/user-repository.js';
import { createRegistryVersionRepository, type RegistryVersionRepository } from './domain/manifest/registry-version-repository.js';
import { createProposalRepository, type ProposalRepository } from './domain/community/proposal-repository.js';
import { createSandboxRunRepository, type SandboxRunRepository } from './domain/sandbox/sandbox-run-repository.js';
import { createCdnSiteRepository, type CdnSiteRepository } from './domain/edge/cdn-site-repository.js';
import { createCdnTrafficRepository, type CdnTrafficRepository } from './domain/edge/cdn-traffic-repository.js';
import { createThreatRepository, type ThreatRepository } from './domain/edge/threat-repository.js';
import { createDelegationRepository, type DelegationRepository } from './domain/agents/delegation-repository.js';
import { createPlanRepository, type PlanRepository } from './domain/agents/plan-repository.js';
import { createBlobRepository, type BlobRepository } from './domain/agents/blob-repository.js';
import { createSkillRepository, type SkillRepository } from './domain/agents/skill-repository.js';
import { createFileRepository, type FileRepository } from './domain/agents/file-repository.js';
import { createStateRepository, type StateRepository } from './domain/agents/state-repository.js';
import { createRollingWindowRepository, type RollingWindowRepository } from './domain/quotas/rolling-window-repository.js';
import { createUsageRepository, type UsageRepository } from './domain/usage/usage-repository.js';
import { createAvatarRepository, type AvatarRepository } from './domain/economy/avatar-repository.js';
import { createCreditRepository, type CreditRepository } from './domain/economy/credit-repository.js';
import { createNodeAuditRepository, type NodeAudit } from './domain/economy/node-audit-repository.js';
import { createSeatRepository, type SeatRepository } from './domain/economy/seat-repository.js';
import { createTallyRepository, type TallyRepository } from './domain/economy/tally-repository.js';
import { createPeerReplayRepository, type PeerReplayRepository } from './domain/economy/peer-replay-repository.js';
import { createEnvelopeLockRepository, type EnvelopeLockRepository } from './domain/economy/envelope-lock-repository.js';
import { createChatQuotaRepository, type ChatQuotaRepository } from './domain/chat/chat-quota-repository.js';
import { createContactRepository, type ContactRepository } from './domain/general/contact-repository.js';
import { createSsoCodeRepository, type SsoCodeRepository } from './domain/sessions/sso-code-repository.js';
import { createLoginCodeRepository, type LoginCodeRepository } from './domain/sessions/login-code-repository.js';
import { createChainLogRepository, type ChainLogRepository } from './domain/chain/chain-log-repository.js';
import { createCheckpointRepository, type CheckpointRepository } from './domain/chain/checkpoint-repository.js';
import { createMachineRepository, type MachineRepository } from './domain/chain/machine-repository.js';
import { createAnchorRepository, type AnchorRepository } from './domain/chain/anchor-repository.js';
import { createRecoveryMarkRepository, type RecoveryMarkRepository } from './domain/chain/recovery-mark-repository.js';
import { createSiteRepository, type SiteRepository } from './domain/site/site-repository.js';
import { createContractRepository, type ContractRepository } from './domain/contracts/contract-repository.js';
import { createContractEventRepository, type ContractEventRepository } from './domain/contracts/contract-event-repository.js';

/**
 * Every repository of the node, one of each, each under the one name services know it by. A name
 * ends in `Records` where the plain plural already names a service or what one builds over the
 * repository (`machines`, `contracts`, the tally's `avatars` vault), so a factory can take both
 * without renaming either.
 */
export interface Repositories {
  oauthRecords: OAuthRepository;
  keys: KeyRepository;
  nodeKeyRecords: NodeKeyRepository;
  users: UserRepository;
  registryVersions: RegistryVersionRepository;
  proposals: ProposalRepository;
  sandboxRuns: SandboxRunRepository;
  cdnSiteRecords: CdnSiteRepository;
  cdnTrafficRecords: CdnTrafficRepository;
  threats: ThreatRepository;
  delegationRecords: DelegationRepository;
  planRecords: PlanRepository;
  blobs: BlobRepository;
  skillRecords: SkillRepository;
  fileRecords: FileRepository;
  stateRecords: StateRepository;
  demoKeyWindows: RollingWindowRepository;
  unlockGuessWindows: RollingWindowRepository;
  usageRecords: UsageRepository;
  avatarRecords: AvatarRepository;
  creditRecords: CreditRepository;
  nodeAudit: NodeAudit;
  seatRecords: SeatRepository;
  tallyRecords: TallyRepository;
  peerReplays: PeerReplayRepository;
  envelopeLocks: EnvelopeLockRepository;
  chatQuotas: ChatQuotaRepository;
  contacts: ContactRepository;
  ssoCodeRecords: SsoCodeRepository;
  loginCodeRecords: LoginCodeRepository;
  chainLog: ChainLogRepository;
  checkpointRecords: CheckpointRepository;
  machineRecords: MachineRepository;
  anchorRecords: AnchorRepository;
  recoveryMarks: RecoveryMarkRepository;
  sites: SiteRepository;
  contractRecords: ContractRepository;
  contractEvents: ContractEventRepository;
}

/** What services get of the storage: the repositories, and of the store itself only its locks and messages. */
export interface StorageDeps extends Repositories {
  locks: LockStore;
  pubsub: PubSub;
  /** Whether other processes share the store (`postgres`): only then is there anything to relay. */
  backend: StoreBackend;
}

/** Builds every repository once over `store`; the composition root hands each service the ones it names. */
export function createRepositories(store: Store, clock: Clock): Repositories {
  return {
    oauthRecords: createOAuthRepository(store),
    keys: createKeyRepository(store),
    nodeKeyRecords: createNodeKeyRepository(store),
    users: createUserRepository(store),
    registryVersions: createRegistryVersionRepository(store),
    proposals: createProposalRepository(store),
    sandboxRuns: createSandboxRunRepository(store),
    cdnSiteRecords: createCdnSiteRepository(store),
    cdnTrafficRecords: createCdnTrafficRepository(store),
    threats: createThreatRepository(store),
    delegationRecords: createDelegationRepository(store),
    planRecords: createPlanRepository(store),
    blobs: createBlobRepository(store),
    skillRecords: createSkillRepository(store),
    fileRecords: createFileRepository(store),
    stateRecords: createStateRepository(store),
    demoKeyWindows: createRollingWindowRepository(store, 'quota-demo-keys'),
    unlockGuessWindows: createRollingWindowRepository(store, 'unlock-guesses'),
    usageRecords: createUsageRepository(store),
    avatarRecords: createAvatarRepository(store),
    creditRecords: createCreditRepository(store),
    nodeAudit: createNodeAuditRepository(store, clock),
    seatRecords: createSeatRepository(store),
    tallyRecords: createTallyRepository(store),
    peerReplays: createPeerReplayRepository(store),
    envelopeLocks: createEnvelopeLockRepository(store),
    chatQuotas: createChatQuotaRepository(store),
    contacts: createContactRepository(store),
    ssoCodeRecords: createSsoCodeRepository(store),
    loginCodeRecords: createLoginCodeRepository(store),
    chainLog: createChainLogRepository(store),
    checkpointRecords: createCheckpointRepository(store),
    machineRecords: createMachineRepository(store),
    anchorRecords: createAnchorRepository(store),
    recoveryMarks: createRecoveryMarkRepository(store),
    sites: createSiteRepository(store),
    contractRecords: createContractRepository(store),
    contractEvents: createContractEventRepository(store),
  };
}

/** The repositories over `store`, with its locks, messages and backend: what a service factory may take. */
export function createStorageDeps(store: Store, clock: Clock): StorageDeps {
  return { ...createRepositories(store, clock), locks: store.locks, pubsub: store.pubsub, backend: store.backend };
}
