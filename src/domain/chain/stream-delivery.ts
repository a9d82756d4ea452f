import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../events.js';
import type { PubSub, StoreBackend } from '../../storage/port.js';
import type { IdentityService } from '../identity/identity.service.js';
import { createAppendRelay, type AppendRelay } from './append-relay.js';
import type { ChainService } from './chain.service.js';
import { createDeliveryGuard, type DeliveryGuard } from './delivery-guard.js';
import type { MachinesService } from './machines.service.js';
import { createStreamInterest } from './stream-interest.js';
import { createStreamsService, type StreamsService } from './streams.service.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';

/** Where stream delivery reports failures and catch-ups (the composition root's logger). */
export interface StreamDeliveryLog {
  error(message: string, fields: Record<string, unknown>): void;
  info(message: string, fields: Record<string, unknown>): void;
}

/**
 * The machinery that delivers chain rows live: the streams, the guard that keeps each delivery
 * authorized, and (on a store shared by several processes) the relay that carries rows appended
 * elsewhere, all sharing one `StreamInterest`, so that after the messaging connection came back the
 * relay catches up exactly the machines the open streams deliver and the guard re-checks every flow.
 */
export function createStreamDelivery(deps: {
  chainLog: ChainLogRepository;
  machineRecords: MachineRepository;
  pubsub: PubSub;
  backend: StoreBackend;
  bus: EventBus;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  identity: IdentityService;
  log: StreamDeliveryLog;
}): { streams: StreamsService; deliveryGuard: DeliveryGuard; appendRelay: AppendRelay | undefined } {
  const { chainLog, machineRecords, pubsub, bus, clock, chain, machines, identity, log } = deps;
  const interest = createStreamInterest();
  const streams = createStreamsService({ chainLog, machineRecords, bus, chain, interest, onError: (err) => log.error('stream delivery failed', { err }) });
  const deliveryGuard = createDeliveryGuard({
    bus,
    clock,
    machines,
    identity,
    onResume: (cb) => pubsub.onResume(cb),
    onError: (err) => log.error('stream access check failed', { err }),
  });
  // Only a shared store has other processes to hear appends from.
  const appendRelay =
    deps.backend === 'lowdb'
      ? undefined
      : createAppendRelay({
          chainLog,
          machineRecords,
          pubsub,
          bus,
          interest,
          onResumed: (report) => log.info('streams caught up after the messaging connection came back', { ...report }),
          onError: (err) => log.error('append relay failed', { err }),
        });
  return { streams, deliveryGuard, appendRelay };
}
