/**
 * The storage port. Domain services depend on this interface only; adapters (lowdb files, PostgreSQL)
 * implement it and all run the one contract suite in `test/store/`.
 *
 * Two kinds of data:
 * - documents: collections of JSON records addressed by (collection, id), queried by id or by field equality;
 * - logs: append-only streams of rows (audit chains, transitions, events, runs), never updated or deleted.
 */
export interface Store {
  readonly backend: StoreBackend;
  readonly docs: DocStore;
  readonly logs: LogStore;
  /** Named locks held across every process sharing this store (one process for lowdb). */
  readonly locks: LockStore;
  /** Messages between the processes sharing this store (none but this one for lowdb). */
  readonly pubsub: PubSub;
  /** Opens files or connections; reads indexes. Resolves when the store is ready to serve. */
  open(): Promise<void>;
  /** Waits for in-flight writes, then releases files or connections. Idempotent. */
  close(): Promise<void>;
  /** True between a successful `open` and `close`. */
  isOpen(): boolean;
  /**
   * What the store knows of its own health, without I/O (readiness reads it on every probe): whether it
   * can serve now and, per dependency, whether it is up. Adapters update it from what their connections
   * and files report (a refused connection, a dropped session, a full disk), and again when they recover.
   */
  status(): StoreStatus;
}

export type StoreBackend = 'lowdb' | 'postgres';

/** What readiness, health and metrics read of a store: no documents, logs, locks or messages. */
export type StoreHealth = Pick<Store, 'backend' | 'isOpen' | 'status'>;

/** A dependency of a store and its state, as `Store.status` reports it. */
export interface StoreCheck {
  ok: boolean;
  /** What is wrong, said for an operator (never a secret, never a connection string). */
  detail?: string;
  /** Epoch ms of the last change of `ok`. */
  since_ms?: number;
  /** How often the dependency was lost since the store opened (PostgreSQL `session`), for metrics. */
  losses?: number;
  /** How many calls failed for want of the dependency since the store opened (PostgreSQL `database`). */
  failures?: number;
}

export interface StoreStatus {
  /** False while a dependency the store cannot serve without is down. */
  ready: boolean;
  /** Per dependency: `database`, `session` (PostgreSQL); `disk` (lowdb). */
  checks: Record<string, StoreCheck>;
}

/**
 * Thrown by an adapter when the store cannot do the operation now for a reason outside the caller's
 * request (the database refuses connections or dropped mid-statement; the disk is full). Nothing of the
 * refused operation is stored. Answered 503 (`retryAfterS` as Retry-After), never 500.
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly reason: 'unreachable' | 'full',
    message: string,
    readonly retryAfterS = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface DocStore {
  get<T extends object>(collection: string, id: string): Promise<T | undefined>;
  /** Inserts; fails with `DuplicateKeyError` when the id exists. */
  insert<T extends object>(collection: string, id: string, value: T): Promise<void>;
  /** Inserts or replaces. */
  put<T extends object>(collection: string, id: string, value: T): Promise<void>;
  /**
   * Read-modify-write without lost updates: `fn` sees the current value (or undefined) and returns the
   * next one, or `undefined` to leave the record as it is. Concurrent updates of one id are serialized.
   * Returns what is stored afterwards.
   */
  update<T extends object>(collection: string, id: string, fn: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  /** Deletes; returns whether something was deleted. */
  delete(collection: string, id: string): Promise<boolean>;
  /**
   * Compare-and-delete: deletes the record only if `predicate` holds for it as stored at that moment
   * (no other write of the record can come between the check and the delete, from any process sharing
   * the store). Returns whether something was deleted; false when the record is missing or does not match.
   */
  deleteIf<T extends object>(collection: string, id: string, predicate: (current: T) => boolean): Promise<boolean>;
  /** Every record of a collection, in insertion order (integer-like ids excepted on lowdb), optionally filtered. */
  list<T extends object>(collection: string, filter?: (value: T) => boolean): Promise<T[]>;
  /** How many records the collection holds, or (with `where`, checked as `find` checks it) how many match. */
  count(collection: string, where?: DocWhere): Promise<number>;
  /**
   * The records whose top-level fields equal every value of `where` (an empty `where` matches every
   * record), in insertion order, a page at a time: at most `limit` records (all when absent) following
   * the record the `after` cursor points at. `next` is the cursor of the page's last record, present
   * only when more matching records follow. Answered from an index on both adapters (lowdb: in-memory
   * indexes built on first use and kept on write; PostgreSQL: a GIN index), never by reading the
   * collection. A cursor stays valid while its record exists, across writes and restarts.
   *
   * With `orderBy`, the records come in the order of one top-level numeric field instead (ties in
   * insertion order, both reversed by `desc`), and only records whose field holds a number are returned.
   * Its cursor is a position in that order: the next page starts after it even if its record changed or
   * went. Both adapters walk the field's index and check `where` on each record it yields: suited to
   * values that are common among the ordered records. lowdb keeps a sorted in-memory index per ordered
   * field; PostgreSQL answers from the btree
   * index of migration 3 for the fields it names (`genesis_tick`, `last_tick`, `signed_tick`), and correctly but by
   * sorting the matches for any other field.
   */
  find<T extends object>(collection: string, where: DocWhere, page?: DocPageRequest): Promise<DocPage<T>>;
}

/**
 * Field equality: top-level field name to the value it must hold. Only strings (without U+0000, which
 * PostgreSQL cannot index), finite numbers and booleans are matched; a record whose field holds an
 * object, array or null never matches.
 */
export type DocWhere = Readonly<Record<string, string | number | boolean>>;

export interface DocPageRequest {
  /** Most records to return: a positive integer. */
  limit?: number;
  /** A `next` cursor from an earlier page of the same collection and `orderBy`. */
  after?: string;
  /** Order by this numeric field (a plain name: letters, digits, `_`) instead of insertion order. */
  orderBy?: DocOrder;
  /**
   * Reverse insertion order: the latest inserted first (not with `orderBy`, whose `desc` does that).
   * Its cursors are positions in insertion order, like those of the forward order.
   */
  newestFirst?: boolean;
  /**
   * Also say where each returned record sits (`DocPage.positions`), so a caller can continue right
   * after any one of them: a list that filters what it reads hands out the position of the last record
   * it showed, never that of one it left out.
   */
  positions?: boolean;
}

export interface DocOrder {
  field: string;
  /** Highest first (and, among equal values, the latest inserted first). */
  desc?: boolean;
  /**
   * Without `after`: start at the first record whose field is at `from` or beyond it in this order
   * (at most `from` when `desc`, at least `from` otherwise), every record of that value included. A
   * keyset whose ties are broken by something the store does not order by starts over at the tie's value.
   */
  from?: number;
  /**
   * Stop after the last record whose field is at `to` or before it in this order (at least `to` when
   * `desc`, at most `to` otherwise), every record of that value included: `next` is then present only
   * while more records within the bound follow, so a page never reads past it.
   */
  to?: number;
}

export interface DocPage<T> {
  items: T[];
  /** Present when more matching records follow: pass it as `after` for the next page. */
  next?: string;
  /**
   * With `positions` asked: where each record of `items` sits, in the same order. Passed as `after`,
   * one continues right after its record, as `next` does after the last one (the last position equals
   * `next` when that is present).
   */
  positions?: string[];
}

/** A stored log row: `seq` is assigned by the store, 0-based and gap-free per stream. */
export interface LogRow {
  seq: number;
  tick: number;
  type: string;
  [key: string]: unknown;
}

/** A row as `build` returns it: every named field of the row but `seq` (`Omit` would drop them all, LogRow being indexable). */
export type RowInput<R> = { [K in keyof R as K extends 'seq' ? never : K]: R[K] };

export interface LogQuery {
  /** Lowest seq to return (inclusive). */
  fromSeq?: number;
  /** Highest seq to return (inclusive). */
  toSeq?: number;
  /** Lowest tick to return (inclusive). */
  fromTick?: number;
  /** Highest tick to return (inclusive). */
  toTick?: number;
  /** Only rows of these types (an empty list matches no row). */
  types?: string[];
  /** Newest first when true. */
  reverse?: boolean;
  limit?: number;
}

/** An append's condition (see `LogStore.append`): the stream's last row of `type` is at `lastSeq`, -1 for none. */
export interface LastOfType {
  type: string;
  lastSeq: number;
}

/** What `LogStore.tally` reports for one stream. */
export interface LogTally {
  rows: number;
  lastTick: number;
}

export interface LogStore {
  /**
   * Appends one row. `build` runs while the stream is locked and receives the current last row (or
   * undefined for an empty stream) and the seq the new row will have, so a hash chain can link to it;
   * two concurrent appends never see the same head. Resolves once the row is durable. An append that
   * `build` itself makes to another stream (a chain row's payload row) may be stored in the same
   * transaction as the row being built (PostgreSQL does this: both or neither), never before it.
   * `build` may run more than once (PostgreSQL builds on the head it remembers, and builds again on the
   * locked one if another process moved it); only the last run's row is stored, appends made by earlier
   * runs are rejected as superseded, and what `build` refused counts only from that last run.
   * `build` must not change `head`: it may be the very row an earlier append resolved with.
   * Inside a lock's `fn` (PostgreSQL) the row is written in that work's transaction: the append resolves
   * once written there, and the row is durable, and seen by others, once `fn`'s work committed.
   * With `expect`, the store checks under the stream's lock, before `build` runs, that the stream's
   * last row of `expect.type` (rows not yet durable included) is still at `expect.lastSeq` (-1: none);
   * if not, it rejects with `LastOfTypeMovedError` and writes nothing. Unlike a check in `build`,
   * rows of other types appended meanwhile do not matter.
   */
  append<R extends LogRow>(stream: string, build: (head: R | undefined, seq: number) => RowInput<R>, expect?: LastOfType): Promise<R>;
  /** Last row of a stream. */
  head<R extends LogRow>(stream: string): Promise<R | undefined>;
  count(stream: string): Promise<number>;
  /**
   * For each of `streams` holding rows at tick `fromTick` or later: how many (as `read` with `fromTick`
   * would return) and the highest tick among them. Streams without such rows are left out. Answered
   * from the stores' indexes in one round trip, without reading rows.
   */
  tally(streams: readonly string[], fromTick: number): Promise<Map<string, LogTally>>;
  /** How many rows the streams whose names start with `prefix` hold together (`count` summed). */
  countUnder(prefix: string): Promise<number>;
  get<R extends LogRow>(stream: string, seq: number): Promise<R | undefined>;
  read<R extends LogRow>(stream: string, query?: LogQuery): Promise<R[]>;
  /** Names of every stream that has at least one row, optionally those starting with `prefix`. */
  streams(prefix?: string): Promise<string[]>;
}

/** What `tryRun` did: ran `fn` (and what it returned), or found the key held elsewhere and did nothing. */
export type TryRunResult<T> = { ran: true; value: T } | { ran: false };

/**
 * Store-wide locks. The writes `fn` makes through the store commit only while its lock is held: on
 * PostgreSQL the lock is taken in the transaction that does `fn`'s writes (every `docs`, `logs` call and
 * `pubsub.publish` made by `fn` joins it), so a holder whose connection dies loses the lock and its
 * writes together: nothing of `fn` is stored, and its call rejects (`StoreUnavailableError` when the
 * connection broke). The same holds when `fn` throws: nothing of it is stored. Reads inside `fn` see its
 * own writes; other callers see them once `fn` returned. Locks taken inside `fn` are re-entrant (a key
 * held already runs at once). Effects in this process meant to follow a write made under a lock are
 * registered with `afterCommit` (`lib/commit-scope.ts`). lowdb: one process, in-memory locks, writes
 * as they are made.
 */
export interface LockStore {
  /**
   * Runs `fn` holding `key` against every process sharing the store, or returns `{ ran: false }` at once
   * when another holder has it. A holder that dies releases its locks, and its writes under them roll back.
   * `lost` aborts when the lock is lost while `fn` runs (PostgreSQL: its connection died, so the database
   * freed the lock and nothing of `fn` will commit); a holder that waits for something else, such as
   * one that holds a lock for a long time, listens to it. Never aborts for a store one process opens.
   */
  tryRun<T>(key: string, fn: (lost: AbortSignal) => Promise<T>): Promise<TryRunResult<T>>;
  /** Runs `fn` holding `key`, waiting for other holders first (without holding a connection meanwhile). */
  run<T>(key: string, fn: (lost: AbortSignal) => Promise<T>): Promise<T>;
}

export interface PubSub {
  /**
   * Sends `payload` to the subscribers of `channel` in every process sharing the store, this one
   * included; best effort (a message sent while a process reconnects is lost to it), in order per sender.
   * Published inside a lock's `fn`, it is sent when that work commits, and never if it rolls back.
   */
  publish(channel: string, payload: Json): void;
  /** Calls `cb` with each message on `channel` from any process; returns the unsubscribe function. */
  subscribe(channel: string, cb: (payload: Json) => void): () => void;
  /**
   * Calls `cb` each time the messaging connection came back after it was lost (never for lowdb): what
   * was published meanwhile is lost to this process, so a reader catches up from the store. The
   * connection is reopened for as long as the store is open, however long the outage. Returns the
   * unsubscribe function.
   */
  onResume(cb: () => void): () => void;
}

/** A `find` cursor that no page of this store handed out. */
export class InvalidCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`not a cursor this store handed out: ${JSON.stringify(cursor)}`);
    this.name = 'InvalidCursorError';
  }
}

export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`${collection}/${id} already exists`);
    this.name = 'DuplicateKeyError';
  }
}

/** An append whose `expect` no longer held: a row of its type came in after `lastSeq`. Nothing was written. */
export class LastOfTypeMovedError extends Error {
  constructor(
    readonly stream: string,
    readonly expect: LastOfType,
  ) {
    super(`log ${stream}: the last row of type ${JSON.stringify(expect.type)} is no longer at seq ${expect.lastSeq}`);
    this.name = 'LastOfTypeMovedError';
  }
}
