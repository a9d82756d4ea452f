import { EventEmitter } from 'node:events';
import { afterCommit } from './commit-scope.js';

/** Events published inside the process; names follow `noun.verbPast`. */
export interface BusEvents {
  /** `remote`: appended by another process sharing the store (relayed; its own process routes its events). */
  'audit.appended': { slug: string; isPublic: boolean; row: Record<string, unknown>; remote?: boolean };
  /** An OAuth grant was revoked (RFC 7009, or a replayed code or refresh token): open flows of its tokens end. */
  'oauth.grantRevoked': { grantId: string };
}

export interface EventBus {
  emit<K extends keyof BusEvents>(name: K, payload: BusEvents[K]): void;
  on<K extends keyof BusEvents>(name: K, listener: (payload: BusEvents[K]) => void): () => void;
}

export function createEventBus(): EventBus {
  const emitter = new EventEmitter();
  // Streams subscribe per client; the default cap of 10 would warn under normal load.
  emitter.setMaxListeners(0);
  return {
    // An event announces a write: one made under a store lock is announced once it committed, never if it rolled back.
    emit: (name, payload) => {
      afterCommit(() => emitter.emit(name, payload));
    },
    on: (name, listener) => {
      emitter.on(name, listener);
      return () => emitter.off(name, listener);
    },
  };
}
