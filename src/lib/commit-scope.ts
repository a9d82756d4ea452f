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
