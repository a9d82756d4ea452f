import { runChatQuotaRepositoryContract } from './chat-quota-repository.contract.js';
import { runContactRepositoryContract } from './contact-repository.contract.js';
import { runKeyRepositoryContract } from './key-repository.contract.js';
import { runLoginCodeRepositoryContract } from './login-code-repository.contract.js';
import { runNodeKeyRepositoryContract } from './node-key-repository.contract.js';
import { runOAuthRepositoryContract } from './oauth-repository.contract.js';
import { runRegistryVersionRepositoryContract } from './registry-version-repository.contract.js';
import { runRollingWindowRepositoryContract } from './rolling-window-repository.contract.js';
import { runSandboxRunRepositoryContract } from './sandbox-run-repository.contract.js';
import { runSsoCodeRepositoryContract } from './sso-code-repository.contract.js';
import type { MakeStore } from './store-harness.js';
import { runUsageRepositoryContract } from './usage-repository.contract.js';
import { runUserRepositoryContract } from './user-repository.contract.js';

/**
 * The repositories of identity, sessions, OAuth, quotas, sandbox, chat, usage, contact and the manifest, each
 * run on the adapter `runStoreContract` is given.
 */
export function runIdentityAreaRepositoryContracts(name: string, makeStore: MakeStore): void {
  runKeyRepositoryContract(name, makeStore);
  runUserRepositoryContract(name, makeStore);
  runNodeKeyRepositoryContract(name, makeStore);
  runLoginCodeRepositoryContract(name, makeStore);
  runSsoCodeRepositoryContract(name, makeStore);
  runOAuthRepositoryContract(name, makeStore);
  runRollingWindowRepositoryContract(name, makeStore);
  runSandboxRunRepositoryContract(name, makeStore);
  runChatQuotaRepositoryContract(name, makeStore);
  runUsageRepositoryContract(name, makeStore);
  runContactRepositoryContract(name, makeStore);
  runRegistryVersionRepositoryContract(name, makeStore);
}
