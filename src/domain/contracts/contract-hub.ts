import { EventEmitter } from 'node:events';
import { afterCommit } from '../../lib/commit-scope.js';
import type { EventRecord, TransitionRecord } from './contract.types.js';

/** In-process fan-out of durable contract rows to live streams (published only after the append resolved). */
export interface ContractHub {
  publishTransition(row: TransitionRecord): void;
  publishEvent(slug: string, row: EventRecord): void;
  onTransition(contractId: string, listener: (row: TransitionRecord) => void): () => void;
  onEvent(slug: string, listener: (row: EventRecord) => void): () => void;
}

export function createContractHub(): ContractHub {
  const emitter = new EventEmitter();
  // One listener per open stream; the default cap of 10 would warn under normal use.
  emitter.setMaxListeners(0);
  const on = <T>(name: string, listener: (row: T) => void) => {
    emitter.on(name, listener);
    return () => void emitter.off(name, listener);
  };
  return {
    // Rows written under a store lock reach subscribers once committed (see `lib/commit-scope.ts`).
    publishTransition: (row) => afterCommit(() => void emitter.emit(`t:${row.contract_id}`, row)),
    publishEvent: (slug, row) => afterCommit(() => void emitter.emit(`e:${slug}`, row)),
    onTransition: (id, listener) => on(`t:${id}`, listener),
    onEvent: (slug, listener) => on(`e:${slug}`, listener),
  };
}
