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

/** The node-wide areas that keep an audit log. */
export type NodeAuditArea = 'credits' | 'contribute' | 'community-operators';

/**
 * Hash-chained audit logs of node-wide areas (credits, seats, community operators) that belong to no
 * machine, one log per area: the only module that names them.
 */
export interface NodeAudit {
  /** Appends a row linked to the area's previous one; resolves once it is durable. */
  append(area: NodeAuditArea, entry: NodeAuditEntry): Promise<NodeAuditRow>;
  /** The area's rows, oldest first. */
  rows(area: NodeAuditArea): Promise<NodeAuditRow[]>;
}

/** The stream of an area's log; its name is also the prefix of row ids and the seed of the chain. */
const streamOf = (area: NodeAuditArea) => `node/${area}`;

/** The first row's `prev_hash` of an area's audit log. */
export function nodeAuditSeed(area: NodeAuditArea): string {
  return sha256Hex(`core-node-audit|${streamOf(area)}`);
}

/** Builds rows at append time, under the log's lock, so it takes the clock beside the store. */
export function createNodeAuditRepository(store: Store, clock: Clock): NodeAudit {
  return {
    rows: (area) => store.logs.read<NodeAuditRow>(streamOf(area)),
    append(area, entry) {
      const stream = streamOf(area);
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
          prev_hash: head?.state_hash ?? nodeAuditSeed(area),
          created_at: new Date(now).toISOString(),
          subject: entry.subject,
          detail: entry.detail,
        };
        return { ...row, state_hash: stateHashOf(row) };
      });
    },
  };
}
