import { topByField } from '../../storage/doc-top.js';
import type { Store } from '../../storage/port.js';
import type { OperatorDef } from '../operators/operator.types.js';
import type { ProposalRecord, ProposalStatus } from './community-policy.js';

const PROPOSALS = 'community-proposals';
/**
 * Done-marks of this repository's one-time backfills (id `created_ms`: every proposal stored before the
 * field existed has it). Small: one record per backfill.
 */
const BACKFILLS = 'community-proposal-backfills';
const CREATED_MS = 'created_ms';
/** Held across every process while the `created_ms` backfill runs. */
const BACKFILL_LOCK = 'community-proposals:created_ms';

/**
 * A proposal as stored: with `created_ms`, its `created_at` as a number, which the ordered index sorts
 * on (the field is the repository's own: it is added on every write and never handed out).
 */
type StoredProposal = ProposalRecord & { created_ms: number };

/** `created_at` as milliseconds (0 for a text that is no date: such records sort last). */
const msOf = (createdAt: string): number => {
  const ms = Date.parse(createdAt);
  return Number.isFinite(ms) ? ms : 0;
};
const stored = (record: ProposalRecord): StoredProposal => ({ ...record, created_ms: msOf(record.created_at) });
const handed = <T extends ProposalRecord | undefined>(record: T): T => {
  if (record === undefined) return record;
  const { created_ms: _, ...rest } = record as StoredProposal;
  return rest as T;
};

/** The listing's order: newest `created_at` first, then the higher id (as the listing always sorted). */
const newestFirst = (a: ProposalRecord, b: ProposalRecord): number =>
  a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1;

/** Promoted operators, registered into the operator registry at every start. */
const PROMOTED_OPERATORS = 'community-operators';

/** Community operator proposals and the operators promoted from them: the only module that names their collections. */
export interface ProposalRepository {
  byId(id: string): Promise<ProposalRecord | undefined>;
  /** Fails with `DuplicateKeyError` when the id exists. */
  insert(record: ProposalRecord): Promise<void>;
  /** Read-modify-write; `fn` sees undefined when the proposal is missing. Returns what is stored afterwards. */
  update(id: string, fn: (current: ProposalRecord | undefined) => ProposalRecord | undefined): Promise<ProposalRecord | undefined>;
  /**
   * The proposals of one status, or every proposal, in insertion order: a whole read of those, for
   * checks and tests, not for requests (`newest` pages).
   */
  list(status?: ProposalStatus): Promise<ProposalRecord[]>;
  /**
   * The first `limit` proposals (of a status, when given) that `keep` accepts, newest `created_at`
   * first and then the higher id: read from the `created_ms` order a page at a time (`topByField`),
   * about `limit` of them plus those `keep` refuses, never the collection. The first call on a store
   * holding proposals from before `created_ms` existed adds it to them once.
   */
  newest(where: { status?: ProposalStatus }, limit: number, keep: (p: ProposalRecord) => boolean): Promise<ProposalRecord[]>;
  promoted(operatorId: string): Promise<OperatorDef | undefined>;
  /** Every promoted operator: read once at start to register them (bounded by the registry). */
  allPromoted(): Promise<OperatorDef[]>;
  /** Fails with `DuplicateKeyError` when the operator was promoted already. */
  insertPromoted(def: OperatorDef): Promise<void>;
}

export function createProposalRepository(store: Store): ProposalRepository {
  /** Adds `created_ms` to the proposals stored without it, once per store (every process waits for the one running it). */
  async function backfilled(): Promise<void> {
    if (await store.docs.get(BACKFILLS, CREATED_MS)) return;
    await store.locks.run(BACKFILL_LOCK, async () => {
      if (await store.docs.get(BACKFILLS, CREATED_MS)) return;
      // One pass, once: proposals written since already carry the field.
      for (const p of await store.docs.list<ProposalRecord & { created_ms?: number }>(PROPOSALS, (p) => typeof p.created_ms !== 'number')) {
        await store.docs.update<StoredProposal>(PROPOSALS, p.id, (current) =>
          current && typeof current.created_ms !== 'number' ? stored(current) : undefined,
        );
      }
      await store.docs.put(BACKFILLS, CREATED_MS, { done: true });
    });
  }

  return {
    byId: async (id) => handed(await store.docs.get<StoredProposal>(PROPOSALS, id)),
    insert: (record) => store.docs.insert(PROPOSALS, record.id, stored(record)),
    update: async (id, fn) =>
      handed(
        await store.docs.update<StoredProposal>(PROPOSALS, id, (current) => {
          const next = fn(handed(current));
          return next && stored(next);
        }),
      ),
    list: async (status) =>
      (status === undefined ? await store.docs.list<StoredProposal>(PROPOSALS) : (await store.docs.find<StoredProposal>(PROPOSALS, { status })).items).map(
        handed,
      ),
    async newest(where, limit, keep) {
      await backfilled();
      const found = await topByField<StoredProposal & Record<string, unknown>>(
        store.docs,
        PROPOSALS,
        where.status === undefined ? {} : { status: where.status },
        CREATED_MS,
        limit,
        (a, b) => b.created_ms - a.created_ms || newestFirst(a, b),
        async (records) => records.map(keep),
      );
      return found.map(handed);
    },
    promoted: (operatorId) => store.docs.get<OperatorDef>(PROMOTED_OPERATORS, operatorId),
    allPromoted: () => store.docs.list<OperatorDef>(PROMOTED_OPERATORS),
    insertPromoted: (def) => store.docs.insert(PROMOTED_OPERATORS, def.id, def),
  };
}
