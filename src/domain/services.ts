import type { Clock } from '../lib/clock.js';
import type { Store } from '../storage/port.js';
import type { ConstantsService } from './constants/constants.service.js';
import type { IdentityService } from './identity/identity.service.js';
import type { MachinesService } from './chain/machines.service.js';
import type { ChainService } from './chain/chain.service.js';
import type { PlatformService } from './platform/platform.service.js';
import type { EventBus } from '../lib/event-bus.js';
import type { NodeKeys } from './identity/node-keys.js';

/**
 * The domain services handlers call. Built once by `compose` over an explicit set of dependencies;
 * domain code imports neither Express nor the MCP SDK.
 */
export interface Services {
  clock: Clock;
  store: Store;
  bus: EventBus;
  /** The node's Ed25519 signing key and receipt HMAC key. */
  nodeKeys: NodeKeys;
  constants: ConstantsService;
  identity: IdentityService;
  machines: MachinesService;
  chain: ChainService;
  platform: PlatformService;
}
