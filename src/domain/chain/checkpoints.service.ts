import type { Clock } from '../../lib/clock.js';
import { TICK_MS } from '../../lib/clock.js';
import type { NodeKeys } from '../identity/node-keys.js';
import type { ChainService } from './chain.service.js';
import { checkpointMessage, type Checkpoint, type UnsignedCheckpoint } from './checkpoint.js';
import type { CheckpointRepository } from './checkpoint-repository.js';
import type { MachineRepository } from './machine-repository.js';

/** Heads are signed every 1,287 ticks (about 16.7 minutes), the seal cadence of the public service. */
export const CHECKPOINT_EVERY_TICKS = 1287;

export interface CheckpointsService {
  readonly everyTicks: number;
  /** Signs a head with the node key (stores nothing). */
  sign(unsigned: UnsignedCheckpoint): Checkpoint;
  /** Signs and stores the current head of one machine unless its latest checkpoint already covers it. */
  checkpoint(slug: string): Promise<Checkpoint | undefined>;
  /** Signs every machine whose head moved since its last checkpoint; returns how many were signed. */
  checkpointAll(): Promise<number>;
  latest(slug: string): Promise<Checkpoint | undefined>;
  /** The `limit` latest checkpoints of public machines, latest signed first (equal ticks by slug). */
  newestPublic(limit: number): Promise<Checkpoint[]>;
  /** The machine's most recent checkpoints, oldest first. */
  history(slug: string, limit: number): Promise<Checkpoint[]>;
  /** Starts the periodic signing timer. */
  start(): void;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/**
 * Periodic checkpoints: a linear hash chain cannot show that its tail was cut off, so the node signs
 * each machine's head every `everyTicks` ticks, in a log kept apart from the chain it vouches for.
 */
export function createCheckpointsService(deps: {
  checkpointRecords: CheckpointRepository;
  machineRecords: MachineRepository;
  clock: Clock;
  chain: ChainService;
  nodeKeys: NodeKeys;
  everyTicks?: number;
  onError?: (err: unknown) => void;
}): CheckpointsService {
  const { checkpointRecords, machineRecords, clock, chain, nodeKeys } = deps;
  const everyTicks = deps.everyTicks ?? CHECKPOINT_EVERY_TICKS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const sign = (unsigned: UnsignedCheckpoint): Checkpoint => ({ ...unsigned, signature: nodeKeys.sign(checkpointMessage(unsigned)) });

  async function checkpoint(slug: string): Promise<Checkpoint | undefined> {
    const head = await chain.head(slug);
    if (!head) return undefined;
    const last = await checkpointRecords.latest(slug);
    if (last && last.seq === head.seq && last.head_hash === head.state_hash) return last;
    const signed = sign({ slug, seq: head.seq, tick: head.tick, head_hash: head.state_hash, signed_tick: clock.tick() });
    await checkpointRecords.record(signed, nodeKeys.keyId);
    return signed;
  }

  async function checkpointAll(): Promise<number> {
    let signed = 0;
    for await (const machine of machineRecords.each()) {
      const before = await checkpointRecords.latest(machine.slug);
      const after = await checkpoint(machine.slug);
      if (after && after.signed_tick !== before?.signed_tick) signed += 1;
    }
    return signed;
  }

  const arm = () => {
    timer = setTimeout(() => {
      running = checkpointAll().catch((err: unknown) => {
        deps.onError?.(err);
        return 0;
      });
      void running.finally(() => {
        running = undefined;
        if (timer !== undefined) arm();
      });
    }, everyTicks * TICK_MS);
    timer.unref();
  };

  return {
    everyTicks,
    sign,
    checkpoint,
    checkpointAll,
    latest: (slug) => checkpointRecords.latest(slug),
    async newestPublic(limit) {
      return checkpointRecords.newest(limit, async (found) => {
        const pub = await machineRecords.publicAmong(found.map((c) => c.slug));
        return found.map((c) => pub.has(c.slug));
      });
    },
    history: (slug, limit) => checkpointRecords.history(slug, limit),
    start() {
      if (timer === undefined) arm();
    },
    async stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
