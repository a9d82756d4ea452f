import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../events.js';
import { keysetPage } from '../../lib/keyset-page.js';
import type { ChainRow } from './hash-chain.js';
import type { MachinesService, MachineView } from './machines.service.js';
import { createRecentRing } from './recent-ring.js';
import { onceUnlessFailed } from '../../lib/once.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';

/** A public machine as anonymous readers see it: no owner identity, no access settings. */
export type PublicMachineView = Omit<MachineView, 'owner_uid' | 'has_password' | 'share_enabled'>;

export interface ActiveMachine {
  slug: string;
  display_name: string | null;
  transition_count: number;
  last_tick: number;
}

export interface FleetCounts {
  tick: number;
  machines_total: number;
  machines_public: number;
  by_status: { active: number; paused: number; archived: number };
  rows_total: number;
  active_last_60_ticks: number;
}

/**
 * The node-wide reads: public machines, the most active and newest ones, the recent cross-machine feed
 * and fleet counts. Private machines never appear by name; `fleet` counts every machine, anonymously.
 * `recent` reads an in-memory ring of the newest public rows (see `createRecentRing`), never the logs;
 * `active` and `fleet` ask the log indexes (one tally, one sum), never the rows. Every
 * answer is cached for the tick it was computed in, and a visibility change drops the caches at once.
 */
export interface PublicFeedService {
  listPublic(page: {
    limit?: number | undefined;
    cursor?: string | undefined;
  }): Promise<{ count: number; machines: PublicMachineView[]; next_cursor: string | null }>;
  active(windowTicks: number, limit: number): Promise<{ since_tick: number; machines: ActiveMachine[] }>;
  newest(limit: number): Promise<PublicMachineView[]>;
  recent(limit: number, type?: string): Promise<{ tick: number; rows: Array<ChainRow & { slug: string }> }>;
  fleet(): Promise<FleetCounts>;
}

export function publicView(view: MachineView): PublicMachineView {
  const { owner_uid, has_password, share_enabled, ...rest } = view;
  return rest;
}

/** Machine records `active` reads at once, at least, while walking down its ranking. */
const ACTIVE_BATCH = 32;

export function createPublicFeedService(deps: {
  machineRecords: MachineRepository;
  chainLog: ChainLogRepository;
  clock: Clock;
  bus: EventBus;
  machines: MachinesService;
}): PublicFeedService {
  const { machineRecords, chainLog, clock, bus, machines } = deps;
  const isPublic = async (slug: string): Promise<boolean> => (await machineRecords.get(slug))?.is_public === true;
  /**
   * Data written before the activity index existed is entered in it once (each machine's head tick), in
   * the background from start; the reads that use the index wait for it. Idempotent, so processes
   * sharing a store may both run it.
   */
  const activityReady = onceUnlessFailed(async () => {
    if (await machineRecords.activityBackfilled()) return;
    for await (const m of machineRecords.each()) {
      const head = await chainLog.head(m.slug);
      if (head !== undefined) await machineRecords.touched(m.slug, head.tick);
    }
    await machineRecords.markActivityBackfilled();
  });
  activityReady().catch(() => undefined);
  async function* activeSince(tick: number) {
    await activityReady();
    yield* machineRecords.activeSince(tick);
  }
  const ring = createRecentRing({ chainLog, activeFirst: () => activeSince(0), isPublic });
  let cache = new Map<string, { tick: number; value: unknown }>();

  bus.on('audit.appended', ({ slug, isPublic: pub, row: chainRow }) => {
    // A visibility change must never leave a now-private machine in a cached answer.
    if (chainRow.type === 'machine.settings_changed') {
      cache = new Map();
      if (pub) ring.backfill(slug);
    }
    if (pub) ring.push(slug, chainRow);
  });

  async function cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const tick = clock.tick();
    const hit = cache.get(key);
    if (hit && hit.tick === tick) return hit.value as T;
    const value = await compute();
    cache.set(key, { tick, value });
    return value;
  }

  return {
    async listPublic(page) {
      // From the public index after the cursor's machine: a page of records and one more, whatever the page's depth.
      const [{ items, next_cursor }, total] = await Promise.all([
        keysetPage({
          kind: 'public-machines',
          cursor: page.cursor || undefined,
          limit: page.limit ?? 100,
          fetch: (after, size) => machineRecords.after(true, after, size),
          keep: async (found) => found,
        }),
        machineRecords.countPublic(),
      ]);
      const views = await Promise.all(items.map(async (m) => publicView(await machines.view(m))));
      return { count: total, machines: views, next_cursor };
    },

    active: (windowTicks, limit) =>
      cached(`active|${windowTicks}|${limit}`, async () => {
        const since = Math.max(0, clock.tick() - windowTicks + 1);
        // Only machines with a row since `since` (the activity index), counted from the log indexes in
        // one read; machine records are read only down the ranking, until `limit` public ones are found.
        const recent: string[] = [];
        for await (const activity of activeSince(since)) recent.push(activity.slug);
        const ranked = [...(await chainLog.tallySince(recent, since))]
          .map(([slug, tally]) => ({ slug, transition_count: tally.rows, last_tick: tally.lastTick }))
          .sort((a, b) => b.transition_count - a.transition_count || b.last_tick - a.last_tick || a.slug.localeCompare(b.slug));
        const shown: ActiveMachine[] = [];
        const batch = Math.max(limit, ACTIVE_BATCH);
        for (let i = 0; i < ranked.length && shown.length < limit; i += batch) {
          const slice = ranked.slice(i, i + batch);
          const records = await Promise.all(slice.map((a) => machineRecords.get(a.slug)));
          slice.forEach((a, j) => {
            const m = records[j];
            if (m?.is_public === true && shown.length < limit)
              shown.push({ slug: a.slug, display_name: m.display_name, transition_count: a.transition_count, last_tick: a.last_tick });
          });
        }
        return { since_tick: since, machines: shown };
      }),

    async newest(limit) {
      const newest = await machineRecords.newestPublic(limit);
      return Promise.all(newest.map(async (m) => publicView(await machines.view(m))));
    },

    recent: (limit, type) =>
      cached(`recent|${limit}|${type ?? ''}`, async () => {
        const tick = clock.tick();
        const visible = new Map<string, boolean>();
        const rows: Array<ChainRow & { slug: string }> = [];
        for (const entry of await ring.newestFirst()) {
          if (type !== undefined && entry.row.type !== type) continue;
          let pub = visible.get(entry.slug);
          if (pub === undefined) visible.set(entry.slug, (pub = await isPublic(entry.slug)));
          if (!pub) continue;
          rows.push({ ...entry.row, slug: entry.slug });
          if (rows.length >= limit) break;
        }
        return { tick, rows };
      }),

    fleet: () =>
      cached('fleet', async () => {
        const tick = clock.tick();
        // Counts come from the indexes; the row total from the log heads (one read, cached for the tick).
        const [total, pub, active, paused, archived, rows] = await Promise.all([
          machineRecords.count(),
          machineRecords.countPublic(),
          machineRecords.countWithStatus('active'),
          machineRecords.countWithStatus('paused'),
          machineRecords.countWithStatus('archived'),
          chainLog.totalRows(),
        ]);
        let recent = 0;
        for await (const _ of activeSince(tick - 59)) recent++;
        return {
          tick,
          machines_total: total,
          machines_public: pub,
          by_status: { active, paused, archived },
          rows_total: rows,
          active_last_60_ticks: recent,
        };
      }),
  };
}
