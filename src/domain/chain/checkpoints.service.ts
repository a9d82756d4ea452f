import type { Clock } from '../../lib/clock.js';
import { TICK_MS } from '../../lib/clock.js';
import type { LogRow, Store } from '../../storage/port.js';
import type { NodeKeys } from '../identity/node-keys.js';
import type { ChainService } from './chain.service.js';
import { checkpointMessage, type Checkpoint, type UnsignedCheckpoint } from './checkpoint.js';
import { MACHINES, type MachineRecord } from './machine.js';

/** Heads are signed every 1,287 ticks (about 16.7 minutes), the seal cadence of the public service. */
export const CHECKPOINT_EVERY_TICKS = 1287;

/** Latest checkpoint of each machine, by slug (small: one record per machine). */
export const CHECKPOINTS = 'checkpoints';

/** One stored checkpoint in a machine's checkpoint history (`checkpoints/<slug>`). */
interface CheckpointRow extends LogRow {
  type: 'checkpoint';
  slug: string;
  head_seq: number;
  head_tick: number;
  head_hash: string;
  signed_tick: number;
  key_id: string;
  signature: string;
}

export function checkpointStream(slug: string): string {
  return `checkpoints/${slug}`;
}

export interface CheckpointsService {
  readonly everyTicks: number;
  /** Signs a head with the node key (stores nothing). */
  sign(unsigned: UnsignedCheckpoint): Checkpoint;
  /** Signs and stores the current head of one machine unless its latest checkpoint already covers it. */
  checkpoint(slug: string): Promise<Checkpoint | undefined>;
  /** Signs every machine whose head moved since its last checkpoint; returns how many were signed. */
  checkpointAll(): Promise<number>;
  latest(slug: string): Promise<Checkpoint | undefined>;
  /** Every machine's latest checkpoint. */
  latestAll(): Promise<Checkpoint[]>;
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
  store: Store;
  clock: Clock;
  chain: ChainService;
  nodeKeys: NodeKeys;
  everyTicks?: number;
  onError?: (err: unknown) => void;
}): CheckpointsService {
  const { store, clock, chain, nodeKeys } = deps;
  const everyTicks = deps.everyTicks ?? CHECKPOINT_EVERY_TICKS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const sign = (unsigned: UnsignedCheckpoint): Checkpoint => ({ ...unsigned, signature: nodeKeys.sign(checkpointMessage(unsigned)) });

  async function checkpoint(slug: string): Promise<Checkpoint | undefined> {
    const head = await chain.head(slug);
    if (!head) return undefined;
    const last = await store.docs.get<Checkpoint>(CHECKPOINTS, slug);
    if (last && last.seq === head.seq && last.head_hash === head.state_hash) return last;
    const signed = sign({ slug, seq: head.seq, tick: head.tick, head_hash: head.state_hash, signed_tick: clock.tick() });
    await store.logs.append<CheckpointRow>(checkpointStream(slug), () => ({
      tick: signed.signed_tick,
      type: 'checkpoint',
      slug,
      head_seq: signed.seq,
      head_tick: signed.tick,
      head_hash: signed.head_hash,
      signed_tick: signed.signed_tick,
      key_id: nodeKeys.keyId,
      signature: signed.signature,
    }));
    await store.docs.put(CHECKPOINTS, slug, signed);
    return signed;
  }

  async function checkpointAll(): Promise<number> {
    let signed = 0;
    for (const machine of await store.docs.list<MachineRecord>(MACHINES)) {
      const before = await store.docs.get<Checkpoint>(CHECKPOINTS, machine.slug);
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
    latest: (slug) => store.docs.get<Checkpoint>(CHECKPOINTS, slug),
    latestAll: () => store.docs.list<Checkpoint>(CHECKPOINTS),
    async history(slug, limit) {
      const rows = await store.logs.read<CheckpointRow>(checkpointStream(slug), { reverse: true, limit });
      return rows.reverse().map((r) => ({
        slug: r.slug,
        seq: r.head_seq,
        tick: r.head_tick,
        head_hash: r.head_hash,
        signed_tick: r.signed_tick,
        signature: r.signature,
      }));
    },
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
