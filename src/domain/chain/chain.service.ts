import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../events.js';
import { errors } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import type { Caller } from '../identity/caller.js';
import { digestOf, sameDigest, sha256Hex } from '../../lib/hash.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { MachineRecord } from './machine.js';
import { genesisSeed, seal, type ChainRow } from './hash-chain.js';
import { createPayloadVault } from './payload-vault.js';
import type { NodeKeyRepository } from '../identity/node-key-repository.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';

export interface AppendInput {
  type: string;
  actor_uid: string | null;
  payload_digest: string;
  transition_id?: string;
  /**
   * The payload behind `payload_digest`, kept encrypted at rest (AES-256-GCM) outside the row so the
   * owner can read it back through `audit/decrypt`; the row itself still carries only the digest.
   * Never pass secrets (raw keys, passwords, tokens) here.
   */
  payload?: Record<string, unknown>;
  /** `canonicalJson(payload)` when the caller already made it (for the digest): encrypted as is, not made again. */
  payloadJson?: string;
  /** Marks a row the audit recovery appends late for a write a crash cut off (see `audit-recovery.service.ts`). */
  recovered?: true;
}

/** A row's payload as decrypted for its owner. */
export interface RowPayload {
  /** null when the row kept only a digest (a hash was sent, or the writer stored no payload). */
  payload: Record<string, unknown> | null;
  /** Whether sha256 of the payload's canonical JSON equals the row's payload_digest; null without payload. */
  digest_matches: boolean | null;
}

export interface ActivityQuery {
  limit?: number;
  cursor?: string;
  type?: string;
}

/** What every audited write answers. */
export interface WriteResult {
  ok: true;
  tick: number;
  transition_id: string;
  seq: number;
  state_hash: string;
}

export interface ChainService {
  /** `POST /event`: a typed row carrying the digest of a payload (or a digest the caller computed). */
  recordEvent(machine: MachineRecord, caller: Caller, event: { type: string; payload?: Record<string, unknown>; hash?: string }): Promise<WriteResult>;
  /** Appends one hash-chained row to a machine's log (and its encrypted payload, when given) and publishes it. */
  append(machine: MachineRecord, input: AppendInput): Promise<ChainRow>;
  /** Decrypts the payload kept for a row; a payload that fails authentication reads as a digest mismatch. */
  payloadOf(machine: MachineRecord, row: ChainRow): Promise<RowPayload>;
  /** Newest first, paginated by an opaque cursor, optionally one transition type. */
  activity(machine: MachineRecord, query: ActivityQuery): Promise<{ rows: ChainRow[]; next_cursor: string | null }>;
  head(slug: string): Promise<ChainRow | undefined>;
  count(slug: string): Promise<number>;
  /** Refuses writes to a machine that is not active. */
  assertWritable(machine: MachineRecord): void;
}

export function createChainService(deps: {
  machineRecords: MachineRepository;
  chainLog: ChainLogRepository;
  nodeKeyRecords: NodeKeyRepository;
  clock: Clock;
  bus: EventBus;
}): ChainService {
  const { machineRecords, chainLog, clock, bus } = deps;
  const vault = createPayloadVault({ chainLog, nodeKeyRecords: deps.nodeKeyRecords, now: clock.now });
  /**
   * The machines this process already recorded as active in the current tick: one activity write per
   * machine per tick. Only the current tick is kept, so the set holds the machines written to in one
   * tick, not every machine the process ever wrote to.
   */
  let touchedTick = Number.NEGATIVE_INFINITY;
  let touchedNow = new Set<string>();

  async function touch(slug: string, tick: number): Promise<void> {
    if (tick > touchedTick) {
      touchedTick = tick;
      touchedNow = new Set();
    }
    // An older tick (a clock step back) is written through: the repository keeps the newest anyway.
    if (tick === touchedTick && touchedNow.has(slug)) return;
    await machineRecords.touched(slug, tick);
    if (tick === touchedTick) touchedNow.add(slug);
  }

  const service: ChainService = {
    async recordEvent(machine, caller, event) {
      if (event.payload !== undefined && event.hash !== undefined) {
        throw errors.validation('Send either payload or hash, not both', {
          issues: [{ path: 'hash', message: 'payload and hash are mutually exclusive', code: 'custom' }],
        });
      }
      service.assertWritable(machine);
      const payload = event.hash === undefined ? (event.payload ?? {}) : undefined;
      // Canonicalised once: the same text is hashed for the digest and encrypted for the vault.
      const payloadJson = payload === undefined ? undefined : canonicalJson(payload);
      const row = await service.append(machine, {
        type: event.type,
        actor_uid: caller.uid,
        payload_digest: event.hash?.toLowerCase() ?? sha256Hex(payloadJson!),
        ...(payload !== undefined ? { payload, payloadJson: payloadJson! } : {}),
      });
      return writeResult(row);
    },

    assertWritable(machine) {
      if (machine.status !== 'active') {
        throw errors.conflict(`Machine "${machine.slug}" is ${machine.status}; writes are refused until its status is set back to active`, {
          slug: machine.slug,
          status: machine.status,
        });
      }
    },

    async append(machine, input) {
      const { payload } = input;
      if (payload !== undefined) await vault.ready();
      const now = clock.now();
      // The activity index is written beside the row, not after it: a tick recorded for a row that then
      // fails only makes `active` look at a machine with nothing new, which it skips.
      const tickNow = clock.tick();
      const touching = touch(machine.slug, tickNow);
      touching.catch(() => undefined);
      let payloadStored: Promise<unknown> | undefined;
      const row = await chainLog.append(machine.slug, (head, seq) => {
        const sealed = seal({
          id: `${machine.slug}:${seq}`,
          // The chain's ticks never decrease, even if the wall clock steps back.
          tick: Math.max(clock.tick(), head?.tick ?? machine.genesis_tick),
          type: input.type,
          transition_id: input.transition_id ?? randomUUID(),
          actor_uid: input.actor_uid,
          payload_digest: input.payload_digest,
          prev_hash: head?.state_hash ?? genesisSeed(machine.slug, machine.genesis_tick),
          created_at: new Date(now).toISOString(),
          seq,
          ...(input.recovered ? { recovered: true as const } : {}),
        });
        if (payload !== undefined) {
          const binding = { slug: machine.slug, row_seq: seq, transition_id: sealed.transition_id };
          const stored = vault.seal(machine, sealed.tick, binding, payload, input.payloadJson);
          // Appended from inside the build, so payload rows land in chain order (see PayloadVault.find);
          // PostgreSQL writes this row in the chain row's own transaction (see pg-log-append.ts).
          payloadStored = chainLog.appendPayload(machine.slug, stored);
          payloadStored.catch(() => undefined);
        }
        return sealed;
      });
      await payloadStored;
      await touching;
      // The row's tick is above the clock's only when the clock stepped back under the chain's head.
      if (row.tick > tickNow) await touch(machine.slug, row.tick);
      bus.emit('audit.appended', { slug: machine.slug, isPublic: machine.is_public, row });
      return row;
    },

    async activity(machine, query) {
      const limit = query.limit ?? 50;
      const before = query.cursor === undefined ? undefined : decodeCursor('before', query.cursor);
      const rows = await chainLog.read(machine.slug, {
        reverse: true,
        limit: limit + 1,
        ...(before !== undefined ? { toSeq: before - 1 } : {}),
        ...(query.type ? { types: [query.type] } : {}),
      });
      const page = rows.slice(0, limit);
      const more = rows.length > limit && page.length > 0;
      return { rows: page, next_cursor: more ? encodeCursor('before', page[page.length - 1]!.seq) : null };
    },

    async payloadOf(machine, row) {
      await vault.ready();
      const stored = await vault.find(machine.slug, row.seq, row.transition_id, row.tick);
      if (!stored) return { payload: null, digest_matches: null };
      let payload: unknown;
      try {
        payload = vault.open(machine, stored, { slug: machine.slug, row_seq: row.seq, transition_id: row.transition_id });
      } catch {
        return { payload: null, digest_matches: false };
      }
      const matches = row.payload_digest !== null && sameDigest(digestOf(payload), row.payload_digest);
      return { payload: payload as Record<string, unknown>, digest_matches: matches };
    },

    head: (slug) => chainLog.head(slug),
    count: (slug) => chainLog.count(slug),
  };
  return service;
}

export function writeResult(row: ChainRow): WriteResult {
  return { ok: true, tick: row.tick, transition_id: row.transition_id, seq: row.seq, state_hash: row.state_hash };
}
