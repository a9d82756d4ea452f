import { EventEmitter } from 'node:events';
import { afterCommit } from './commit-scope.js';

/** An in-process bus whose event names and payloads are `E`'s keys and values. */
export interface Bus<E> {
  emit<K extends keyof E & string>(name: K, payload: E[K]): void;
  on<K extends keyof E & string>(name: K, listener: (payload: E[K]) => void): () => void;
}

export function createBus<E>(): Bus<E> {
  const emitter = new EventEmitter();
  // Streams subscribe per client; the default cap of 10 would warn under normal load.
  emitter.setMaxListeners(0);
  return {
    // An event announces a write: one made under a store lock is announced once it committed, never if it rolled back.
    emit: (name, payload) => {
      afterCommit(() => emitter.emit(name, payload));
    },
    on: (name, listener) => {
      const untyped = listener as (payload: unknown) => void;
      emitter.on(name, untyped);
      return () => emitter.off(name, untyped);
    },
  };
}
