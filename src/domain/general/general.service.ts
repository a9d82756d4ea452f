import type { Clock } from '../../lib/clock.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachinesService } from '../chain/machines.service.js';
import { createAppEventsService, type AppEventsService } from './app-events.service.js';
import { createContactService, type ContactService } from './contact.service.js';
import type { ContactRepository } from './contact-repository.js';

/** The small general endpoints: contact messages and tracked app events. */
export interface GeneralService {
  contact: ContactService;
  appEvents: AppEventsService;
}

export function createGeneralService(deps: { contacts: ContactRepository; clock: Clock; chain: ChainService; machines: MachinesService }): GeneralService {
  return {
    contact: createContactService(deps),
    appEvents: createAppEventsService(deps),
  };
}
