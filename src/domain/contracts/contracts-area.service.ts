import { createContractAudit, type ContractAudit } from './contract-audit.service.js';
import { createContractControl, type ContractControl } from './contract-control.service.js';
import { createContractPlanning, type ContractPlanning } from './contract-planning.service.js';
import { createContractStreams, type ContractStreams } from './contract-streams.js';
import { createContractsCore, type ContractsCore, type ContractsDeps } from './contracts-core.js';
import { createContractsCrud, type ContractsCrud } from './contracts.service.js';
import { createPublicDirectory, type PublicDirectory } from './public-directory.service.js';
import type { ContractScheduler } from './scheduler.js';
import { createTemplateCatalogue, type TemplateCatalogue } from './template-catalogue.js';

/**
 * The contracts area as handlers see it. `start()` loads every contract's schedule and arms the
 * scheduler; `stop()` disarms it and waits for a pass in progress (called from the core's `close`).
 */
export interface ContractsService {
  core: ContractsCore;
  crud: ContractsCrud;
  control: ContractControl;
  planning: ContractPlanning;
  audit: ContractAudit;
  streams: ContractStreams;
  directory: PublicDirectory;
  templates: TemplateCatalogue;
  scheduler: ContractScheduler;
  /** Resolves once every event received so far has been offered to its listening contracts (for tests). */
  settled(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createContractsService(deps: ContractsDeps & { templatesDir?: string }): ContractsService {
  const core = createContractsCore(deps);
  const templates = createTemplateCatalogue(deps.templatesDir);
  const planning = createContractPlanning(core);
  return {
    core,
    crud: createContractsCrud(core, templates),
    control: createContractControl(core),
    planning,
    audit: createContractAudit(core),
    streams: createContractStreams(core),
    directory: createPublicDirectory(core, planning),
    templates,
    scheduler: core.scheduler,
    settled: () => core.router.settled(),
    start: () => core.scheduler.start(),
    async stop() {
      core.router.stop();
      await core.scheduler.stop();
      await core.stopRelay();
      await core.router.settled();
    },
  };
}
