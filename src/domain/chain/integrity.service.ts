import type { Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import type { NodeKeys } from '../identity/node-keys.js';
import type { ChainService } from './chain.service.js';
import { CHECKPOINT_MESSAGE_TEMPLATE, SEAL_FORMAT, sealSigningInput, type Checkpoint, type SealArtifact } from './checkpoint.js';
import type { CheckpointsService } from './checkpoints.service.js';
import { verifyChain, type ChainRow } from './hash-chain.js';
import type { MachineRecord } from './machine.js';
import type { MachinesService } from './machines.service.js';
import type { ChainLogRepository } from './chain-log-repository.js';

/** Rows read per step of a walk: memory stays flat whatever the chain's length. */
export const WALK_BATCH = 1000;

export interface ValidateResult {
  ok: true;
  valid: boolean;
  count: number;
  broken_at: number | null;
  broken_seq: number | null;
  reason: string | null;
  genesis_tick: number;
  from: number;
  to: number;
  message?: string;
  /** The latest checkpoint of the machine, when the window reaches it, and whether the chain still holds it. */
  checkpoint: { seq: number; tick: number; head_hash: string; signed_tick: number; matches: boolean } | null;
}

export interface IntegrityService {
  /** Re-hashes every row whose tick is in [from, to] and checks each link, reading rows in batches. */
  validate(machine: MachineRecord, window: { from?: number | undefined; to?: number | undefined }): Promise<ValidateResult>;
  /** The signed seal: checkpoints of public heads, or of one machine the caller may read plus its live head. */
  seal(query: { slug?: string | undefined; limit: number }, caller: Caller): Promise<SealArtifact>;
}

export function createIntegrityService(deps: {
  chainLog: ChainLogRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  checkpoints: CheckpointsService;
  nodeKeys: NodeKeys;
}): IntegrityService {
  const { chainLog, clock, chain, machines, checkpoints, nodeKeys } = deps;

  async function validate(machine: MachineRecord, window: { from?: number | undefined; to?: number | undefined }): Promise<ValidateResult> {
    const head = await chain.head(machine.slug);
    const from = window.from ?? machine.genesis_tick;
    // A row's tick can be ahead of the wall clock (ticks never decrease on a chain), so the default end is the later of the two.
    const to = window.to ?? Math.max(clock.tick(), head?.tick ?? 0);
    const base = { ok: true as const, genesis_tick: machine.genesis_tick, from, to };
    // Bounds by seq, then a walk over every seq between them: a row whose tick was altered is still walked.
    const [first] = await chainLog.read(machine.slug, { fromTick: from, limit: 1 });
    const [last] = await chainLog.read(machine.slug, { toTick: to, reverse: true, limit: 1 });
    const empty = { valid: true, count: 0, broken_at: null, broken_seq: null, reason: null };
    if (!first || !last || first.seq > last.seq) {
      return { ...base, ...empty, message: 'empty range', checkpoint: await checkpointCheck(machine, to, head) };
    }
    let expectedPrev = first.seq === 0 ? machine.genesis_hash : (await chainLog.row(machine.slug, first.seq - 1))?.state_hash;
    // The store skips a stored line that is not a row at all: the seq it leaves missing is the break.
    const unreadable = async (seq: number, tick: number, count: number) => ({
      ...base,
      valid: false,
      count,
      broken_at: tick,
      broken_seq: seq,
      reason: `seq ${seq} is not a readable row: its stored line was damaged or removed`,
      checkpoint: await checkpointCheck(machine, to, head),
    });
    if (expectedPrev === undefined) return unreadable(first.seq - 1, first.tick, 0);
    let count = 0;
    for (let seq = first.seq; seq <= last.seq; seq += WALK_BATCH) {
      const end = Math.min(last.seq, seq + WALK_BATCH - 1);
      const rows = await chainLog.read(machine.slug, { fromSeq: seq, toSeq: end });
      const gap = rows.findIndex((row, i) => row.seq !== seq + i);
      const intact = gap === -1 ? rows : rows.slice(0, gap);
      const check = verifyChain(intact, expectedPrev);
      count += check.count;
      if (!check.valid) {
        const { broken_at, broken_seq, reason } = check;
        return { ...base, valid: false, count, broken_at, broken_seq, reason, checkpoint: await checkpointCheck(machine, to, head) };
      }
      if (intact.length < end - seq + 1) return unreadable(seq + intact.length, rows[intact.length]?.tick ?? intact[intact.length - 1]?.tick ?? from, count);
      expectedPrev = rows[rows.length - 1]?.state_hash ?? expectedPrev;
    }
    const checkpoint = await checkpointCheck(machine, to, head);
    if (checkpoint && !checkpoint.matches) {
      const missing = head === undefined || head.seq < checkpoint.seq;
      return {
        ...base,
        valid: false,
        count,
        broken_at: checkpoint.tick,
        broken_seq: checkpoint.seq,
        reason: missing
          ? `the chain ends before seq ${checkpoint.seq}, which the node signed at tick ${checkpoint.signed_tick}: rows were removed`
          : `seq ${checkpoint.seq} differs from the hash the node signed at tick ${checkpoint.signed_tick}: the history was rewritten`,
        checkpoint,
      };
    }
    return { ...base, valid: true, count, broken_at: null, broken_seq: null, reason: null, checkpoint };
  }

  async function checkpointCheck(machine: MachineRecord, to: number, head: ChainRow | undefined): Promise<ValidateResult['checkpoint']> {
    const latest = await checkpoints.latest(machine.slug);
    if (!latest || latest.tick > to) return null;
    const row = head && latest.seq <= head.seq ? await chainLog.row(machine.slug, latest.seq) : undefined;
    const { seq, tick, head_hash, signed_tick } = latest;
    return { seq, tick, head_hash, signed_tick, matches: row?.state_hash === head_hash };
  }

  async function seal(query: { slug?: string | undefined; limit: number }, caller: Caller): Promise<SealArtifact> {
    let list: Checkpoint[];
    if (query.slug !== undefined) {
      const { machine } = await machines.readable(query.slug, caller);
      list = await checkpoints.history(machine.slug, query.limit);
      const head = await chain.head(machine.slug);
      const newest = list[list.length - 1];
      // The current head, signed now (not stored), so a fresh export can be checked against the seal.
      if (head && (!newest || newest.seq !== head.seq)) {
        list.push(checkpoints.sign({ slug: machine.slug, seq: head.seq, tick: head.tick, head_hash: head.state_hash, signed_tick: clock.tick() }));
        if (list.length > query.limit) list.shift();
      }
    } else {
      list = await checkpoints.newestPublic(query.limit);
    }
    const unsigned: Omit<SealArtifact, 'signature'> = {
      ok: true,
      format: SEAL_FORMAT,
      origin: `node:${nodeKeys.keyId}`,
      tick: clock.tick(),
      algorithm: 'Ed25519',
      key_id: nodeKeys.keyId,
      public_key: nodeKeys.publicJwk.x!,
      checkpoint_every_ticks: checkpoints.everyTicks,
      checkpoint_message: CHECKPOINT_MESSAGE_TEMPLATE,
      checkpoints: list,
    };
    return { ...unsigned, signature: nodeKeys.sign(sealSigningInput(unsigned)) };
  }

  return { validate, seal };
}
