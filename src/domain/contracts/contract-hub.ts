import { EventEmitter } from 'node:events';
import { afterCommit } from '../../lib/commit-scope.js';
import type { EventRecord, TransitionRecord } from './contract.types.js';

/** In-process fan-out of durable contract rows to live streams (published only after the append resolved). */
export interface ContractHub {
  /** A transition row of a contract on machine `slug`. */
  publishTransition(row: TransitionRecord, slug: string): void;
  publishEvent(slug: string, row: EventRecord): void;
  /** Listens to one contract's transitions; `slug` is its machine (whose transition log the row is in). */
  onTransition(contractId: string, slug: string, listener: (row: TransitionRecord) => void): () => void;
  onEvent(slug: string, listener: (row: EventRecord) => void): () => void;
  /** Machines with a live listener here: whose events, or a contract's transitions, are streamed. */
  listened(): { events: string[]; transitions: string[] };
  /** A stream of the machine's `log` starts after `seq` (what a relay catches up from after an outage). */
  started(log: 'events' | 'transitions', slug: string, seq: number): void;
  /** Told of every `started`. */
  onStarted(cb: (log: 'events' | 'transitions', slug: string, seq: number) => void): void;
}

export function createContractHub(): ContractHub {
  const emitter = new EventEmitter();
  // One listener per open stream; the default cap of 10 would warn under normal use.
  emitter.setMaxListeners(0);
  const counts = { events: new Map<string, number>(), transitions: new Map<string, number>() };
  const starts: Array<(log: 'events' | 'transitions', slug: string, seq: number) => void> = [];
  const on = <T>(name: string, log: keyof typeof counts, slug: string, listener: (row: T) => void) => {
    emitter.on(name, listener);
    counts[log].set(slug, (counts[log].get(slug) ?? 0) + 1);
    let off = false;
    return () => {
      if (off) return;
      off = true;
      emitter.off(name, listener);
      const n = (counts[log].get(slug) ?? 1) - 1;
      if (n <= 0) counts[log].delete(slug);
      else counts[log].set(slug, n);
    };
  };
  return {
    // Rows written under a store lock reach subscribers once committed (see `lib/commit-scope.ts`).
    publishTransition: (row) => afterCommit(() => void emitter.emit(`t:${row.contract_id}`, row)),
    publishEvent: (slug, row) => afterCommit(() => void emitter.emit(`e:${slug}`, row)),
    onTransition: (id, slug, listener) => on(`t:${id}`, 'transitions', slug, listener),
    onEvent: (slug, listener) => on(`e:${slug}`, 'events', slug, listener),
    listened: () => ({ events: [...counts.events.keys()], transitions: [...counts.transitions.keys()] }),
    started: (log, slug, seq) => {
      for (const cb of starts) cb(log, slug, seq);
    },
    onStarted: (cb) => void starts.push(cb),
  };
}
