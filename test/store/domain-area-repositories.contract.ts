import { runAgentDataRepositoryContracts } from './agent-data-repositories.contract.js';
import { runCdnSiteRepositoryContract } from './cdn-site-repository.contract.js';
import { runContractListenersContract } from './contract-listeners.contract.js';
import { runContractRepositoryContract } from './contract-repository.contract.js';
import { runEconomyAccountRepositoryContracts } from './economy-account-repositories.contract.js';
import { runPlanRepositoryContract } from './plan-repository.contract.js';
import { runProposalRepositoryContract } from './proposal-repository.contract.js';
import { runSiteRepositoryContract } from './site-repository.contract.js';
import type { MakeStore } from './store-harness.js';
import { runTallyRepositoryContract } from './tally-repository.contract.js';
import { runThreatRepositoryContract } from './threat-repository.contract.js';

/** The repositories of agents, contracts, community, economy, edge and sites, each run on the adapter `runStoreContract` is given. */
export function runDomainAreaRepositoryContracts(name: string, makeStore: MakeStore): void {
  runPlanRepositoryContract(name, makeStore);
  runAgentDataRepositoryContracts(name, makeStore);
  runContractRepositoryContract(name, makeStore);
  runContractListenersContract(name, makeStore);
  runProposalRepositoryContract(name, makeStore);
  runTallyRepositoryContract(name, makeStore);
  runEconomyAccountRepositoryContracts(name, makeStore);
  runCdnSiteRepositoryContract(name, makeStore);
  runThreatRepositoryContract(name, makeStore);
  runSiteRepositoryContract(name, makeStore);
}
