import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachinesService } from '../chain/machines.service.js';
import { createAppEventsService, type AppEventsService } from './app-events.service.js';
import { createContactService, type ContactService } from './contact.service.js';
import { createSelfCheck, type SelfCheck, type ThrowawayCore } from './self-check.js';

/** The small general endpoints: contact messages, tracked app events and the self-check behind the badge. */
export interface GeneralService {
  contact: ContactService;
  appEvents: AppEventsService;
  selfCheck: SelfCheck;
}

export function createGeneralService(deps: {
  store: Store;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  /** Builds the throwaway core the self-check runs against. */
  openThrowawayCore: () => Promise<ThrowawayCore>;
}): GeneralService {
  return {
    contact: createContactService(deps),
    appEvents: createAppEventsService(deps),
    selfCheck: createSelfCheck({ open: deps.openThrowawayCore, now: deps.clock.now }),
  };
}
