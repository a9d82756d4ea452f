import type { DocPage, LogQuery, RowInput, Store } from '../../storage/port.js';
import { contractGenesis, freshRuntime, runtimeAfter, transitionHash } from './contract-runtime.js';
import type { ContractRecord, Runtime, TransitionFields, TransitionRecord, VersionFields, VersionRecord } from './contract.types.js';

const CONTRACTS = 'contracts';
const STREAM_PREFIX = 'contracts/';
const TRANSITIONS_SUFFIX = '/transitions';
const transitionsStream = (slug: string) => `${STREAM_PREFIX}${slug}${TRANSITIONS_SUFFIX}`;
const versionsStream = (slug: string) => `${STREAM_PREFIX}${slug}/versions`;

/** The fields of a transition row the engine decides; the store adds position and hash links. */
export type TransitionDraft = Omit<TransitionFields, 'id' | 'n' | 'prev_hash' | 'state_hash'>;

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
  insert(record: ContractRecord): Promise<void>;
  update(id: string, fn: (current: ContractRecord) => ContractRecord | undefined): Promise<ContractRecord | undefined>;
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
   * scheduler's start and its periodic re-read, and the public directory's subscribers.
   */
  list(filter?: (c: ContractRecord) => boolean): Promise<ContractRecord[]>;
  runtime(record: ContractRecord): Promise<Runtime>;
  /** Drops the cached runtime: another process sharing the store may have fired the contract since. */
  forget(id: string): void;
  /** Appends a transition row linked to the contract's previous row; callers serialize per contract. */
  appendTransition(record: ContractRecord, draft: TransitionDraft): Promise<TransitionRecord>;
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

  async function runtime(record: ContractRecord): Promise<Runtime> {
    const cached = cache.get(record.id);
    if (cached) return cached;
    const [last] = await store.logs.read<TransitionRecord>(transitionsStream(record.slug), { types: [record.id], reverse: true, limit: 1 });
    const rt = last ? runtimeAfter(last) : freshRuntime(record);
    cache.set(record.id, rt);
    return rt;
  }

  return {
    get: (id) => store.docs.get<ContractRecord>(CONTRACTS, id),
    insert: (record) => store.docs.insert(CONTRACTS, record.id, record),
    update: (id, fn) => store.docs.update<ContractRecord>(CONTRACTS, id, (current) => (current ? fn(current) : undefined)),
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
    forget: (id) => void cache.delete(id),

    async appendTransition(record, draft) {
      const previous = await runtime(record);
      const n = previous.n + 1;
      const row = await store.logs.append<TransitionRecord>(transitionsStream(record.slug), (head) => {
        // Ticks never decrease along the log, even if the wall clock steps back.
        const tick = Math.max(draft.tick_number, head?.tick ?? 0);
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
      });
      cache.set(record.id, runtimeAfter(row));
      return row;
    },

    async transitions(record, query) {
      return store.logs.read<TransitionRecord>(transitionsStream(record.slug), {
        types: [record.id],
        limit: query.limit,
        ...(query.afterSeq !== undefined ? { fromSeq: query.afterSeq + 1 } : {}),
        ...(query.fromTick !== undefined ? { fromTick: query.fromTick } : {}),
      });
    },

    recentTransitions: (record, limit) => store.logs.read<TransitionRecord>(transitionsStream(record.slug), { types: [record.id], reverse: true, limit }),

    appendVersion: (record, version) =>
      store.logs.append<VersionRecord>(
        versionsStream(record.slug),
        () => ({ ...version, type: record.id, tick: version.tick_number }) as RowInput<VersionRecord>,
      ),

    versions: (record) => store.logs.read<VersionRecord>(versionsStream(record.slug), { types: [record.id] }),
    machineTransitions: (slug, query) => store.logs.read<TransitionRecord>(transitionsStream(slug), query),
    transitionCount: (slug) => store.logs.count(transitionsStream(slug)),
    slugsWithTransitions: async () =>
      (await store.logs.streams(STREAM_PREFIX))
        .filter((s) => s.endsWith(TRANSITIONS_SUFFIX))
        .map((s) => s.slice(STREAM_PREFIX.length, -TRANSITIONS_SUFFIX.length)),
  };
}
