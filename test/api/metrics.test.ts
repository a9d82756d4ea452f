import { describe, expect, it } from 'vitest';
import { ContractScheduler } from '../../src/domain/contracts/scheduler.js';
import { countSandboxRuns, createMetrics } from '../../src/domain/platform/metrics.js';
import { createFakeClock, tickStartMs } from '../../src/lib/clock.js';
import { createMachine, mintKey, type TestServer } from '../helpers/server.js';
import { serverForTest, useServer } from '../helpers/use-server.js';

/** One sample of the exposition: metric name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/**
 * A strict parser of the Prometheus text exposition format 0.0.4: every line is a HELP, a TYPE or a
 * sample; every sample belongs to the family its TYPE declared just before it; no series twice;
 * histogram buckets are cumulative and end with le="+Inf" equal to _count. Throws on any violation.
 */
function parseExposition(text: string): Sample[] {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const samples: Sample[] = [];
  const typed = new Map<string, string>();
  const seen = new Set<string>();
  let family: string | undefined;
  for (const [i, line] of text.slice(0, -1).split('\n').entries()) {
    const where = `line ${i + 1}: ${line}`;
    // The format allows empty lines; prom-client puts one between families.
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!m) throw new Error(`bad comment, ${where}`);
      if (!NAME.test(m[2]!)) throw new Error(`bad metric name, ${where}`);
      if (m[1] === 'TYPE') {
        if (!TYPES.has(m[3]!)) throw new Error(`unknown type, ${where}`);
        if (typed.has(m[2]!)) throw new Error(`TYPE twice, ${where}`);
        typed.set(m[2]!, m[3]!);
        family = m[2];
      }
      continue;
    }
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name) throw new Error(`bad sample name, ${where}`);
    let rest = line.slice(name.length);
    const labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      rest = rest.slice(1);
      while (!rest.startsWith('}')) {
        const m = LABEL.exec(rest);
        if (!m) throw new Error(`bad label, ${where}`);
        if (m[1]! in labels) throw new Error(`label twice, ${where}`);
        labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
        rest = rest.slice(m[0].length);
        if (rest.startsWith(',')) rest = rest.slice(1);
        else if (!rest.startsWith('}')) throw new Error(`bad label separator, ${where}`);
      }
      rest = rest.slice(1);
    }
    const m = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
    if (!m) throw new Error(`bad value, ${where}`);
    const raw = m[1]!;
    // Values are what Go's ParseFloat reads: decimals, and NaN / Inf in any letter case.
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(raw);
    const value = special ? (special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity) : Number(raw);
    if (!special && (raw === '' || Number.isNaN(value))) throw new Error(`value is not a number, ${where}`);
    const type = family ? typed.get(family) : undefined;
    const allowed = (SUFFIXES[type ?? ''] ?? ['']).map((s) => `${family}${s}`);
    if (!family || !allowed.includes(name)) throw new Error(`sample outside its family ${family}, ${where}`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`series twice, ${where}`);
    seen.add(key);
    samples.push({ name, labels, value });
  }
  for (const [name, type] of typed) {
    if (type !== 'histogram') continue;
    const groups = new Map<string, Sample[]>();
    for (const s of samples.filter((x) => x.name === `${name}_bucket`)) {
      const { le, ...others } = s.labels;
      if (le === undefined) throw new Error(`${name} bucket without le`);
      const k = JSON.stringify(Object.entries(others).sort());
      groups.set(k, [...(groups.get(k) ?? []), s]);
    }
    for (const [k, buckets] of groups) {
      for (let i = 1; i < buckets.length; i++) if (buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${name} buckets not cumulative`);
      const last = buckets.at(-1)!;
      const count = samples.find((s) => s.name === `${name}_count` && JSON.stringify(Object.entries(s.labels).sort()) === k);
      if (last.labels.le !== '+Inf' || count?.value !== last.value) throw new Error(`${name}: le="+Inf" must equal _count`);
    }
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}

async function scrape(server: TestServer): Promise<Sample[]> {
  const res = await fetch(`${server.url}/api/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

const server = useServer();

describe('GET /api/metrics', () => {
  it('serves the Prometheus text format, with process memory from the default metrics', async () => {
    const samples = await scrape(server);
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    expect(value(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === 'core_tick')).toBe(true);
  });

  it('counts requests and their latency per operation, status and surface', async () => {
    const op = { op: 'platform.getConstant', status: '200', surface: 'rest' };
    const before = await scrape(server);
    for (let i = 0; i < 3; i++) expect((await server.call('GET', '/api/constants/h')).status).toBe(200);
    expect((await server.call('GET', '/api/constants/not-a-constant')).status).toBe(404);
    const after = await scrape(server);
    const opId = after.find((s) => s.name === 'core_requests_total' && s.labels.status === '404')?.labels.op;
    expect(opId).toBeDefined();
    const ok = { ...op, op: opId! };
    expect(value(after, 'core_requests_total', ok) - value(before, 'core_requests_total', ok)).toBe(3);
    expect(value(after, 'core_requests_total', { ...ok, status: '404' }) - value(before, 'core_requests_total', { ...ok, status: '404' })).toBe(1);
    const count = { op: opId!, surface: 'rest' };
    expect(value(after, 'core_request_duration_seconds_count', count) - value(before, 'core_request_duration_seconds_count', count)).toBe(4);
  });

  it('counts appends per backend and stream kind, and the longest chain', async () => {
    const { key } = await mintKey(server);
    const slug = `metrics-${Date.now().toString(36)}`;
    await createMachine(server, key, { slug });
    const before = await scrape(server);
    for (let i = 0; i < 2; i++) expect((await server.call('POST', `/api/chain/${slug}/event`, { key, body: { type: 'm', payload: { i } } })).status).toBe(200);
    const after = await scrape(server);
    const chain = { backend: 'lowdb', kind: 'chain' };
    expect(value(after, 'core_log_appends_total', chain) - value(before, 'core_log_appends_total', chain)).toBeGreaterThanOrEqual(2);
    expect(value(after, 'core_log_longest_stream_rows', chain)).toBeGreaterThanOrEqual(3);
  });

  it('gauges open SSE subscribers and drops them when they leave', async () => {
    const { key } = await mintKey(server);
    const slug = `metrics-sse-${Date.now().toString(36)}`;
    await createMachine(server, key, { slug });
    const base = value(await scrape(server), 'core_sse_subscribers');
    const abort = new AbortController();
    const res = await fetch(`${server.url}/api/chain/${slug}/explore/sse`, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(value(await scrape(server), 'core_sse_subscribers')).toBe(base + 1);
    abort.abort();
    await expect.poll(async () => value(await scrape(server), 'core_sse_subscribers')).toBe(base);
  });

  it('keeps a separate registry per core', async () => {
    const other = await serverForTest();
    for (let i = 0; i < 2; i++) await other.call('GET', '/api/pulse');
    const mine = await scrape(server);
    const theirs = await scrape(other);
    const pulse = theirs.find((s) => s.name === 'core_requests_total' && s.labels.status === '200' && s.labels.surface === 'rest');
    expect(pulse?.value).toBe(2);
    expect(value(mine, 'core_requests_total', pulse!.labels)).not.toBe(2);
  });
});

describe('metric hooks', () => {
  it('records the lag of each scheduled fire after the start of its due tick', async () => {
    const clock = createFakeClock();
    const lags: number[] = [];
    const due = clock.tick() + 1;
    const scheduler = new ContractScheduler({
      clock,
      loadAll: async () => [['c1', due]],
      fireDue: async () => {
        clock.set(tickStartMs(due) + 120);
        return undefined;
      },
      onError: () => undefined,
      onFire: (ms) => lags.push(ms),
    });
    await scheduler.start();
    await scheduler.runDue(tickStartMs(due) + 5);
    await scheduler.stop();
    expect(lags).toEqual([120]);
  });

  it('puts a request duration in the first bucket whose bound it does not exceed, and escapes label values', async () => {
    const metrics = createMetrics();
    // Bounds are 0.001, 0.0025, ... 10 seconds: exactly on a bound counts in that bucket (le is <=).
    for (const ms of [0.5, 1, 2.5, 3, 20_000]) metrics.observe('a.op', 200, ms, 'rest');
    metrics.observe('a.op', 404, 1, 'rest');
    metrics.observe('odd"op\\x\n', 500, 1, 'mcp-http');
    const samples = parseExposition(await metrics.render());
    const bucket = (le: string) => value(samples, 'core_request_duration_seconds_bucket', { op: 'a.op', surface: 'rest', le });
    expect([bucket('0.001'), bucket('0.0025'), bucket('0.005'), bucket('10'), bucket('+Inf')]).toEqual([3, 4, 5, 5, 6]);
    expect(value(samples, 'core_request_duration_seconds_count', { op: 'a.op', surface: 'rest' })).toBe(6);
    expect(value(samples, 'core_request_duration_seconds_sum', { op: 'a.op', surface: 'rest' })).toBeCloseTo(20.008, 9);
    expect(value(samples, 'core_requests_total', { op: 'a.op', status: '200', surface: 'rest' })).toBe(5);
    expect(value(samples, 'core_requests_total', { op: 'a.op', status: '404', surface: 'rest' })).toBe(1);
    expect(value(samples, 'core_requests_total', { op: 'odd"op\\x\n', status: '500', surface: 'mcp-http' })).toBe(1);
  });

  it('counts sandbox runs by exit code', async () => {
    const metrics = createMetrics();
    const outcome = { exit_code: 1, reason: 'exit' as const, stdout: '', stderr: 'boom', stdout_truncated: false, stderr_truncated: false, duration_ms: 12 };
    const runner = countSandboxRuns({ ready: async () => undefined, run: async () => outcome }, metrics);
    await runner.run({ code: 'raise SystemExit(1)', timeoutMs: 1000 });
    const samples = parseExposition(await metrics.render());
    expect(value(samples, 'core_sandbox_runs_total', { exit_code: '1', reason: 'exit' })).toBe(1);
    expect(value(samples, 'core_sandbox_run_duration_seconds_count')).toBe(1);
  });
});
