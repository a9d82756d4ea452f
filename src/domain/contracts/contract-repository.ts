import { DuplicateKeyError, LastOfTypeMovedError, type DocPage, type LogQuery, type RowInput, type Store } from '../../storage/port.js';
import { contractGenesis, freshRuntime, runtimeAfter, storedTransition, transitionHash, wholeTransition } from './contract-runtime.js';
import type { ContractRecord, Runtime, TransitionFields, TransitionRecord, VersionFields, VersionRecord } from './contract.types.js';
import { listenedMachines } from './triggers.js';
import { onceUnlessFailed } from '../../lib/once.js';
import { afterCommit, scopeMemo } from '../../lib/commit-scope.js';

const CONTRACTS = 'contracts';
/** One entry per (listened machine, listening contract): which contracts listen to a machine's events, without reading every contract. */
const LISTENERS = 'contract-listeners';
/** Kept in the listener collection: the ordinal the next contract takes. Holds no `slug`, so no listener read returns it. */
const NEXT_ORDINAL = ':next-ordinal';
/** Kept in the listener collection once every contract stored before the index existed was entered in it. */
const BACKFILLED = ':backfilled';
/** Held from taking an ordinal to inserting the record, so ordinals follow the collection's insertion order. */
const ORDINAL_LOCK = 'contracts:creation-order';
/** Contracts read (and given an ordinal) per page when the backfill walks the collection. */
const WALK_PAGE = 200;
const STREAM_PREFIX = 'contracts/';
const TRANSITIONS_SUFFIX = '/transitions';
const transitionsStream = (slug: string) => `${STREAM_PREFIX}${slug}${TRANSITIONS_SUFFIX}`;
const versionsStream = (slug: string) => `${STREAM_PREFIX}${slug}/versions`;

/** A listener index entry: contract `contract_id` listens to events of machine `slug`. */
interface ListenerEntry {
  slug: string;
  contract_id: string;
  /** The contract's ordinal: the index is read in creation order. */
  ordinal: number;
}

/** Slugs hold no '|' (nor ':', which marks the collection's other records). */
const entryId = (slug: string, contractId: string) => `${slug}|${contractId}`;
const listened = (record: ContractRecord) => listenedMachines(record.definition, record.slug);

/** The fields of a transition row the engine decides; the store adds position and hash links. */
export type TransitionDraft = Omit<TransitionFields, 'id' | 'n' | 'prev_hash' | 'state_hash'>;

/** A scheduled fire's claim on its due tick: the transition's watermark key and the due tick. */
export interface DueFence {
  key: string;
  due: number;
}

/** A scheduled fire offered for a due tick the contract's transitions already hold: nothing was written. */
export class FireAlreadyStoredError extends Error {
  constructor(
    readonly contractId: string,
    readonly due: number,
  ) {
    super(`contract ${contractId} has fired for due tick ${due} already`);
    this.name = 'FireAlreadyStoredError';
  }
}

/** Tries of a fenced append whose contract gained rows meanwhile (each try reads them), before it gives up. */
const FENCE_TRIES = 16;

const holdsDue = (row: TransitionRecord | undefined, fence: DueFence) =>
  row !== undefined && (row.watermarks[fence.key] ?? Number.NEGATIVE_INFINITY) >= fence.due;

/**
 * Contract persistence over the storage port, and the only module that names its collection and logs:
 * records in a document collection (written only on create, edit and control operations), and per
 * machine two append-only logs, transitions and versions, whose row type is the contract id. A
 * contract's runtime state (current state, fire count, watermarks) is carried by its last transition
 * row, so a fire costs one log append and no document rewrite; it is cached in memory once read. That
 * cache is the one piece of state a repository holds here: the contracts core builds one repository
 * and fires through it; other modules only read records and rows.
 */
export interface ContractRepository {
  get(id: string): Promise<ContractRecord | undefined>;
  /**
   * Stores a new contract with the next ordinal (its place in creation order), after its listener index
   * entries; fails with `DuplicateKeyError` when the id exists.
   */
  insert(record: ContractRecord): Promise<void>;
  /**
   * Read-modify-write of one contract (callers serialize per contract). When the machines its definition
   * listens to change, entries for the new ones are written before the record, and those of machines it
   * no longer listens to are dropped after it. The ordinal is kept whatever `fn` returns.
   */
  update(id: string, fn: (current: ContractRecord) => ContractRecord | undefined): Promise<ContractRecord | undefined>;
  /**
   * The contracts on other machines whose event triggers listen to `slug`, in creation order (any
   * status): read from the listener index, then each candidate's record, never the collection.
   * Waits for `listenersReady`.
   */
  listeners(slug: string): Promise<ContractRecord[]>;
  /**
   * Enters the contracts stored before the listener index existed (once per store: later calls find
   * the marker). Idempotent, so processes sharing a store may run it at once.
   */
  listenersReady(): Promise<void>;
  /** The walk of `listenersReady` whatever the marker says: for a store whose contracts were just copied in. */
  backfillListeners(): Promise<void>;
  /** The contracts of one machine, in creation order, optionally only those of a status or template (bounded by the machine's quota). */
  bySlug(slug: string, where?: { status?: string; template_id?: string }): Promise<ContractRecord[]>;
  /** The contracts of a status, in creation order (the threat mesh's followers: every active contract). */
  withStatus(status: ContractRecord['status']): Promise<ContractRecord[]>;
  /**
   * The contracts (of a machine, of a template, when given) newest first, a page at a time, with each
   * one's position (see `keysetPage`): `next` is present when more follow. Read from the insertion
   * order's index, never the collection.
   */
  newest(where: { slug?: string; template_id?: string }, page: { limit: number; after?: string | undefined }): Promise<DocPage<ContractRecord>>;
  /**
   * Every contract (that passes `filter`), in creation order. A whole-collection read: for the
   * scheduler's start and its periodic re-read.
   */
  list(filter?: (c: ContractRecord) => boolean): Promise<ContractRecord[]>;
  runtime(record: ContractRecord): Promise<Runtime>;
  /** Drops the cached runtime: another process sharing the store may have fired the contract since. */
  forget(id: string): void;
  /**
   * Appends a transition row linked to the contract's previous row; callers serialize per contract.
   * With `fence` (a scheduled fire), exactly once per due tick is checked in the data, whatever the
   * locks did: the store writes the row only while the contract's last row is the one it was built on,
   * and a contract whose transitions already hold the due tick refuses it with `FireAlreadyStoredError`,
   * writing nothing.
   */
  appendTransition(record: ContractRecord, draft: TransitionDraft, fence?: DueFence): Promise<TransitionRecord>;
  /** The contract's rows, oldest first, after a machine-stream seq, up to `limit`. */
  transitions(record: ContractRecord, query: { afterSeq?: number; fromTick?: number; limit: number }): Promise<TransitionRecord[]>;
  /** The contract's most recent rows, newest first. */
  recentTransitions(record: ContractRecord, limit: number): Promise<TransitionRecord[]>;
  appendVersion(record: ContractRecord, version: VersionFields): Promise<VersionRecord>;
  versions(record: ContractRecord): Promise<VersionRecord[]>;
  /** Rows of every contract of a machine, in append order (audit recovery, checks). */
  machineTransitions(slug: string, query?: LogQuery): Promise<TransitionRecord[]>;
  /** How many transition rows a machine's contracts have written. */
  transitionCount(slug: string): Promise<number>;
  /** The machines whose contracts have written at least one transition row. */
  slugsWithTransitions(): Promise<string[]>;
}

export function createContractRepository(store: Store): ContractRepository {
  const cache = new Map<string, Runtime>();
  /** Runtimes read or written in the lock transaction the caller runs in, before `cache` may learn them. */
  const inTransaction = scopeMemo<Runtime>();
  const learn = (id: string, row: TransitionRecord) => {
    const rt = runtimeAfter(row);
    inTransaction.set(id, rt);
    afterCommit(() => cache.set(id, rt));
  };

  async function runtime(record: ContractRecord): Promise<Runtime> {
    const cached = cache.get(record.id) ?? inTransaction.get(record.id);
    if (cached) return cached;
    const [last] = await readTransitions(transitionsStream(record.slug), { types: [record.id], reverse: true, limit: 1 });
    const rt = last ? runtimeAfter(last) : freshRuntime(record);
    // Read inside a lock's transaction it may show that transaction's own rows: cached once they committed,
    // and until then for the rest of the transaction (the contract's lock keeps other writers out).
    inTransaction.set(record.id, rt);
    afterCommit(() => cache.set(record.id, rt));
    return rt;
  }

  const get = (id: string) => store.docs.get<ContractRecord>(CONTRACTS, id);
  const putEntries = (contractId: string, ordinal: number, slugs: Iterable<string>) =>
    Promise.all([...slugs].map((slug) => store.docs.put<ListenerEntry>(LISTENERS, entryId(slug, contractId), { slug, contract_id: contractId, ordinal })));

  /**
   * Walks the contracts in insertion order: one stored before ordinals existed is the n-th contract of
   * the collection (every later one was inserted after it), so its ordinal is its position n. Entries
   * first, then the ordinal on the record; a walk cut short is simply walked again.
   */
  async function backfillListeners(): Promise<void> {
    let position = 0;
    let after: string | undefined;
    do {
      const page = await store.docs.find<ContractRecord>(CONTRACTS, {}, { limit: WALK_PAGE, ...(after === undefined ? {} : { after }) });
      await Promise.all(
        page.items.map(async (record, i) => {
          const ordinal = record.ordinal ?? position + i;
          await putEntries(record.id, ordinal, listened(record));
          if (record.ordinal === undefined) {
            await store.docs.update<ContractRecord>(CONTRACTS, record.id, (c) => (c !== undefined && c.ordinal === undefined ? { ...c, ordinal } : undefined));
          }
        }),
      );
      position += page.items.length;
      after = page.next;
    } while (after !== undefined);
    await store.docs.put(LISTENERS, BACKFILLED, { backfilled: true });
  }

  const listenersReady = onceUnlessFailed(async () => {
    if ((await store.docs.get(LISTENERS, BACKFILLED)) === undefined) await backfillListeners();
  });

  /** The contract's ordinal, once the backfill gave it one when it was stored before ordinals existed. */
  async function ordinalOf(record: ContractRecord): Promise<number> {
    if (record.ordinal !== undefined) return record.ordinal;
    await listenersReady();
    const ordinal = (await get(record.id))?.ordinal;
    if (ordinal === undefined) throw new Error(`contract ${record.id} has no ordinal after the listener backfill`);
    return ordinal;
  }

  /** The transition row, sealed on `previous` and `head` (see appendTransition). */
  function sealed(record: ContractRecord, draft: TransitionDraft, previous: Runtime, head: TransitionRecord | undefined): RowInput<TransitionRecord> {
    // Ticks never decrease along the log, even if the wall clock steps back.
    const tick = Math.max(draft.tick_number, head?.tick ?? 0);
    const n = previous.n + 1;
    const unsealed = {
      ...draft,
      tick_number: tick,
      type: record.id,
      tick,
      id: `${record.id}:${n}`,
      n,
      prev_hash: previous.last?.state_hash ?? contractGenesis(record.id, record.created_tick),
    };
    return { ...unsealed, state_hash: transitionHash(unsealed) } as RowInput<TransitionRecord>;
  }

  /**
   * The second fence of a scheduled fire (the first is the contract's lock): the row is stored only if
   * the contract's last row is still the one read here, which the store checks under the stream's lock
   * (rows other contracts of the machine appended meanwhile do not matter). So the first try may build
   * on the runtime the fire already read, and a stale one costs a refusal, not a second fire: when another
   * row of the contract came in (another process fired it), it is read, and tells whether the due tick fired.
   */
  async function appendFenced(record: ContractRecord, draft: TransitionDraft, fence: DueFence): Promise<TransitionRecord> {
    const stream = transitionsStream(record.slug);
    for (let tries = 1; ; tries++) {
      const last = tries === 1 ? (await runtime(record)).last : (await readTransitions(stream, { types: [record.id], reverse: true, limit: 1 }))[0];
      // Watermarks only grow along a contract's rows: a due tick an older row holds, every newer one holds.
      if (holdsDue(last, fence)) throw new FireAlreadyStoredError(record.id, fence.due);
      const previous = last ? runtimeAfter(last) : freshRuntime(record);
      try {
        const row = wholeTransition(
          await store.logs.append<TransitionRecord>(stream, (head) => storedTransition(sealed(record, draft, previous, head)), {
            type: record.id,
            lastSeq: last?.seq ?? -1,
          }),
        );
        learn(record.id, row);
        return row;
      } catch (error) {
        if (!(error instanceof LastOfTypeMovedError) || tries >= FENCE_TRIES) throw error;
      }
    }
  }

  const readTransitions = async (stream: string, query?: LogQuery) => (await store.logs.read<TransitionRecord>(stream, query)).map(wholeTransition);

  return {
    get,
    async insert(record) {
      await store.locks.run(ORDINAL_LOCK, async () => {
        // Checked first: entries written for a duplicate id would re-number the stored contract's.
        const [existing, counter] = await Promise.all([get(record.id), store.docs.get<{ next: number }>(LISTENERS, NEXT_ORDINAL)]);
        if (existing !== undefined) throw new DuplicateKeyError(CONTRACTS, record.id);
        // The first ordinal is the number of contracts stored before ordinals existed (the backfill numbers those 0 to n-1).
        const ordinal = counter?.next ?? (await store.docs.count(CONTRACTS));
        // Entries (and the counter) before the record: a crash between leaves entries of no contract, which
        // reads skip, and at worst an ordinal taken again by the next contract, beside those stale entries.
        await Promise.all([store.docs.put(LISTENERS, NEXT_ORDINAL, { next: ordinal + 1 }), putEntries(record.id, ordinal, listened(record))]);
        await store.docs.insert(CONTRACTS, record.id, { ...record, ordinal });
      });
    },

    async update(id, fn) {
      const before = await get(id);
      if (before === undefined) return undefined;
      const was = listened(before);
      const preview = fn(before);
      const added = preview === undefined ? [] : [...listened(preview)].filter((slug) => !was.has(slug));
      if (added.length > 0) await putEntries(id, await ordinalOf(before), added);
      const saved = await store.docs.update<ContractRecord>(CONTRACTS, id, (current) => {
        const next = current === undefined ? undefined : fn(current);
        return next !== undefined && next.ordinal === undefined && current!.ordinal !== undefined ? { ...next, ordinal: current!.ordinal } : next;
      });
      if (saved === undefined) return undefined;
      const now = listened(saved);
      if (now.size !== was.size || [...now].some((slug) => !was.has(slug))) {
        // What is stored decides: entries it needs that are missing (fn saw another record) are written,
        // those of machines it no longer listens to dropped (a crash before leaves them stale, and reads skip them).
        const held = (await store.docs.find<ListenerEntry>(LISTENERS, { contract_id: id })).items;
        const missing = [...now].filter((slug) => !held.some((e) => e.slug === slug));
        if (missing.length > 0) await putEntries(id, await ordinalOf(saved), missing);
        await Promise.all(held.filter((e) => !now.has(e.slug)).map((e) => store.docs.delete(LISTENERS, entryId(e.slug, id))));
      }
      return saved;
    },

    async listeners(slug) {
      await listenersReady();
      const entries = (await store.docs.find<ListenerEntry>(LISTENERS, { slug })).items.sort((a, b) => a.ordinal - b.ordinal);
      const found = await Promise.all([...new Set(entries.map((e) => e.contract_id))].map(get));
      // Each candidate's record decides: an entry outliving its contract's listening (or its contract) is skipped.
      return found.filter((c): c is ContractRecord => c !== undefined && c.slug !== slug && listened(c).has(slug));
    },
    listenersReady,
    backfillListeners,
    bySlug: async (slug, where = {}) =>
      (
        await store.docs.find<ContractRecord>(CONTRACTS, {
          slug,
          ...(where.status !== undefined ? { status: where.status } : {}),
          ...(where.template_id !== undefined ? { template_id: where.template_id } : {}),
        })
      ).items,
    withStatus: async (status) => (await store.docs.find<ContractRecord>(CONTRACTS, { status })).items,
    newest: (where, page) =>
      store.docs.find<ContractRecord>(
        CONTRACTS,
        { ...(where.slug !== undefined ? { slug: where.slug } : {}), ...(where.template_id !== undefined ? { template_id: where.template_id } : {}) },
        { newestFirst: true, positions: true, limit: page.limit, ...(page.after === undefined ? {} : { after: page.after }) },
      ),
    list: (filter) => store.docs.list<ContractRecord>(CONTRACTS, filter),
    runtime,
    forget: (id) => {
      cache.delete(id);
      inTransaction.delete(id);
    },

    async appendTransition(record, draft, fence) {
      if (fence !== undefined) return appendFenced(record, draft, fence);
      const previous = await runtime(record);
      const row = wholeTransition(
        await store.logs.append<TransitionRecord>(transitionsStream(record.slug), (head) => storedTransition(sealed(record, draft, previous, head))),
      );
      learn(record.id, row);
      return row;
    },

    async transitions(record, query) {
      return readTransitions(transitionsStream(record.slug), {
        types: [record.id],
        limit: query.limit,
        ...(query.afterSeq !== undefined ? { fromSeq: query.afterSeq + 1 } : {}),
        ...(query.fromTick !== undefined ? { fromTick: query.fromTick } : {}),
      });
    },

    recentTransitions: (record, limit) => readTransitions(transitionsStream(record.slug), { types: [record.id], reverse: true, limit }),

    appendVersion: (record, version) =>
      store.logs.append<VersionRecord>(
        versionsStream(record.slug),
        () => ({ ...version, type: record.id, tick: version.tick_number }) as RowInput<VersionRecord>,
      ),

    versions: (record) => store.logs.read<VersionRecord>(versionsStream(record.slug), { types: [record.id] }),
    machineTransitions: (slug, query) => readTransitions(transitionsStream(slug), query),
    transitionCount: (slug) => store.logs.count(transitionsStream(slug)),
    slugsWithTransitions: async () =>
      (await store.logs.streams(STREAM_PREFIX))
        .filter((s) => s.endsWith(TRANSITIONS_SUFFIX))
        .map((s) => s.slice(STREAM_PREFIX.length, -TRANSITIONS_SUFFIX.length)),
  };
}
