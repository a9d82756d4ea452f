import { randomUUID } from 'node:crypto';
import { backoffDelay } from '../../lib/backoff.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import type { LockStore, LogQuery } from '../../storage/port.js';
import type { TransitionRecord } from '../contracts/contract.types.js';
import type { EnvelopeRow } from '../economy/tally-token.js';
import { fireAuditPayload, fireEnvelopeRequest } from '../contracts/fire-records.js';
import type { MintOutcome, MintRequest } from '../economy/envelope-mint.js';
import type { ChainService } from './chain.service.js';
import { type Mark, type RecoveryMarkRepository } from './recovery-mark-repository.js';
import type { TallyRepository } from '../economy/tally-repository.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';
import type { ContractRepository } from '../contracts/contract-repository.js';

/** Per machine: how far its transitions and envelopes are known to have their chain rows (see `Mark`). */
/** Rows of each stream a first pass over a store without marks looks at (a crash leaves gaps only at the end). */
const FIRST_PASS_TAIL = 10_000;
/** Ticks a first pass reads the chain back from before the oldest row it checks (the wall clock may step back). */
const FIRST_PASS_TICK_MARGIN = 1_000;
const PAGE = 1_000;
/**
 * An envelope minted before envelopes named their writer may be a live older process's mint in
 * progress (a rolling upgrade on PostgreSQL): it is recovered only once this many ticks old.
 */
const LEGACY_GRACE_TICKS = 10;
/** First pause before the writer claim is taken again after it was lost; doubles per failed try up to the cap. */
const CLAIM_RETRY_BASE_MS = 100;
const CLAIM_RETRY_CAP_MS = 5_000;

export interface RecoveryReport {
  machines: number;
  fires: number;
  envelopes: number;
  /** Envelopes minted for fires a crash cut off before their mint. */
  minted: number;
  /** Envelopes left for a later pass: their writer (another process, or this one) is still alive. */
  deferred: number;
}

export interface AuditRecoveryDeps {
  contractRecords: ContractRepository;
  tallyRecords: TallyRepository;
  chainLog: ChainLogRepository;
  machineRecords: MachineRepository;
  recoveryMarks: RecoveryMarkRepository;
  locks: LockStore;
  clock: Pick<Clock, 'tick'>;
  chain: ChainService;
  /** Runs `fn` under the contract's store-wide lock, the one every fire holds from its row to its chain row. */
  lockContract<T>(id: string, fn: () => Promise<T>): Promise<T>;
  /** Mints a fire's envelope (the economy area); absent: fires' missing envelopes are not minted. */
  mintEnvelope?: (req: MintRequest) => Promise<MintOutcome>;
  onError: (err: unknown) => void;
  onDone?: (report: RecoveryReport & { ms: number }) => void;
}

/**
 * The chain rows a crash can cut off, appended after the fact: a fire's `contract.transition` row and
 * an envelope's `tally.minted` row are written after the transition row or envelope they audit, so a
 * kill between the two leaves the first without the second. One pass runs in the background after
 * start, over the rows written since the last pass (per machine marks), and appends each missing row
 * once, marked `recovered: true`.
 *
 * Exactly once, also with several processes on one PostgreSQL store: a fire's row is re-checked under
 * the contract's lock, which the fire itself holds until its chain row is written; an envelope carries
 * the id of the process that wrote it (`writer`), each process holds the lock `core-writer:<id>` for its
 * life, and a missing row is appended only under that lock (free: the writer died; held: it is alive
 * and writes the row itself), re-checked under it. The claim can be lost while the process lives (on
 * PostgreSQL its connection dies and the database frees it): correctness does not rest on it, since a
 * writer's envelope and its `tally.minted` row commit in one transaction (`envelope-mint.ts`), so no
 * recovery ever sees the one without the other; the claim is taken again, with backoff, for as long as
 * the process runs, so the other processes' recovery goes on deferring to it.
 */
export interface AuditRecovery {
  /** This process's writer id, stamped on the envelopes it mints. */
  readonly writer: string;
  /** Takes this process's writer lock (awaited), then starts one pass in the background. */
  start(): Promise<void>;
  /** Waits for the pass in progress and releases the writer lock. Idempotent. */
  stop(): Promise<void>;
  /** Runs one pass now (after the one in progress). */
  runOnce(): Promise<RecoveryReport>;
  /** Resolves with the report of the start pass once it is done. */
  idle(): Promise<RecoveryReport | undefined>;
}

export function createAuditRecovery(deps: AuditRecoveryDeps): AuditRecovery {
  const { contractRecords, tallyRecords, chainLog, machineRecords, recoveryMarks, locks, chain } = deps;
  const writer = randomUUID();
  let release: (() => void) | undefined;
  /** Ends the pause before the claim is taken again (stop). */
  let wake: (() => void) | undefined;
  let holding: Promise<unknown> | undefined;
  let running: Promise<RecoveryReport | undefined> = Promise.resolve(undefined);
  let stopped = false;

  async function audited(slug: string, types: string[], from: { fromSeq: number } | { fromTick: number }): Promise<Set<string>> {
    const ids = new Set<string>();
    let query: { fromSeq: number } | { fromTick: number } = from;
    for (;;) {
      const rows = await chainLog.read(slug, { ...query, types, limit: PAGE });
      for (const r of rows) ids.add(r.transition_id);
      if (rows.length < PAGE) return ids;
      query = { fromSeq: rows[rows.length - 1]!.seq + 1 };
    }
  }

  /** Transition ids of the fires that have an envelope, among the envelopes from `from` on. */
  async function firesPaid(slug: string, from: { fromSeq: number } | { fromTick: number }): Promise<Set<string>> {
    const ids = new Set<string>();
    let query = from;
    for (;;) {
      const rows = await tallyRecords.envelopes(slug, { ...query, limit: PAGE });
      for (const r of rows) if (r.transition_id !== undefined) ids.add(r.transition_id);
      if (rows.length < PAGE) return ids;
      query = { fromSeq: rows[rows.length - 1]!.seq + 1 };
    }
  }

  /** Whether the chain has a row of `type` for `id` at or after `fromSeq` (a re-check under a lock). */
  async function hasRow(slug: string, type: string, id: string, fromSeq: number): Promise<boolean> {
    return (await audited(slug, [type], { fromSeq })).has(id);
  }

  async function readAll<R>(read: (query: LogQuery) => Promise<R[]>, fromSeq: number, toSeq: number): Promise<R[]> {
    const out: R[] = [];
    for (let seq = fromSeq; seq < toSeq; seq += PAGE) {
      out.push(...(await read({ fromSeq: seq, toSeq: Math.min(toSeq, seq + PAGE) - 1 })));
    }
    return out;
  }

  async function machinePass(slug: string, report: RecoveryReport): Promise<void> {
    const machine = await machineRecords.get(slug);
    if (!machine || stopped) return;
    const mark = await recoveryMarks.get(slug);
    // Read before the stream counts: a row past a count is written after this, so its chain row is after `chainAt`.
    const chainAt = await chainLog.count(slug);
    // Read before the transitions' count too: a fire's envelope is minted after its row.
    const eCount = await tallyRecords.envelopeCount(slug);
    const tCount = await contractRecords.transitionCount(slug);
    // Nothing written since the last pass: the common case at start, three counts per machine.
    if (mark && mark.t === tCount && mark.e === eCount) return;
    const tFrom = mark?.t ?? Math.max(0, tCount - FIRST_PASS_TAIL);
    const eFrom = mark?.e ?? Math.max(0, eCount - FIRST_PASS_TAIL);
    const fires = (await readAll<TransitionRecord>((q) => contractRecords.machineTransitions(slug, q), tFrom, tCount)).filter((r) => r.success);
    const envelopes = await readAll<EnvelopeRow>((q) => tallyRecords.envelopes(slug, q), eFrom, eCount);

    const chainFrom = (from: number, markSeq: number | undefined, firstTick: number | undefined) =>
      markSeq !== undefined ? { fromSeq: markSeq } : from === 0 || firstTick === undefined ? { fromSeq: 0 } : { fromTick: firstTick - FIRST_PASS_TICK_MARGIN };
    const fireRows = fires.length ? await audited(slug, ['contract.transition'], chainFrom(tFrom, mark?.tc, fires[0]?.tick)) : new Set<string>();
    const tallyRows = envelopes.length ? await audited(slug, ['tally.minted'], chainFrom(eFrom, mark?.ec, envelopes[0]?.tick)) : new Set<string>();
    for (const row of fires) {
      if (fireRows.has(row.id)) continue;
      // Under the contract's lock a fire in progress has finished: only a row still missing is a crash's.
      await deps.lockContract(row.contract_id, async () => {
        if (await hasRow(slug, 'contract.transition', row.id, chainAt)) return;
        // A fire mints before its audit row, so one cut off before that row may lack its envelope too
        // (a fire with its audit row had its mint decided, minted or refused, and is left as it is).
        if (row.envelope_for !== undefined && deps.mintEnvelope && !(await firesPaid(slug, chainFrom(tFrom, mark?.te, row.tick))).has(row.id)) {
          // The envelope the fire would have minted, issued now: the supply decides, as it would have.
          const outcome = await deps.mintEnvelope({ ...fireEnvelopeRequest(slug, row, null), recovered: true });
          if (outcome.minted) report.minted += 1;
        }
        const payload = { ...fireAuditPayload(row), recovered: true };
        await chain.append(machine, {
          type: 'contract.transition',
          actor_uid: null,
          payload_digest: digestOf(payload),
          payload,
          transition_id: row.id,
          recovered: true,
        });
        report.fires += 1;
      });
    }

    let eDone = eCount;
    for (const e of envelopes) {
      if (tallyRows.has(e.token_id)) continue;
      const owner = e.writer ?? 'legacy';
      const outcome =
        owner === writer || (e.writer === undefined && e.tick > deps.clock.tick() - LEGACY_GRACE_TICKS)
          ? { ran: false as const }
          : await locks.tryRun(`core-writer:${owner}`, async () => {
              if (await hasRow(slug, 'tally.minted', e.token_id, chainAt)) return;
              await chain.append(machine, { type: 'tally.minted', actor_uid: null, transition_id: e.token_id, payload_digest: e.token_hash, recovered: true });
              report.envelopes += 1;
            });
      if (!outcome.ran) {
        report.deferred += 1;
        eDone = Math.min(eDone, e.seq);
      }
    }

    const next: Mark = { slug, t: tCount, tc: chainAt, te: eCount, e: eDone, ec: chainAt };
    await recoveryMarks.update(slug, (cur) => {
      if (!cur) return next;
      const fire = next.t > cur.t ? { t: next.t, tc: next.tc, te: next.te } : { t: cur.t, tc: cur.tc, te: cur.te };
      const env = next.e > cur.e ? { e: next.e, ec: next.ec } : { e: cur.e, ec: cur.ec };
      return { slug, ...fire, ...env };
    });
    report.machines += 1;
  }

  async function pass(): Promise<RecoveryReport> {
    const started = Date.now();
    const report: RecoveryReport = { machines: 0, fires: 0, envelopes: 0, minted: 0, deferred: 0 };
    const slugs = new Set<string>();
    for (const slug of await contractRecords.slugsWithTransitions()) slugs.add(slug);
    for (const slug of await tallyRecords.slugsWithEnvelopes()) slugs.add(slug);
    for (const slug of slugs) {
      if (stopped) break;
      await machinePass(slug, report);
    }
    deps.onDone?.({ ...report, ms: Date.now() - started });
    return report;
  }

  const queue = () => {
    // On a later turn: a pass queued at start never delays the caller's remaining start-up.
    const next = running.then(() => new Promise((resolve) => setImmediate(resolve))).then(() => pass());
    running = next.catch((err) => {
      deps.onError(err);
      return undefined;
    });
    return next;
  };

  /**
   * Holds `core-writer:<writer>` until `stop`. A claim lost meanwhile (its connection died: `lost`
   * aborts, and its transaction cannot commit) or that could not be taken (the database is down) is
   * taken again after a pause that backs off, for as long as the process runs. `held` is called each
   * time it is taken.
   */
  async function holdClaim(held: () => void): Promise<void> {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await locks.run(`core-writer:${writer}`, (lost) => {
          attempt = 0;
          held();
          return new Promise<void>((resolve) => {
            release = resolve;
            lost.addEventListener('abort', () => resolve(), { once: true });
          });
        });
      } catch (err) {
        if (stopped) return;
        deps.onError(new Error(`the writer claim core-writer:${writer} was lost or could not be taken; taking it again`, { cause: err }));
      }
      if (stopped) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, backoffDelay(attempt, CLAIM_RETRY_BASE_MS, CLAIM_RETRY_CAP_MS)).unref();
      });
    }
  }

  return {
    writer,
    async start() {
      if (holding) return;
      let held!: () => void;
      const acquired = new Promise<void>((resolve) => (held = resolve));
      holding = holdClaim(() => held());
      await acquired;
      void queue().catch(() => undefined);
    },
    async stop() {
      stopped = true;
      await running;
      release?.();
      wake?.();
      await holding;
    },
    runOnce: () => queue(),
    idle: () => running,
  };
}
