import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { digestOf, sha256Hex } from '../../lib/hash.js';
import type { Store } from '../../storage/port.js';
import { stateHashOf, type ChainRow, type UnsealedRow } from '../chain/hash-chain.js';

/**
 * A node-level audit row: the machine chain's row format (so `verifyChain` checks it) plus the id of
 * what it is about and a small, non-secret detail object that the hash covers.
 */
export interface NodeAuditRow extends ChainRow {
  subject: string;
  detail: Record<string, unknown>;
}

export interface NodeAuditEntry {
  type: string;
  actor_uid: string | null;
  /** What the row is about: a proposal id, a seat id, a uid. */
  subject: string;
  /** Non-secret facts of the step; digested into `payload_digest` and kept in the clear. */
  detail: Record<string, unknown>;
}

/** Hash-chained audit logs of node-wide areas (credits, seats, community operators) that belong to no machine. */
export interface NodeAudit {
  append(stream: string, entry: NodeAuditEntry): Promise<NodeAuditRow>;
}

/** The first row's `prev_hash` of a node-level audit stream. */
export function nodeAuditSeed(stream: string): string {
  return sha256Hex(`core-node-audit|${stream}`);
}

export function createNodeAudit(deps: { store: Store; clock: Clock }): NodeAudit {
  const { store, clock } = deps;
  return {
    append(stream, entry) {
      const now = clock.now();
      return store.logs.append<NodeAuditRow>(stream, (head, seq) => {
        const row: UnsealedRow & { subject: string; detail: Record<string, unknown> } = {
          seq,
          id: `${stream}:${seq}`,
          tick: Math.max(clock.tick(), head?.tick ?? 0),
          type: entry.type,
          transition_id: randomUUID(),
          actor_uid: entry.actor_uid,
          payload_digest: digestOf(entry.detail),
          prev_hash: head?.state_hash ?? nodeAuditSeed(stream),
          created_at: new Date(now).toISOString(),
          subject: entry.subject,
          detail: entry.detail,
        };
        return { ...row, state_hash: stateHashOf(row) };
      });
    },
  };
}
