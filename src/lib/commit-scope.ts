import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * In-process effects of a write (an event emitted for stream subscribers, a cache learning a row) held
 * back until the write is committed. A store whose locked work runs in one database transaction opens
 * a scope around that work: effects registered inside it run once the transaction committed and are
 * dropped if it rolled back, so nobody in this process is told of a row the database never kept.
 * Outside a scope (lowdb, work under no lock) an effect runs at once.
 */
export interface CommitScope {
  /** Runs `work` inside the scope: `afterCommit` calls made by it (and what it starts) are held. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** The work committed: runs the held effects in order (one that throws does not stop the others). */
  commit(): void;
  /** The work rolled back: drops the held effects. */
  discard(): void;
}

interface Held {
  effects: Array<() => void>;
  open: boolean;
  /** What `scopeMemo`s remembered in this scope, per memo. */
  memos?: WeakMap<object, Map<string, unknown>>;
}

const current = new AsyncLocalStorage<Held>();

/** Opens a scope; see `CommitScope`. */
export function openCommitScope(): CommitScope {
  const held: Held = { effects: [], open: true };
  return {
    run: (work) => current.run(held, work),
    commit() {
      held.open = false;
      const effects = held.effects.splice(0);
      for (const effect of effects) {
        try {
          effect();
        } catch (error) {
          // An effect is a notification: its failure must not turn a committed write into a failed one,
          // nor (rethrown) end the process; it is said on stderr as a process warning.
          process.emitWarning(error instanceof Error ? error : new Error(String(error)), { type: 'CommitEffectError' });
        }
      }
    },
    discard() {
      held.open = false;
      held.effects.length = 0;
    },
  };
}

/**
 * Runs `effect` once what the caller wrote is committed: at once outside a commit scope (or in one that
 * already ended), after COMMIT inside one, never after ROLLBACK. Effects run in registration order.
 */
export function afterCommit(effect: () => void): void {
  const held = current.getStore();
  if (held === undefined || !held.open) effect();
  else held.effects.push(effect);
}

/**
 * Whether the caller runs in an open commit scope (on PostgreSQL, a lock's transaction): a message it
 * publishes goes out with the COMMIT, in its round trip, rather than in one of its own.
 */
export function inCommitScope(): boolean {
  const held = current.getStore();
  return held !== undefined && held.open;
}

/**
 * Values remembered for the life of the open commit scope the caller runs in (one lock transaction):
 * what the work read once, and nothing outside the transaction can change while it holds its lock, it
 * need not read again. Outside a scope nothing is remembered. The work keeps it true: what it writes,
 * it `set`s or `delete`s.
 */
export function scopeMemo<V>(): { get(key: string): V | undefined; set(key: string, value: V): void; delete(key: string): void } {
  const self = {};
  const entries = (create: boolean): Map<string, unknown> | undefined => {
    const held = current.getStore();
    if (held === undefined || !held.open) return undefined;
    let map = held.memos?.get(self);
    if (map === undefined && create) (held.memos ??= new WeakMap()).set(self, (map = new Map()));
    return map;
  };
  return {
    get: (key) => entries(false)?.get(key) as V | undefined,
    set: (key, value) => void entries(true)?.set(key, value),
    delete: (key) => void entries(false)?.delete(key),
  };
}
