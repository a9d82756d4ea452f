import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import { writeResult, type ChainService, type RowPayload, type WriteResult } from './chain.service.js';
import type { ChainRow } from './hash-chain.js';
import type { MachineRecord } from './machine.js';
import { createRejectionBudget } from './rejection-budget.js';
import type { ChainLogRepository } from './chain-log-repository.js';

export interface FileRecordInput {
  name: string;
  sha256: string;
  size: number;
  content_type?: string | undefined;
}

export interface ConnectionInput {
  direction: 'inbound' | 'outbound';
  peer_hash: string;
  protocol: string;
  state: 'open' | 'close';
}

export interface RejectionInput {
  slug?: string | undefined;
  reason: string;
  code?: string | undefined;
  payload_digest?: string | undefined;
  source?: string | undefined;
}

export interface DecryptInput {
  seqs?: number[] | undefined;
  transition_ids?: string[] | undefined;
  reason?: string | undefined;
}

/**
 * The typed appends of a machine chain besides `event`, the node's rejection log, and the owner's
 * read-back of encrypted payloads. Writes are refused (409) while the machine is paused or archived.
 */
export interface ChainWritesService {
  /** Row type `state`; its payload_digest is the client's state hash itself. */
  appendState(machine: MachineRecord, caller: Caller, stateHash: string): Promise<WriteResult>;
  appendFile(machine: MachineRecord, caller: Caller, file: FileRecordInput): Promise<WriteResult>;
  appendConnection(machine: MachineRecord, caller: Caller, connection: ConnectionInput): Promise<WriteResult>;
  /** Row type `app.<app>.<type>`. */
  appendAppEvent(machine: MachineRecord, caller: Caller, app: string, type: string, payload: Record<string, unknown>): Promise<WriteResult>;
  /** Records a rejected submission in the node-level log `node/rejections` (never in a machine's chain). */
  logRejection(caller: Caller, input: RejectionInput, clientIp?: string): Promise<{ id: string; tick: number }>;
  /** Decrypts row payloads for the owner and appends an `audit.decrypted` row recording the access. */
  decrypt(machine: MachineRecord, caller: Caller, input: DecryptInput): Promise<{ rows: Array<RowPayload & { row: ChainRow }>; access_seq: number }>;
}

/** Rows read per page when looking rows up by transition id (newest first). */
const SCAN_PAGE = 5000;

export function createChainWritesService(deps: { chainLog: ChainLogRepository; clock: Clock; chain: ChainService }): ChainWritesService {
  const { chainLog, clock, chain } = deps;
  // The endpoint is public and writes to disk: per-reporter and node-wide budgets (rejection-budget.ts).
  const rejections = createRejectionBudget();

  async function write(machine: MachineRecord, caller: Caller, type: string, payload: Record<string, unknown>): Promise<WriteResult> {
    chain.assertWritable(machine);
    const row = await chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
    return writeResult(row);
  }

  async function rowsByTransitionId(slug: string, ids: string[]): Promise<ChainRow[]> {
    const wanted = new Set(ids);
    const found = new Map<string, ChainRow>();
    let before = await chainLog.count(slug);
    while (before > 0 && found.size < wanted.size) {
      const page = await chainLog.read(slug, { toSeq: before - 1, reverse: true, limit: SCAN_PAGE });
      for (const row of page) if (wanted.has(row.transition_id)) found.set(row.transition_id, row);
      before -= SCAN_PAGE;
    }
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw errors.notFound(`No row with transition id ${missing[0]} on "${slug}"`, { transition_ids: missing });
    return ids.map((id) => found.get(id)!);
  }

  return {
    async appendState(machine, caller, stateHash) {
      chain.assertWritable(machine);
      const row = await chain.append(machine, { type: 'state', actor_uid: caller.uid, payload_digest: stateHash.toLowerCase() });
      return writeResult(row);
    },

    appendFile: (machine, caller, file) =>
      write(machine, caller, 'file', { name: file.name, sha256: file.sha256.toLowerCase(), size: file.size, content_type: file.content_type ?? null }),

    appendConnection: (machine, caller, c) =>
      write(machine, caller, 'connection', { direction: c.direction, peer_hash: c.peer_hash, protocol: c.protocol, state: c.state }),

    appendAppEvent: (machine, caller, app, type, payload) => write(machine, caller, `app.${app}.${type}`, { app, type, payload }),

    async logRejection(caller, input, clientIp) {
      const now = clock.now();
      rejections.take(caller, clientIp, now);
      const id = randomUUID();
      const row = await chainLog.appendRejection(() => ({
        tick: clock.tick(),
        type: 'rejection',
        id,
        slug: input.slug ?? null,
        reason: input.reason,
        code: input.code ?? null,
        payload_digest: input.payload_digest?.toLowerCase() ?? null,
        source: input.source ?? null,
        reporter_uid: caller.uid,
        created_at: new Date(now).toISOString(),
      }));
      return { id, tick: row.tick };
    },

    async decrypt(machine, caller, input) {
      const { seqs, transition_ids: ids } = input;
      if ((seqs === undefined) === (ids === undefined)) {
        throw errors.validation('Give either seqs or transition_ids', {
          issues: [{ path: 'seqs', message: 'give exactly one of seqs and transition_ids', code: 'custom' }],
        });
      }
      let rows: ChainRow[];
      if (seqs !== undefined) {
        rows = [];
        for (const seq of seqs) {
          const row = await chainLog.row(machine.slug, seq);
          if (!row) throw errors.notFound(`No row ${seq} on "${machine.slug}"`, { seq });
          rows.push(row);
        }
      } else {
        rows = await rowsByTransitionId(machine.slug, ids!);
      }
      const out = [];
      for (const row of rows) out.push({ row, ...(await chain.payloadOf(machine, row)) });
      const payload = { seqs: rows.map((r) => r.seq), ...(input.reason ? { reason: input.reason } : {}) };
      const access = await chain.append(machine, { type: 'audit.decrypted', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      return { rows: out, access_seq: access.seq };
    },
  };
}
