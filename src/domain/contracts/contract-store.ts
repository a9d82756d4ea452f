import { sha256Hex, digestOf } from '../../lib/hash.js';
import type { RowInput, Store } from '../../storage/port.js';
import {
  CONTRACTS,
  transitionsStream,
  versionsStream,
  type ContractRecord,
  type Definition,
  type Runtime,
  type TransitionFields,
  type TransitionRecord,
  type VersionFields,
  type VersionRecord,
} from './contract.types.js';

/** The fields of a transition row the engine decides; the store adds position and hash links. */
export type TransitionDraft = Omit<TransitionFields, 'id' | 'n' | 'prev_hash' | 'state_hash'>;

/**
 * Contract persistence over the storage port: records in the `contracts` document collection (written
 * only on create, edit and control operations), and per machine two append-only logs, transitions and
 * versions, whose row type is the contract id. A contract's runtime state (current state, fire count,
 * watermarks) is carried by its last transition row, so a fire costs one log append and no document
 * rewrite; it is cached in memory once read.
 */
export interface ContractStore {
  get(id: string): Promise<ContractRecord | undefined>;
  insert(record: ContractRecord): Promise<void>;
  update(id: string, fn: (current: ContractRecord) => ContractRecord | undefined): Promise<ContractRecord | undefined>;
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
}

/** The `prev_hash` of a contract's first transition row. */
export function contractGenesis(id: string, createdTick: number): string {
  return sha256Hex(`core-contract|${id}|${createdTick}`);
}

/** `state_hash` of a transition row: SHA-256 of its canonical JSON without `seq` and `state_hash`. */
export function transitionHash(row: Record<string, unknown>): string {
  const { seq: _seq, state_hash: _hash, ...rest } = row;
  return digestOf(rest);
}

export function initialState(definition: Definition): string {
  return Object.keys(definition.states).find((name) => definition.states[name]?.initial === true)!;
}

export function freshRuntime(record: ContractRecord): Runtime {
  return { state: initialState(record.definition), entered_tick: record.created_tick, fire_count: 0, watermarks: {}, n: 0, last: undefined };
}

export function runtimeAfter(row: TransitionRecord): Runtime {
  return { state: row.to_state, entered_tick: row.entered_tick, fire_count: row.fire_count, watermarks: row.watermarks, n: row.n, last: row };
}

export function createContractStore(store: Store): ContractStore {
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

    recentTransitions: (record, limit) =>
      store.logs.read<TransitionRecord>(transitionsStream(record.slug), { types: [record.id], reverse: true, limit }),

    appendVersion: (record, version) =>
      store.logs.append<VersionRecord>(versionsStream(record.slug), () => ({ ...version, type: record.id, tick: version.tick_number }) as RowInput<VersionRecord>),

    versions: (record) => store.logs.read<VersionRecord>(versionsStream(record.slug), { types: [record.id] }),
  };
}
