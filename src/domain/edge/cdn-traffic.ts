import type { Clock } from '../../lib/clock.js';
import type { RowInput } from '../../storage/port.js';
import { type CountsRow, type CdnTrafficRepository } from './cdn-traffic-repository.js';

export type AnalyticsWindow = '60z' | '24h' | '7d';

/** Buckets of each window, in ticks: 12 × 5 ticks, 24 × about an hour, 28 × about 6 hours. */
const WINDOWS: Record<AnalyticsWindow, { buckets: number; ticks: number }> = {
  '60z': { buckets: 12, ticks: 5 },
  '24h': { buckets: 24, ticks: Math.round(3_600_000 / 777) },
  '7d': { buckets: 28, ticks: Math.round(21_600_000 / 777) },
};

export interface Analytics {
  total_requests: number;
  buckets: Array<{ from_tick: number; to_tick: number; requests: number }>;
  by_status: Record<string, number>;
}

/**
 * Request counts of the pages machines serve at `/s/{slug}/...`, for machines with a CDN site. The
 * HTTP transport reports each answered request; counts gather in memory per tick and status and are
 * appended to the machine's counts log every 30 s (and at stop), so a busy site costs one small row
 * per interval, not one per request. The paths answered 200 since the last purge form the cache index
 * that purge empties. Both are per process.
 */
export interface CdnTraffic {
  record(path: string, status: number): void;
  /** Counts requests of this machine from now on (its first site was registered). */
  track(slug: string): void;
  analytics(slug: string, window: AnalyticsWindow): Promise<Analytics>;
  /** Drops the given paths (or every path) from the machine's cache index; returns how many were there. */
  purge(slug: string, paths: string[] | 'all'): number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const FLUSH_MS = 30_000;
const MAX_CACHED_PATHS = 10_000;
const SITE_PATH = /^\/s\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(\/.*)?$/;

export function createCdnTraffic(deps: {
  cdnTrafficRecords: CdnTrafficRepository;
  clock: Clock;
  /** Slugs of machines that have at least one site (re-read at every flush: another process may add one). */
  trackedSlugs: () => Promise<string[]>;
  onError: (err: unknown) => void;
}): CdnTraffic {
  const { clock } = deps;
  const { cdnTrafficRecords } = deps;
  const tracked = new Set<string>();
  const pending = new Map<string, Map<number, Map<number, number>>>();
  const cached = new Map<string, Set<string>>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  async function flushNow(): Promise<void> {
    const batch = [...pending];
    pending.clear();
    for (const [slug, byTick] of batch) {
      const counts: CountsRow['counts'] = [];
      for (const [tick, byStatus] of byTick) for (const [status, n] of byStatus) counts.push([tick, status, n]);
      await cdnTrafficRecords.append(
        slug,
        (head) =>
          ({
            tick: Math.max(clock.tick(), head?.tick ?? 0, ...counts.map((c) => c[0])),
            type: 'counts',
            counts,
          }) as RowInput<CountsRow>,
      );
    }
    for (const slug of await deps.trackedSlugs()) tracked.add(slug);
  }

  const flush = () => (flushing = flushing.then(flushNow).catch(deps.onError));

  return {
    record(path, status) {
      const match = SITE_PATH.exec(path);
      const slug = match?.[1];
      if (slug === undefined || !tracked.has(slug)) return;
      const tick = clock.tick();
      let byTick = pending.get(slug);
      if (!byTick) pending.set(slug, (byTick = new Map()));
      let byStatus = byTick.get(tick);
      if (!byStatus) byTick.set(tick, (byStatus = new Map()));
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      const rest = match![2] ?? '/';
      if (status === 200 && !rest.startsWith('/sdk/')) {
        let paths = cached.get(slug);
        if (!paths) cached.set(slug, (paths = new Set()));
        if (paths.size < MAX_CACHED_PATHS) paths.add(rest);
      }
    },

    track(slug) {
      tracked.add(slug);
    },

    async analytics(slug, window) {
      const { buckets: n, ticks } = WINDOWS[window];
      const end = clock.tick() + 1;
      const start = end - n * ticks;
      const buckets = Array.from({ length: n }, (_, i) => ({ from_tick: start + i * ticks, to_tick: start + (i + 1) * ticks, requests: 0 }));
      const by_status: Record<string, number> = {};
      let total = 0;
      const add = (tick: number, status: number, count: number) => {
        if (tick < start || tick >= end) return;
        buckets[Math.floor((tick - start) / ticks)]!.requests += count;
        by_status[String(status)] = (by_status[String(status)] ?? 0) + count;
        total += count;
      };
      for (const row of await cdnTrafficRecords.since(slug, start)) for (const [t, s, c] of row.counts) add(t, s, c);
      for (const [t, byStatus] of pending.get(slug) ?? []) for (const [s, c] of byStatus) add(t, s, c);
      return { total_requests: total, buckets, by_status };
    },

    purge(slug, paths) {
      const index = cached.get(slug);
      if (!index) return 0;
      if (paths === 'all') {
        const n = index.size;
        index.clear();
        return n;
      }
      let n = 0;
      for (const p of new Set(paths)) if (index.delete(p)) n += 1;
      return n;
    },

    async start() {
      for (const slug of await deps.trackedSlugs()) tracked.add(slug);
      timer = setInterval(() => void flush(), FLUSH_MS);
      timer.unref();
    },

    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
