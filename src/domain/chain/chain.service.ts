import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../../lib/event-bus.js';
import { errors } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import type { Store } from '../../storage/port.js';
import type { Caller } from '../../registry/types.js';
import { digestOf } from '../../lib/hash.js';
import { chainStream, type MachineRecord } from './machine.js';
import { genesisSeed, seal, type ChainRow } from './hash-chain.js';

export interface AppendInput {
  type: string;
  actor_uid: string | null;
  payload_digest: string;
  transition_id?: string;
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
  recordEvent(
    machine: MachineRecord,
    caller: Caller,
    event: { type: string; payload?: Record<string, unknown>; hash?: string },
  ): Promise<WriteResult>;
  /** Appends one hash-chained row to a machine's log and publishes it. */
  append(machine: MachineRecord, input: AppendInput): Promise<ChainRow>;
  /** Newest first, paginated by an opaque cursor, optionally one transition type. */
  activity(machine: MachineRecord, query: ActivityQuery): Promise<{ rows: ChainRow[]; next_cursor: string | null }>;
  head(slug: string): Promise<ChainRow | undefined>;
  count(slug: string): Promise<number>;
  /** Refuses writes to a machine that is not active. */
  assertWritable(machine: MachineRecord): void;
}

export function createChainService(deps: { store: Store; clock: Clock; bus: EventBus }): ChainService {
  const { store, clock, bus } = deps;

  const service: ChainService = {
    async recordEvent(machine, caller, event) {
      if (event.payload !== undefined && event.hash !== undefined) {
        throw errors.validation('Send either payload or hash, not both', {
          issues: [{ path: 'hash', message: 'payload and hash are mutually exclusive', code: 'custom' }],
        });
      }
      service.assertWritable(machine);
      const row = await service.append(machine, {
        type: event.type,
        actor_uid: caller.uid,
        payload_digest: event.hash?.toLowerCase() ?? digestOf(event.payload ?? {}),
      });
      return writeResult(row);
    },

    assertWritable(machine) {
      if (machine.status !== 'active') {
        throw errors.conflict(
          `Machine "${machine.slug}" is ${machine.status}; writes are refused until its status is set back to active`,
          { slug: machine.slug, status: machine.status },
        );
      }
    },

    async append(machine, input) {
      const now = clock.now();
      const row = await store.logs.append<ChainRow>(chainStream(machine.slug), (head, seq) =>
        seal({
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
        }),
      );
      bus.emit('audit.appended', { slug: machine.slug, isPublic: machine.is_public, row });
      return row;
    },

    async activity(machine, query) {
      const limit = query.limit ?? 50;
      const before = query.cursor === undefined ? undefined : decodeCursor('before', query.cursor);
      const rows = await store.logs.read<ChainRow>(chainStream(machine.slug), {
        reverse: true,
        limit: limit + 1,
        ...(before !== undefined ? { toSeq: before - 1 } : {}),
        ...(query.type ? { types: [query.type] } : {}),
      });
      const page = rows.slice(0, limit);
      const more = rows.length > limit && page.length > 0;
      return { rows: page, next_cursor: more ? encodeCursor('before', page[page.length - 1]!.seq) : null };
    },

    head: (slug) => store.logs.head<ChainRow>(chainStream(slug)),
    count: (slug) => store.logs.count(chainStream(slug)),
  };
  return service;
}

export function writeResult(row: ChainRow): WriteResult {
  return { ok: true, tick: row.tick, transition_id: row.transition_id, seq: row.seq, state_hash: row.state_hash };
}
