import { afterCommit } from '../lib/commit-scope.js';
import type { LastOfType, LogRow, RowInput, Store } from './port.js';

/** Told of every row a log append wrote: the backend, the stream and the row's sequence number. */
export type AppendObserver = (backend: Store['backend'], stream: string, seq: number) => void;

/**
 * The store with every log append reported to `observe`: one wrapper for every adapter instead of a
 * counter in each. Everything else is the adapter's own object, methods bound to it.
 */
export function observeAppends(store: Store, observe: AppendObserver): Store {
  const logs = new Proxy(store.logs, {
    get(target, prop) {
      if (prop === 'append') {
        return async <R extends LogRow>(stream: string, build: (head: R | undefined, seq: number) => RowInput<R>, expect?: LastOfType) => {
          const row = await target.append<R>(stream, build, expect);
          // Counted once committed: an append under a lock that then rolls back was never written.
          afterCommit(() => observe(store.backend, stream, row.seq));
          return row;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'logs') return logs;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
