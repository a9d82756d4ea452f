import { MAX_KEYSET_PAGE } from '../../lib/keyset-page.js';
import { InvalidCursorError, type DocPage, type Store } from '../../storage/port.js';
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
const newestFirst = (a: Place, b: Place): number => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1);

/** What places a proposal in the listing, and what its position holds. */
type Place = Pick<StoredProposal, 'created_ms' | 'created_at' | 'id'>;
const byListing = (a: Place, b: Place): number => b.created_ms - a.created_ms || newestFirst(a, b);
const positionOf = (p: Place): string => JSON.stringify([p.created_ms, p.created_at, p.id]);

/** The place a position names; `InvalidCursorError` for anything `positionOf` did not write. */
function placeOf(position: string): Place {
  let parsed: unknown;
  try {
    parsed = JSON.parse(position);
  } catch {
    throw new InvalidCursorError(position);
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw new InvalidCursorError(position);
  const [created_ms, created_at, id] = parsed as unknown[];
  if (typeof created_ms !== 'number' || !Number.isFinite(created_ms) || typeof created_at !== 'string' || typeof id !== 'string') {
    throw new InvalidCursorError(position);
  }
  return { created_ms, created_at, id };
}

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
   * At most `size` proposals (of a status, when given) following position `after` (from the newest
   * when undefined), newest `created_at` first and then the higher id, with each one's position (see
   * `keysetPage`). Read from the `created_ms` order from `after`'s millisecond on: about `size` records
   * plus those created in the same millisecond as the page's first and last, never the collection. A
   * position is the proposal's place in that order (its `created_ms`, `created_at` and id), not a store
   * position: the store orders ties by insertion, the listing by id. The first call on a store holding
   * proposals from before `created_ms` existed adds it to them once.
   */
  newestAfter(where: { status?: ProposalStatus }, after: string | undefined, size: number): Promise<DocPage<ProposalRecord>>;
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
    async newestAfter(where, after, size) {
      await backfilled();
      const from = after === undefined ? undefined : placeOf(after);
      const beyond = (p: StoredProposal): boolean => from === undefined || byListing(p, from) > 0;
      const found: StoredProposal[] = [];
      let storeAfter: string | undefined;
      let more = false;
      let pageSize = Math.min(size + 1, MAX_KEYSET_PAGE);
      // Records of one millisecond come in insertion order: each is read whole before the page is cut.
      read: for (;;) {
        const page = await store.docs.find<StoredProposal>(PROPOSALS, where.status === undefined ? {} : { status: where.status }, {
          limit: pageSize,
          orderBy: { field: CREATED_MS, desc: true, ...(from === undefined ? {} : { from: from.created_ms }) },
          ...(storeAfter === undefined ? {} : { after: storeAfter }),
        });
        pageSize = Math.min(pageSize * 2, MAX_KEYSET_PAGE);
        for (const p of page.items) {
          if (found.length >= size && p.created_ms < found[size - 1]!.created_ms) {
            more = true;
            break read;
          }
          if (beyond(p)) found.push(p);
        }
        if (page.next === undefined) break;
        storeAfter = page.next;
      }
      const shown = found.sort(byListing).slice(0, size);
      const last = shown.at(-1);
      return {
        items: shown.map(handed),
        positions: shown.map(positionOf),
        ...((more || found.length > size) && last !== undefined ? { next: positionOf(last) } : {}),
      };
    },
    promoted: (operatorId) => store.docs.get<OperatorDef>(PROMOTED_OPERATORS, operatorId),
    allPromoted: () => store.docs.list<OperatorDef>(PROMOTED_OPERATORS),
    insertPromoted: (def) => store.docs.insert(PROMOTED_OPERATORS, def.id, def),
  };
}
