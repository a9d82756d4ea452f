import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { createRequestMetrics } from './request-metrics.js';
import type { SandboxRunner } from '../sandbox/sandbox-runner.js';
import type { StoreStatus } from '../../storage/port.js';

/** Request durations, seconds: the pipeline's cheap reads sit near 1 ms, solves and sandbox runs higher. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Fire lag, seconds: one tick is 0.777 s, so the buckets bracket it. */
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.777, 1.5, 3, 10];

/**
 * The node's Prometheus metrics, on a registry of its own (never prom-client's global one), so two
 * cores in one process keep separate counts. Every recorder is cheap and never throws.
 */
export interface Metrics {
  /** One finished pipeline call. */
  observe(op: string, status: number, ms: number, surface: string): void;
  /** A scheduled contract fire finished `ms` after the start of its due tick. */
  fireLag(ms: number): void;
  /** A row was appended to `stream` and has sequence number `seq`. */
  appended(backend: string, stream: string, seq: number): void;
  /** The store's health as `Store.status` says it now (set before each scrape): `core_store_ready`, `core_store_check_up{check}`. */
  storeStatus(status: StoreStatus): void;
  /** An SSE subscriber connected (+1) or went away (-1). */
  sseSubscribers(delta: 1 | -1): void;
  /** A sandbox run ended with `exitCode` for `reason`. */
  sandboxRun(exitCode: number, reason: string, ms: number): void;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** The first path segment of a stream name (`chain/foo` -> `chain`): bounded label cardinality. */
export function streamKind(stream: string): string {
  const slash = stream.indexOf('/');
  return slash === -1 ? stream : stream.slice(0, slash);
}

export function createMetrics(opts: { gauges?: () => Record<string, number> } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = createRequestMetrics({
    countName: 'core_requests_total',
    countHelp: 'Operations handled, by operation, status and surface.',
    durationName: 'core_request_duration_seconds',
    durationHelp: 'Time spent in the pipeline per operation and surface.',
    buckets: REQUEST_BUCKETS,
  });
  const fireLag = new Histogram({
    name: 'core_contract_fire_lag_seconds',
    help: "Time from the start of a scheduled fire's due tick to the end of the fire.",
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const appends = new Counter({
    name: 'core_log_appends_total',
    help: 'Rows appended to append-only logs, by backend and stream kind (first path segment).',
    labelNames: ['backend', 'kind'] as const,
    registers: [registry],
  });
  const longest = new Gauge({
    name: 'core_log_longest_stream_rows',
    help: 'Rows in the longest stream of each kind appended to since start (chain: the longest chain).',
    labelNames: ['backend', 'kind'] as const,
    registers: [registry],
  });
  const longestSeen = new Map<string, number>();
  const sse = new Gauge({ name: 'core_sse_subscribers', help: 'Open server-sent-event streams.', registers: [registry] });
  const sandboxRuns = new Counter({
    name: 'core_sandbox_runs_total',
    help: 'Sandbox runs, by exit code and how they ended.',
    labelNames: ['exit_code', 'reason'] as const,
    registers: [registry],
  });
  const sandboxSeconds = new Histogram({
    name: 'core_sandbox_run_duration_seconds',
    help: 'Sandbox run wall time, spawn to the last byte of output.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const unavailable = new Counter({
    name: 'core_unavailable_responses_total',
    help: 'Operations answered 503 UNAVAILABLE (a dependency down, the disk full, the node unready), by surface.',
    labelNames: ['surface'] as const,
    registers: [registry],
  });
  const storeReady = new Gauge({
    name: 'core_store_ready',
    help: 'Whether the store can serve (1) or a dependency it needs is down (0): what readiness answers.',
    registers: [registry],
  });
  const storeCheckUp = new Gauge({
    name: 'core_store_check_up',
    help: 'Each store check (database, session, disk): 1 up, 0 down.',
    labelNames: ['check'] as const,
    registers: [registry],
  });
  if (opts.gauges) {
    const read = opts.gauges;
    for (const name of Object.keys(read())) {
      new Gauge({
        name,
        help: `${name.replaceAll('_', ' ')}.`,
        registers: [registry],
        collect() {
          this.set(read()[name] ?? 0);
        },
      });
    }
  }

  return {
    contentType: registry.contentType,
    observe(op, status, ms, surface) {
      requests.observe(op, status, ms, surface);
      if (status === 503) unavailable.inc({ surface });
    },
    fireLag: (ms) => fireLag.observe(Math.max(0, ms) / 1000),
    appended(backend, stream, seq) {
      const kind = streamKind(stream);
      appends.inc({ backend, kind });
      const key = `${backend}\0${kind}`;
      if (seq + 1 > (longestSeen.get(key) ?? 0)) {
        longestSeen.set(key, seq + 1);
        longest.set({ backend, kind }, seq + 1);
      }
    },
    storeStatus(status) {
      storeReady.set(status.ready ? 1 : 0);
      for (const [check, state] of Object.entries(status.checks)) storeCheckUp.set({ check }, state.ok ? 1 : 0);
    },
    sseSubscribers: (delta) => sse.inc(delta),
    sandboxRun(exitCode, reason, ms) {
      sandboxRuns.inc({ exit_code: String(exitCode), reason });
      sandboxSeconds.observe(ms / 1000);
    },
    // prom-client's families, then the request families it does not hold (see request-metrics.ts).
    render: async () => `${await registry.metrics()}\n${requests.render()}`,
  };
}

/** The sandbox runner with every finished run counted by exit code. */
export function countSandboxRuns(runner: SandboxRunner, metrics: Pick<Metrics, 'sandboxRun'>): SandboxRunner {
  return {
    ready: () => runner.ready(),
    async run(request) {
      const outcome = await runner.run(request);
      metrics.sandboxRun(outcome.exit_code, outcome.reason, outcome.duration_ms);
      return outcome;
    },
  };
}
