import type { Clock } from '../../lib/clock.js';
import type { LockStore } from '../../storage/port.js';
import { resourcePath } from '../../lib/paths.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachinesService } from '../chain/machines.service.js';
import { createAgentAccess, type AgentAccess } from './agent-access.js';
import { createDelegationsService, type DelegationsService } from './delegations.service.js';
import { createDirectoryService, type DirectoryService } from './directory.service.js';
import { createFilesService, type FilesService } from './files.service.js';
import { createPlansService, type PlansService } from './plans.service.js';
import { createSkillsService, type SkillsService } from './skills.service.js';
import { createStateService, type StateService } from './state.service.js';
import type { DelegationRepository } from './delegation-repository.js';
import type { UserRepository } from '../identity/user-repository.js';
import type { PlanRepository } from './plan-repository.js';
import type { BlobRepository } from './blob-repository.js';
import type { SkillRepository } from './skill-repository.js';
import type { FileRepository } from './file-repository.js';
import type { StateRepository } from './state-repository.js';
import type { MachineRepository } from '../chain/machine-repository.js';

/** The agent area: who may act for an agent (and whom it delegated), and its plans, state, files, skills and public entry. */
export interface AgentsService {
  access: AgentAccess;
  delegations: DelegationsService;
  plans: PlansService;
  state: StateService;
  files: FilesService;
  skills: SkillsService;
  directory: DirectoryService;
}

/** The repositories of the agent area, and the locks that serialize a plan's readers and writers. */
export interface AgentsStorage {
  machineRecords: MachineRepository;
  users: UserRepository;
  delegationRecords: DelegationRepository;
  planRecords: PlanRepository;
  stateRecords: StateRepository;
  fileRecords: FileRepository;
  skillRecords: SkillRepository;
  blobs: BlobRepository;
  locks: LockStore;
}

export function createAgentsService(
  deps: AgentsStorage & {
    clock: Clock;
    chain: ChainService;
    machines: MachinesService;
    /** Folder of the skill catalogue; defaults to `resources/skills`. */
    skillsDir?: string;
  },
): AgentsService {
  const { machines, machineRecords } = deps;
  const state = createStateService(deps);
  const loadMachine = (slug: string) => machineRecords.get(slug);
  const delegations = createDelegationsService(deps);
  return {
    access: createAgentAccess({ machines, delegations }),
    delegations,
    plans: createPlansService({ ...deps, state, loadMachine }),
    state,
    files: createFilesService(deps),
    skills: createSkillsService({ ...deps, dir: deps.skillsDir ?? resourcePath('skills') }),
    directory: createDirectoryService(deps),
  };
}
