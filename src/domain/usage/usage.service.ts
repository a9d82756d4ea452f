import { tickOf, type Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import type { UsageRepository } from './usage-repository.js';

export interface UsageSummary {
  ok: true;
  uid: string;
  since_tick: number | null;
  solves: number;
  computes: number;
  total: number;
  by_target: Array<{ kind: 'solver' | 'operator'; id: string; count: number }>;
  last_at: string | null;
}

/**
 * Per-caller counts of solves and computes. Each successful call appends one row to the caller's own
 * append-only stream `usage:<uid>`, so counts survive restarts and can be cut at any tick. Anonymous
 * calls (no key) have no uid and are not counted.
 */
export interface UsageService {
  /** Counts one call. `targets`: the solver id for a solve, the operator chain (KO42 first) for a compute. */
  record(caller: Caller, kind: 'solve' | 'compute', targets?: string[]): Promise<void>;
  /** The caller's counts, optionally only from `sinceTick` on; targets ordered by count, then id. */
  summary(uid: string, sinceTick?: number): Promise<UsageSummary>;
}

export function createUsageService(deps: { usageRecords: UsageRepository; clock: Clock }): UsageService {
  const { usageRecords, clock } = deps;
  return {
    async record(caller, kind, targets = []) {
      if (caller.uid === null) return;
      const ms = clock.now();
      await usageRecords.record(caller.uid, { tick: tickOf(ms), type: kind, targets: targets.slice(0, 8), at: new Date(ms).toISOString() });
    },

    async summary(uid, sinceTick) {
      const rows = await usageRecords.rows(uid, sinceTick);
      let solves = 0,
        computes = 0;
      const counts = new Map<string, { kind: 'solver' | 'operator'; id: string; count: number }>();
      for (const row of rows) {
        if (row.type === 'solve') solves++;
        else computes++;
        const kind = row.type === 'solve' ? 'solver' : 'operator';
        for (const id of row.targets) {
          const key = `${kind}:${id}`;
          const entry = counts.get(key) ?? { kind, id, count: 0 };
          entry.count++;
          counts.set(key, entry);
        }
      }
      const by_target = [...counts.values()].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
      return {
        ok: true,
        uid,
        since_tick: sinceTick ?? null,
        solves,
        computes,
        total: solves + computes,
        by_target,
        last_at: rows.length > 0 ? rows[rows.length - 1]!.at : null,
      };
    },
  };
}
