import { topByField } from '../../storage/doc-top.js';
import type { DocPage, Store } from '../../storage/port.js';
import { scopeMemo } from '../../lib/commit-scope.js';
import { grantId, type MachineRecord, type ReadTokenRecord, type RoleGrant } from './machine.js';

const MACHINES = 'machines';
const GRANTS = 'machine-roles';
const READ_TOKENS = 'machine-read-tokens';
/** One record per machine that has rows: the tick of its newest row, for "active since" lists. */
const ACTIVITY = 'machine-activity';

/**
 * Kept in the activity collection once every machine stored before the index existed was entered in it.
 * Its id is no slug (slugs hold no ':'), and it holds no `last_tick`, so no ordered read returns it.
 */
const BACKFILLED = ':backfilled';

/** Records read per page when walking machines in insertion order. */
const WALK_PAGE = 500;
/** Activity records read per page: they are small, and `active` reads every one in its window (the page stops at the window). */
const ACTIVITY_PAGE = 10_000;

/** When a machine last had a row appended (at least this tick; see `touched`). */
export interface MachineActivity {
  slug: string;
  last_tick: number;
}

/** Newest first by genesis tick, then by creation time; equal ones oldest inserted first (the order `newest` always had). */
const byGenesisDesc = (a: MachineRecord, b: MachineRecord): number => b.genesis_tick - a.genesis_tick || b.created_at.localeCompare(a.created_at);

/**
 * The machine aggregate's storage: machine records, the roles granted on them, unlock read tokens and
 * each machine's last activity tick. The only module that names these collections. Every query is
 * answered from an index (field equality or an ordered field); none reads a whole collection on a
 * request path.
 */
export function createMachineRepository(store: Store) {
  const { docs } = store;
  /** Machines read in the lock transaction the caller runs in (see `scopeMemo`); the writes below drop theirs. */
  const inTransaction = scopeMemo<MachineRecord>();

  const repository = {
    /** The machine; inside a lock transaction read once (a fire asks four times), each caller given its own copy. */
    async get(slug: string): Promise<MachineRecord | undefined> {
      const known = inTransaction.get(slug);
      if (known !== undefined) return structuredClone(known);
      const found = await docs.get<MachineRecord>(MACHINES, slug);
      if (found !== undefined) inTransaction.set(slug, structuredClone(found));
      return found;
    },
    /** Inserts a new machine; fails with `DuplicateKeyError` when the slug is taken. */
    insert: (machine: MachineRecord): Promise<void> => {
      inTransaction.delete(machine.slug);
      return docs.insert(MACHINES, machine.slug, machine);
    },
    /** Read-modify-write of one machine (see `DocStore.update`); returns what is stored afterwards. */
    async update(slug: string, fn: (current: MachineRecord | undefined) => MachineRecord | undefined): Promise<MachineRecord | undefined> {
      inTransaction.delete(slug);
      try {
        return await docs.update<MachineRecord>(MACHINES, slug, fn);
      } finally {
        inTransaction.delete(slug);
      }
    },
    /** How many machines are stored. */
    count: (): Promise<number> => docs.count(MACHINES),
    /** The machines `uid` owns (optionally only those with `status`), oldest first: as many as the machine quota allows when quotas are on. */
    ownedBy: async (uid: string, status?: MachineRecord['status']): Promise<MachineRecord[]> =>
      (await docs.find<MachineRecord>(MACHINES, status === undefined ? { owner_uid: uid } : { owner_uid: uid, status })).items,
    countOwnedBy: (uid: string): Promise<number> => docs.count(MACHINES, { owner_uid: uid }),
    /** The first `limit` machines `uid` owns, oldest first: reads only those, from the owner index. */
    ownedFirst: async (uid: string, limit: number): Promise<MachineRecord[]> => (await docs.find<MachineRecord>(MACHINES, { owner_uid: uid }, { limit })).items,
    /** The first `limit` private machines `uid` owns, oldest first (from the owner index). */
    ownedPrivate: async (uid: string, limit: number): Promise<MachineRecord[]> =>
      (await docs.find<MachineRecord>(MACHINES, { owner_uid: uid, is_public: false }, { limit })).items,
    /**
     * At most `size` machines (only public ones when `publicOnly`) following store position `after`
     * (from the first when undefined), oldest first, with their positions (see `keysetPage`). Reads
     * those records only, from the index.
     */
    after: (publicOnly: boolean, after: string | undefined, size: number): Promise<DocPage<MachineRecord>> =>
      docs.find<MachineRecord>(MACHINES, publicOnly ? { is_public: true } : {}, { limit: size, positions: true, ...(after === undefined ? {} : { after }) }),
    /** How many machines are public. */
    countPublic: (): Promise<number> => docs.count(MACHINES, { is_public: true }),
    /** How many machines have `status`. */
    countWithStatus: (status: MachineRecord['status']): Promise<number> => docs.count(MACHINES, { status }),
    /** The `limit` public machines with the highest genesis tick (ties: latest created first), from the ordered index. */
    newestPublic: (limit: number): Promise<MachineRecord[]> =>
      topByField<MachineRecord & Record<string, unknown>>(docs, MACHINES, { is_public: true }, 'genesis_tick', limit, byGenesisDesc),
    /**
     * Every machine in insertion order, for background work (checkpoints, migration, backfills). Lazy:
     * a caller that stops early reads only the pages it went through. Requests page with `after`.
     */
    async *each(): AsyncGenerator<MachineRecord> {
      let after: string | undefined;
      do {
        const page = await docs.find<MachineRecord>(MACHINES, {}, { limit: WALK_PAGE, ...(after === undefined ? {} : { after }) });
        yield* page.items;
        after = page.next;
      } while (after !== undefined);
    },
    /** Which of `slugs` name public machines now (one keyed read per distinct slug, batched by the store). */
    async publicAmong(slugs: Iterable<string>): Promise<Set<string>> {
      const distinct = [...new Set(slugs)];
      const found = await Promise.all(distinct.map((slug) => docs.get<MachineRecord>(MACHINES, slug)));
      return new Set(found.filter((m) => m?.is_public === true).map((m) => m!.slug));
    },
    /** Slugs of the public machines `uid` owns or holds a role on, sorted. */
    async publicSlugsOf(uid: string): Promise<string[]> {
      const [owned, grants] = await Promise.all([docs.find<MachineRecord>(MACHINES, { owner_uid: uid, is_public: true }), repository.grantsOf(uid)]);
      const member = await repository.publicAmong(grants.map((g) => g.slug));
      return [...new Set([...owned.items.map((m) => m.slug), ...member])].sort();
    },

    /** The role granted to `uid` on `slug` (owners hold none: ownership is on the machine). */
    grantOf: (slug: string, uid: string): Promise<RoleGrant | undefined> => docs.get<RoleGrant>(GRANTS, grantId(slug, uid)),
    /** Every role granted on a machine, in the order granted: bounded by the machine's member limit. */
    grantsOn: async (slug: string): Promise<RoleGrant[]> => (await docs.find<RoleGrant>(GRANTS, { slug })).items,
    /** Every role granted to `uid`, in the order granted. */
    grantsOf: async (uid: string): Promise<RoleGrant[]> => (await docs.find<RoleGrant>(GRANTS, { uid })).items,
    updateGrant: (slug: string, uid: string, fn: (current: RoleGrant | undefined) => RoleGrant | undefined): Promise<RoleGrant | undefined> =>
      docs.update<RoleGrant>(GRANTS, grantId(slug, uid), fn),
    deleteGrant: (slug: string, uid: string): Promise<boolean> => docs.delete(GRANTS, grantId(slug, uid)),

    readToken: (tokenHash: string): Promise<ReadTokenRecord | undefined> => docs.get<ReadTokenRecord>(READ_TOKENS, tokenHash),
    putReadToken: (record: ReadTokenRecord): Promise<void> => docs.put(READ_TOKENS, record.token_hash, record),
    /**
     * The unlock tokens of `slug` (none when undefined) and every expired one. Lists the collection: it
     * stays small, since every unlock sweeps the expired tokens and a token lives for its short TTL.
     */
    staleReadTokens: (slug: string | undefined, nowMs: number): Promise<ReadTokenRecord[]> =>
      docs.list<ReadTokenRecord>(READ_TOKENS, (t) => t.slug === slug || t.expires_ms <= nowMs),
    deleteReadToken: (tokenHash: string): Promise<boolean> => docs.delete(READ_TOKENS, tokenHash),

    /**
     * Records that `slug` had a row at `tick`. The stored tick only grows; a call with an older tick
     * writes nothing. Callers skip calls whose tick they already recorded (one write per machine per tick).
     */
    async touched(slug: string, tick: number): Promise<void> {
      await docs.update<MachineActivity>(ACTIVITY, slug, (current) =>
        current !== undefined && current.last_tick >= tick ? undefined : { slug, last_tick: tick },
      );
    },
    /** Whether every machine stored before the activity index existed has been entered in it. */
    activityBackfilled: async (): Promise<boolean> => (await docs.get(ACTIVITY, BACKFILLED)) !== undefined,
    markActivityBackfilled: (): Promise<void> => docs.put(ACTIVITY, BACKFILLED, { backfilled: true }),
    /**
     * The machines whose newest row is at tick `since` or later, latest first (from the ordered index:
     * reads only those). Lazy, a page at a time, so a caller can stop early.
     */
    async *activeSince(since: number): AsyncGenerator<MachineActivity> {
      let after: string | undefined;
      for (;;) {
        const page = await docs.find<MachineActivity>(
          ACTIVITY,
          {},
          { limit: ACTIVITY_PAGE, orderBy: { field: 'last_tick', desc: true, to: since }, ...(after === undefined ? {} : { after }) },
        );
        for (const activity of page.items) {
          if (activity.last_tick < since) return;
          yield activity;
        }
        if (page.next === undefined) return;
        after = page.next;
      }
    },
  };
  return repository;
}

export type MachineRepository = ReturnType<typeof createMachineRepository>;
