import { genesisSeed, verifyChain, type ChainRow } from '../../src/domain/chain/hash-chain.js';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import type { TransitionRecord } from '../../src/domain/contracts/contract.types.js';
import type { Store } from '../../src/storage/port.js';

/** Every due tick a transition row stands for: its own and the `skipped` ones it collapsed, one period apart. */
export function dueTicksOf(rows: TransitionRecord[], every: number): number[] {
  return rows.flatMap((r) => Array.from({ length: r.skipped + 1 }, (_, i) => r.due_tick! - (r.skipped - i) * every));
}

export interface FireCount {
  /** Rows beyond the first for a (contract, due tick). */
  duplicates: number;
  /** Due ticks between a contract's first and last fire that no row stands for. */
  missing: number;
  /** Rows whose number or previous hash does not continue the contract's previous row (a forked chain). */
  forks: number;
  /** Fire rows read. */
  fires: number;
  /** Per contract, the last due tick fired. */
  lastDue: Map<string, number>;
}

/** Counts duplicate, missing and forked fires of the given contracts from their transition rows. */
export async function countFires(store: Store, slugs: string[], contracts: Array<{ id: string; every: number }>): Promise<FireCount> {
  const repo = createContractRepository(store);
  const rows = (await Promise.all(slugs.map((slug) => repo.machineTransitions(slug)))).flat();
  const out: FireCount = { duplicates: 0, missing: 0, forks: 0, fires: 0, lastDue: new Map() };
  for (const { id, every } of contracts) {
    const mine = rows.filter((r) => r.contract_id === id).sort((a, b) => a.seq - b.seq);
    const fires = mine.filter((r) => r.triggered_by === 'trigger');
    out.fires += fires.length;
    for (let i = 1; i < mine.length; i++) {
      if (mine[i]!.n !== mine[i - 1]!.n + 1 || mine[i]!.prev_hash !== mine[i - 1]!.state_hash) out.forks++;
    }
    const due = dueTicksOf(fires, every);
    const distinct = [...new Set(due)].sort((a, b) => a - b);
    out.duplicates += due.length - distinct.length;
    if (distinct.length > 0) {
      const span = (distinct.at(-1)! - distinct[0]!) / every + 1;
      out.missing += span - distinct.length;
      out.lastDue.set(id, distinct.at(-1)!);
    }
  }
  return out;
}

export interface ChainCount {
  rows: number;
  /** Appends acknowledged before the chain was read whose row is not in it: lost writes. */
  lostAcked: number;
  /**
   * Appends acknowledged while the chain was being read and not in what it read (as `slug:digest`):
   * committed after the read's snapshot, so not evidence of a loss; the caller reads them again.
   */
  ackedDuringRead: string[];
  /** The first few of them, as `slug:digest`. */
  lostExamples: string[];
  /** Digests that appear on more than one row (a write stored twice). */
  doubled: number;
  /** Refused appends whose row is in the chain anyway. */
  refusedPresent: number;
  /** Machines whose chain does not verify (hashes, links or seq numbering). */
  invalid: string[];
  /** Head seq per machine. */
  heads: Map<string, number>;
}

/**
 * Reads every machine's chain and checks it against the acknowledged (and, optionally, the refused) appends.
 * `acked` may still grow while it runs (appenders keep going): an append is acknowledged only after its
 * transaction committed, so only those acknowledged before a chain is read must be in what the read
 * returns; each machine's set is copied before its read, and the ones acknowledged during it are told apart.
 */
export async function countChains(store: Store, acked: Map<string, Set<string>>, refused: Map<string, Set<string>> = new Map()): Promise<ChainCount> {
  const chainLog = createChainLogRepository(store);
  const machines = createMachineRepository(store);
  const out: ChainCount = { rows: 0, lostAcked: 0, ackedDuringRead: [], lostExamples: [], doubled: 0, refusedPresent: 0, invalid: [], heads: new Map() };
  for (const [slug, live] of acked) {
    const digests = new Set(live);
    const machine = await machines.get(slug);
    const chain: ChainRow[] = await chainLog.read(slug);
    out.rows += chain.length;
    out.heads.set(slug, chain.at(-1)?.seq ?? -1);
    const numbered = chain.every((r, i) => r.seq === i);
    if (!machine || !numbered || !verifyChain(chain, genesisSeed(machine.slug, machine.genesis_tick)).valid) out.invalid.push(slug);
    const seen = new Map<string, number>();
    for (const row of chain) seen.set(row.payload_digest, (seen.get(row.payload_digest) ?? 0) + 1);
    for (const d of digests) {
      if (seen.has(d)) continue;
      out.lostAcked++;
      if (out.lostExamples.length < 5) out.lostExamples.push(`${slug}:${d}`);
    }
    for (const d of live) if (!digests.has(d) && !seen.has(d)) out.ackedDuringRead.push(`${slug}:${d}`);
    for (const d of refused.get(slug) ?? []) if (seen.has(d)) out.refusedPresent++;
    for (const [d, n] of seen) if (n > 1 && (live.has(d) || refused.get(slug)?.has(d))) out.doubled += n - 1;
  }
  return out;
}

/** A subscriber's received seqs up to `head`: repeats, and seqs missing between its first one and `head`. */
export function countStream(seqs: number[], head: number): { received: number; duplicates: number; gaps: number; reached: boolean } {
  const upTo = seqs.filter((s) => s <= head);
  const distinct = new Set(upTo);
  const first = Math.min(...upTo);
  return {
    received: upTo.length,
    duplicates: upTo.length - distinct.size,
    gaps: upTo.length === 0 ? 0 : head - first + 1 - distinct.size,
    reached: distinct.has(head),
  };
}
