import type { Clock } from '../../lib/clock.js';
import { digestOf, sha256Hex } from '../../lib/hash.js';
import { errors } from '../../errors.js';
import { keysetPage } from '../../lib/keyset-page.js';
import { DuplicateKeyError } from '../../storage/port.js';
import type { Caller, Role } from '../identity/caller.js';
import { isDeveloperUid, type IdentityService } from '../identity/identity.service.js';
import { minRole, roleOfScope } from '../identity/roles.js';
import type { QuotasService } from '../quotas/quotas.service.js';
import type { ChainService } from './chain.service.js';
import { genesisSeed } from './hash-chain.js';
import { isSiteUid } from '../site/site-proxy.js';
import { checkSlug, shareActive, type MachineRecord } from './machine.js';
import type { MachineRepository } from './machine-repository.js';

export interface CreateMachineInput {
  slug?: string;
  is_public?: boolean;
  display_name?: string;
  purpose?: string;
}

/** A machine as shown to callers: the record plus live figures from its chain. */
export interface MachineView {
  slug: string;
  display_name: string | null;
  purpose: string | null;
  is_public: boolean;
  status: MachineRecord['status'];
  owner_uid: string;
  genesis_tick: number;
  genesis_hash: string;
  created_at: string;
  updated_at: string;
  has_password: boolean;
  share_enabled: boolean;
  row_count: number;
  head_seq: number | null;
  head_tick: number | null;
  head_hash: string | null;
}

export interface MachinesService {
  create(input: CreateMachineInput, caller: Caller): Promise<{ machine: MachineView; api_key: string; api_key_id: string }>;
  /** Public machines plus the private ones the caller is a member of, oldest first. */
  list(caller: Caller, page: { limit?: number; cursor?: string }): Promise<{ machines: MachineView[]; next_cursor: string | null }>;
  /** A machine the caller may read, or NOT_FOUND (a private machine is never acknowledged to outsiders). */
  get(slug: string, caller: Caller): Promise<{ machine: MachineView; role: Role | null }>;
  /**
   * The machine record when the caller may read it, or NOT_FOUND. `record` is the machine's document when
   * it was already asked for (see `prefetch`).
   */
  readable(slug: string, caller: Caller, record?: Promise<MachineRecord | undefined>): Promise<{ machine: MachineRecord; role: Role | 'none' }>;
  /**
   * The caller's role on a machine: undefined when the machine does not exist or is private and the
   * caller may not read it; 'none' when it is readable (public or shared) but the caller holds no role.
   */
  roleOf(slug: string, caller: Caller): Promise<Role | 'none' | undefined>;
  /**
   * `roleOf` read afresh (never a record handed on), with the time a read right that lapses by itself
   * lapses (a share or unlock token's expiry; null when nothing does): for flows that re-check at delivery.
   */
  accessNow(slug: string, caller: Caller): Promise<{ role: Role | 'none'; untilMs: number | null } | undefined>;
  /**
   * Starts reading a machine's document for a role check to come. The pipeline asks while it resolves
   * the caller's key, so both reads go out in one query (the store coalesces reads of one turn) instead
   * of one round trip after the other. Nothing is returned to the caller before the role check.
   */
  prefetch(slug: string): Promise<MachineRecord | undefined>;
  view(machine: MachineRecord): Promise<MachineView>;
  /** Slugs of the machines `uid` owns, oldest first, at most `limit`, and how many it owns in all. */
  ownedBy(uid: string, limit: number): Promise<{ slugs: string[]; total: number }>;
}

export function createMachinesService(deps: {
  machineRecords: MachineRepository;
  clock: Clock;
  chain: ChainService;
  identity: IdentityService;
  quotas: QuotasService;
}): MachinesService {
  const { machineRecords, clock, chain, identity, quotas } = deps;

  /**
   * The machine and the caller's role when the caller may read it, with when a read right that lapses by
   * itself (a share or unlock token) lapses: null when nothing does.
   */
  async function access(
    slug: string,
    caller: Caller,
    record: Promise<MachineRecord | undefined> = machineRecords.get(slug),
  ): Promise<{ machine: MachineRecord; role: Role | 'none'; untilMs: number | null } | undefined> {
    const machine = await record;
    if (!machine) return undefined;
    const role = await roleFor(machine, caller);
    if (role !== 'none' || machine.is_public) return { machine, role, untilMs: null };
    const untilMs = caller.shareToken ? await shareGrantsRead(machine, caller.shareToken) : false;
    return untilMs === false ? undefined : { machine, role, untilMs };
  }

  /**
   * Whether a share token (from share/set) or an unlock token (from unlock) is live for this machine:
   * false if not, else when it expires (null: never).
   */
  async function shareGrantsRead(machine: MachineRecord, token: string): Promise<number | null | false> {
    const hash = sha256Hex(token);
    if (shareActive(machine, clock.now()) && hash === machine.share_token_hash) {
      return machine.share_token_expires_at ? Date.parse(machine.share_token_expires_at) : null;
    }
    if (!machine.password_hash) return false;
    const unlocked = await machineRecords.readToken(hash);
    const live =
      unlocked !== undefined && unlocked.slug === machine.slug && unlocked.password_hash === machine.password_hash && unlocked.expires_ms > clock.now();
    return live ? unlocked.expires_ms : false;
  }

  /** The caller's role on `machine`; `granted` answers for the role granted to the caller (read from the store by default). */
  async function roleFor(
    machine: MachineRecord,
    caller: Caller,
    granted: (slug: string, uid: string) => Promise<Role | undefined> = async (slug, uid) => (await machineRecords.grantOf(slug, uid))?.role,
  ): Promise<Role | 'none'> {
    if (caller.uid === null) return 'none';
    // A key bound to one machine carries no authority on any other.
    if (caller.machine !== undefined && caller.machine !== machine.slug) return 'none';
    // A developer key and a site are their own identities: the scope alone sets the role on their machine.
    if (isDeveloperUid(caller.uid) || isSiteUid(caller.uid)) return caller.machine === machine.slug && caller.scope ? roleOfScope(caller.scope) : 'none';
    let role: Role | 'none';
    if (caller.uid === machine.owner_uid) role = 'owner';
    else role = (await granted(machine.slug, caller.uid)) ?? 'none';
    return caller.scope ? minRole(role, roleOfScope(caller.scope)) : role;
  }

  async function view(machine: MachineRecord): Promise<MachineView> {
    const [head, count] = await Promise.all([chain.head(machine.slug), chain.count(machine.slug)]);
    const { share_token_hash, share_token_expires_at, password_hash, ...pub } = machine;
    return {
      ...pub,
      has_password: Boolean(password_hash),
      share_enabled: shareActive(machine, clock.now()),
      row_count: count,
      head_seq: head?.seq ?? null,
      head_tick: head?.tick ?? null,
      head_hash: head?.state_hash ?? null,
    };
  }

  async function freeSlugFrom(base: string): Promise<string> {
    for (let n = 1; n < 1000; n++) {
      const candidate = n === 1 ? base : `${base.slice(0, 60)}-${n}`;
      if (!(await machineRecords.get(candidate))) return candidate;
    }
    throw errors.conflict(`No free slug derived from "${base}"; pass a slug`);
  }

  return {
    async create(input, caller) {
      if (caller.uid === null) throw errors.unauthenticated(caller);
      if (caller.machine !== undefined) {
        throw errors.forbidden('A machine key cannot create machines; use your user key (POST /api/demo-key/mint)');
      }
      const explicit = input.slug !== undefined;
      const slug = explicit ? input.slug! : await freeSlugFrom(caller.uid.toLowerCase());
      checkSlug(slug);
      const now = clock.now();
      const tick = clock.tick();
      const iso = new Date(now).toISOString();
      const machine: MachineRecord = {
        slug,
        display_name: input.display_name ?? null,
        purpose: input.purpose ?? null,
        is_public: input.is_public ?? false,
        status: 'active',
        owner_uid: caller.uid,
        genesis_tick: tick,
        genesis_hash: genesisSeed(slug, tick),
        created_at: iso,
        updated_at: iso,
        share_token_hash: null,
      };
      try {
        await quotas.within('machines', caller.uid, () => machineRecords.insert(machine));
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw errors.conflict(`The slug "${slug}" is taken; choose another`, { slug });
        throw err;
      }
      // The payload is kept (encrypted) beside its digest, so audit/decrypt can show and check it.
      const created = { slug, owner_uid: caller.uid, is_public: machine.is_public, genesis_tick: tick };
      await chain.append(machine, { type: 'machine.created', actor_uid: caller.uid, payload_digest: digestOf(created), payload: created });
      const { key, record } = await identity.issueMachineKey({ uid: caller.uid, kind: 'machine', machine: slug });
      return { machine: await view(machine), api_key: key, api_key_id: record.key_id };
    },

    async list(caller, page) {
      // Visible: public, or a role. Whether the caller may see any private machine decides which index
      // the walk below reads; each machine it reads is then checked in memory (owner on the record, roles
      // from the caller's grants), so the request reads a page of machines, not every one the caller owns.
      const roles = new Map<string, Role>();
      let seesPrivate = false;
      if (caller.uid !== null) {
        const grants = await machineRecords.grantsOf(caller.uid);
        for (const g of grants) roles.set(g.slug, g.role);
        const bound = caller.machine === undefined ? [] : [caller.machine];
        // One owned private machine stands for all of them: the probe reads one record from the owner index.
        const candidates = [
          ...(await machineRecords.ownedPrivate(caller.uid, 1)),
          ...(await Promise.all([...grants.map((g) => g.slug), ...bound].map(machineRecords.get))),
        ];
        for (const machine of candidates) {
          if (machine && !machine.is_public && (await roleFor(machine, caller, async (slug) => roles.get(slug))) !== 'none') seesPrivate = true;
        }
      }
      const visible = async (m: MachineRecord) => m.is_public || (await roleFor(m, caller, async (slug) => roles.get(slug))) !== 'none';
      // Without private machines of its own the caller sees the public ones: read from their index.
      // Otherwise every machine after the cursor's is read and the visible ones kept: the cursor holds
      // the position of the last machine shown, never of one skipped.
      const { items, next_cursor } = await keysetPage({
        kind: 'machines',
        cursor: page.cursor || undefined,
        limit: page.limit ?? 100,
        fetch: (after, size) => machineRecords.after(!seesPrivate, after, size),
        keep: (found) => Promise.all(found.map(async (m) => ((await visible(m)) ? m : undefined))),
      });
      return { machines: await Promise.all(items.map(view)), next_cursor };
    },

    async get(slug, caller) {
      const found = await access(slug, caller);
      if (!found) throw errors.notFound(`No machine "${slug}"`, { slug });
      return { machine: await view(found.machine), role: found.role === 'none' ? null : found.role };
    },

    async readable(slug, caller, record) {
      const found = await access(slug, caller, record);
      if (!found) throw errors.notFound(`No machine "${slug}"`, { slug });
      return found;
    },

    async roleOf(slug, caller) {
      return (await access(slug, caller))?.role;
    },

    async accessNow(slug, caller) {
      const found = await access(slug, caller);
      return found && { role: found.role, untilMs: found.untilMs };
    },

    prefetch(slug) {
      const record = machineRecords.get(slug);
      // Not awaited when authentication fails first: never an unhandled rejection.
      record.catch(() => undefined);
      return record;
    },

    view,

    async ownedBy(uid, limit) {
      const [owned, total] = await Promise.all([limit >= 1 ? machineRecords.ownedFirst(uid, Math.floor(limit)) : [], machineRecords.countOwnedBy(uid)]);
      return { slugs: owned.map((m) => m.slug), total };
    },
  };
}
