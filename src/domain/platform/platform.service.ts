import { CoreError } from '../../errors.js';
import { ALPHA, PULSE_HZ, TICK_MS, type Clock } from '../../lib/clock.js';
import type { RawBody } from '../../lib/handler-results.js';
import type { StoreCheck, StoreHealth } from '../../storage/port.js';
import { failingChecks, NOT_READY_RETRY_S } from '../../storage/store-refusal.js';
import type { Metrics } from './metrics.js';

export interface PlatformService {
  pulse(): { ok: true; tick: number; phase: number; pulse_hz: 1.287; tick_ms: 777; unix_ms: number; R_t: number; alpha: number };
  /**
   * Liveness: answers while the process serves (UNAVAILABLE only once it is stopping or its store is
   * closed), with `ready` and the store's checks beside the storage entry, so it shows an outage too.
   */
  health(): { ok: true; status: 'ok' | 'starting' | 'stopping'; ready: boolean; checks: Record<string, HealthCheck> };
  /**
   * Readiness: `{ ready: true }` while the store can serve and the node is not stopping; otherwise
   * UNAVAILABLE (503, `retry_after_s`) with the failing checks in `details.checks`. What a load balancer probes.
   */
  ready(): { ok: true; ready: true; checks: Record<string, HealthCheck> };
  status(): { ok: true; version: string; uptime_s: number; backend: 'lowdb' | 'postgres'; tick: number; started_at: string; node_version: string };
  metrics(): Promise<RawBody>;
  /** Marks the node as shutting down (health answers stopping). */
  setStopping(): void;
}

/** One check as health and readiness show it. */
export type HealthCheck = StoreCheck;

export interface PlatformDeps {
  clock: Clock;
  storeHealth: StoreHealth;
  metrics: Metrics;
  version: string;
  startedAt: number;
}

export function createPlatformService(deps: PlatformDeps): PlatformService {
  const { clock, storeHealth } = deps;
  let stopping = false;

  return {
    pulse() {
      const unix = clock.now();
      const t = unix / 1000;
      return {
        ok: true,
        tick: clock.tick(),
        phase: clock.phase(),
        pulse_hz: PULSE_HZ,
        tick_ms: TICK_MS,
        unix_ms: unix,
        R_t: 1 + ALPHA * Math.sin(2 * Math.PI * PULSE_HZ * t),
        alpha: ALPHA,
      };
    },

    health() {
      const storeOk = storeHealth.isOpen();
      if (!storeOk || stopping) {
        const detail = stopping ? 'the node is shutting down' : 'storage is not open';
        throw new CoreError('UNAVAILABLE', `Unavailable: ${detail}`, { retry_after_s: NOT_READY_RETRY_S });
      }
      const { ready, checks } = storeHealth.status();
      return { ok: true, status: 'ok', ready, checks: { storage: { ok: true, detail: `${storeHealth.backend} open` }, ...checks } };
    },

    ready() {
      const status = storeHealth.status();
      const checks: Record<string, HealthCheck> = {
        node: stopping ? { ok: false, detail: 'the node is shutting down' } : { ok: true },
        ...status.checks,
      };
      if (status.ready && !stopping && storeHealth.isOpen()) return { ok: true, ready: true, checks };
      const failing = failingChecks({ ready: false, checks });
      const said = Object.entries(failing).map(([name, check]) => `${name}: ${check.detail ?? 'down'}`);
      if (said.length === 0) said.push('store: not open');
      throw new CoreError('UNAVAILABLE', `Not ready: ${said.join('; ')}`, { ready: false, retry_after_s: NOT_READY_RETRY_S, checks: failing });
    },

    status() {
      return {
        ok: true,
        version: deps.version,
        uptime_s: Math.round((Date.now() - deps.startedAt) / 100) / 10,
        backend: storeHealth.backend,
        tick: clock.tick(),
        started_at: new Date(deps.startedAt).toISOString(),
        node_version: process.version,
      };
    },

    async metrics() {
      // Read at the scrape: a scrape during an outage shows it.
      deps.metrics.storeStatus(storeHealth.status());
      return { contentType: deps.metrics.contentType, body: await deps.metrics.render() };
    },

    setStopping() {
      stopping = true;
    },
  };
}
