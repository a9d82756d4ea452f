import type { Clock } from '../../lib/clock.js';
import { resourcePath } from '../../lib/paths.js';
import type { Store } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import { createMachineRepository } from '../chain/machine-repository.js';
import type { MachinesService } from '../chain/machines.service.js';
import { createAgentAccess, type AgentAccess } from './agent-access.js';
import { createBlobRepository } from './blob-repository.js';
import { createDelegationsService, type DelegationsService } from './delegations.service.js';
import { createDirectoryService, type DirectoryService } from './directory.service.js';
import { createFilesService, type FilesService } from './files.service.js';
import { createPlansService, type PlansService } from './plans.service.js';
import { createSkillsService, type SkillsService } from './skills.service.js';
import { createStateService, type StateService } from './state.service.js';

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

export function createAgentsService(deps: {
  store: Store;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  /** Folder of the skill catalogue; defaults to `resources/skills`. */
  skillsDir?: string;
}): AgentsService {
  const { store, clock, chain, machines } = deps;
  const machineRecords = createMachineRepository(store);
  const blobs = createBlobRepository(store);
  const state = createStateService({ store, clock });
  const loadMachine = (slug: string) => machineRecords.get(slug);
  const delegations = createDelegationsService({ store, clock });
  return {
    access: createAgentAccess({ machines, delegations }),
    delegations,
    plans: createPlansService({ store, clock, chain, state, blobs, loadMachine }),
    state,
    files: createFilesService({ store, clock, blobs }),
    skills: createSkillsService({ store, clock, blobs, dir: deps.skillsDir ?? resourcePath('skills') }),
    directory: createDirectoryService({ store }),
  };
}
