import { CoreError } from '../../errors.js';
import { createBoundedSlots, type SlotTicket } from '../../lib/bounded-slots.js';

/** How sandbox slots are shared between identities. */
export interface FairSlotsOptions {
  /** Runs at once in this process. */
  slots: number;
  /** Runs one identity may have running or waiting at once; more are refused at once (429). */
  perIdentity: number;
  /** Runs waiting in all; more are refused at once (429). */
  maxWaiting: number;
  /** Longest a run waits for a slot before it is given up (429); bounds how long a reservation is held. */
  maxWaitMs: number;
}

export const DEFAULT_FAIR_SLOTS: FairSlotsOptions = Object.freeze({ slots: 2, perIdentity: 2, maxWaiting: 32, maxWaitMs: 120_000 });

/** A place in the queue: `turn` resolves with the function that frees the slot once the run is done. */
export type Ticket = SlotTicket;

export interface FairSlots {
  /** Takes a place in the queue for `identity`, or throws RATE_LIMITED at once when a cap is reached. */
  enter(identity: string): Ticket;
  /** Runs holding a slot and runs waiting, for tests and metrics. */
  load(): { running: number; waiting: number };
  /** The longest a ticket waits for its turn. */
  readonly maxWaitMs: number;
}

/**
 * Slots shared fairly (see the `fair` order of `createBoundedSlots`): a newcomer is served as soon as
 * any slot frees however many runs others queued, and no identity may queue more than `perIdentity`
 * runs at all. First come, first served would let a few keys keep both slots busy for minutes.
 */
export function createFairSlots(options: FairSlotsOptions = DEFAULT_FAIR_SLOTS): FairSlots {
  const slots = createBoundedSlots({
    slots: options.slots,
    maxWaiting: options.maxWaiting,
    perHolder: options.perIdentity,
    order: 'fair',
    refusals: {
      holderFull: (mine) =>
        new CoreError(
          'RATE_LIMITED',
          `You already have ${mine} sandbox runs running or waiting (at most ${options.perIdentity} per agent); wait for one to finish`,
          { limit: options.perIdentity },
        ),
      queueFull: ({ waiting }) => new CoreError('RATE_LIMITED', `The sandbox is busy (${waiting} runs waiting); retry shortly`, { waiting }),
    },
    maxWait: {
      ms: options.maxWaitMs,
      error: () =>
        new CoreError('RATE_LIMITED', `The sandbox stayed busy for ${Math.round(options.maxWaitMs / 1000)} s; your run was not started, retry shortly`, {
          waited_ms: options.maxWaitMs,
        }),
    },
    withdrawn: () => new CoreError('RATE_LIMITED', 'The run was withdrawn before it started'),
  });

  return { enter: (identity) => slots.enter(identity), load: slots.load, maxWaitMs: options.maxWaitMs };
}
