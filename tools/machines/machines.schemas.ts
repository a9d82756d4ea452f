import { z } from 'zod';
import type { ChainRow } from '../../src/domain/chain/hash-chain.js';
import type { WriteResult as ChainWriteResult } from '../../src/domain/chain/chain.service.js';
import type { MachineView } from '../../src/domain/chain/machines.service.js';
import type { PublicMachineView } from '../../src/domain/chain/public-feed.service.js';
import { Hex64, IsoDate, MachineRole, MachineStatus, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import type { ApiKeyView } from '../../src/domain/chain/api-keys.service.js';
import type { MemberView } from '../../src/domain/chain/members.service.js';
import { wireShape, type NamedMembers } from '../../src/registry/wire-shape.js';

/** Path parameter `{slug}` of every per-machine operation. */
export const MachineSlug = Slug;

/** A machine as its owner and members see it. */
export const Machine = wireShape<MachineView>()(
  z.object({
    slug: Slug,
    display_name: z.string().nullable(),
    purpose: z.string().nullable(),
    is_public: z.boolean().describe('Readable by anyone, listed publicly'),
    status: MachineStatus,
    owner_uid: Uid.describe('Identity that created the machine; the highest authority on it'),
    genesis_tick: Tick.describe('Tick at creation; seeds the first prev_hash of the chain'),
    genesis_hash: Hex64.describe('Genesis seed of the hash chain, derived from slug and genesis tick'),
    has_password: z.boolean().describe('Whether reads can be unlocked with a password (see unlock)'),
    share_enabled: z.boolean().describe('Whether a share token currently grants read access'),
    created_at: IsoDate,
    updated_at: IsoDate,
    row_count: z.number().int().min(0).describe('Number of rows in the audit chain'),
    head_seq: z.number().int().min(0).nullable().describe('seq of the newest audit row; null while empty'),
    head_tick: Tick.nullable().describe('Tick of the newest audit row; null while empty'),
    head_hash: Hex64.nullable().describe('state_hash of the newest audit row; null while empty'),
  }),
);

/** What anonymous readers see of a public machine: no owner identity. */
export const PublicMachine = wireShape<PublicMachineView>()(Machine.omit({ owner_uid: true, has_password: true, share_enabled: true }));

/** One row of a machine's append-only audit chain. */
export const AuditRow = wireShape<NamedMembers<ChainRow>>()(
  z.object({
    seq: z.number().int().min(0).describe('Position in the chain, 0-based and gap-free'),
    id: z.string().describe('Row id'),
    tick: Tick,
    type: z.string().describe('Transition type, e.g. "event", "state", "file", "connection", "contract"'),
    transition_id: z.string().describe('Id of the transition that wrote the row'),
    actor_uid: Uid.nullable().describe('Identity that caused the row; null for anonymous or system rows'),
    payload_digest: Hex64.describe('SHA-256 of the payload; the payload itself is not stored in the row'),
    prev_hash: Hex64.describe('state_hash of the previous row, or the genesis seed for seq 0'),
    state_hash: Hex64.describe('SHA-256 of the canonical JSON of this row without state_hash'),
    created_at: IsoDate,
    recovered: z.literal(true).optional().describe('Present when the row was appended after a restart for a write a crash cut off before its audit row'),
  }),
);

/** An audit row with the machine it belongs to, for feeds that span machines. */
export const MachineAuditRow = wireShape<NamedMembers<ChainRow & { slug: string }>>()(AuditRow.extend({ slug: Slug }));

/** Answer of every operation that appends one audit row. */
export const WriteResult = wireShape<ChainWriteResult>()(
  z.object({
    ok: z.literal(true),
    tick: Tick.describe('Tick the row was stamped with'),
    transition_id: z.string(),
    seq: z.number().int().min(0).describe('seq of the new row'),
    state_hash: Hex64.describe('state_hash of the new row, now the chain head'),
  }),
);

export const AdminGrant = wireShape<MemberView>()(
  z.object({
    uid: Uid,
    role: MachineRole,
    granted_by: Uid.nullable(),
    granted_at: IsoDate,
  }),
);

/** A developer API key as listings show it: never the raw value. */
export const ApiKey = wireShape<ApiKeyView>()(
  z.object({
    id: z.string(),
    kind: z.enum(['machine', 'developer']).describe('machine: the key returned by spin-up; developer: minted here'),
    name: z.string(),
    scope: z.enum(['read', 'write', 'admin']).nullable().describe('Scope of a developer key; null for the machine key, which has no scope'),
    role: z
      .enum(['owner', 'admin', 'operator', 'viewer'])
      .describe('Role the key acts with here: owner for the machine key; admin, operator or viewer for scope admin, write or read'),
    rate_limit_tier: z.string().nullable(),
    expires_at: IsoDate.nullable(),
    key_prefix: z.string().describe('First characters of the key, enough to recognise it'),
    created_at: IsoDate,
    created_by: Uid.nullable(),
    last_used_at: IsoDate.nullable(),
  }),
);

/**
 * Input fields of every stream action: the MCP tool collects events until one bound is reached;
 * over REST the stream stays open and these fields are ignored.
 */
export const StreamBounds = {
  max_events: z.number().int().min(1).max(1000).default(20).describe('MCP only: stop after this many events'),
  max_ms: z.number().int().min(100).max(60000).default(5000).describe('MCP only: stop after this many ms'),
  last_event_id: z.string().max(256).optional().describe('Resume after this event id, replaying missed events. Same as the Last-Event-ID header'),
};
