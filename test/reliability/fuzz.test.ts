import fc from 'fast-check';
import { writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../src/transports/mcp/call-tool.js';
import type { Operation } from '../../src/registry/registry.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { FIXTURE_SLUG, inputsFor } from './arbitraries.js';
import { ACCEPTED_CODES, Tally, queryValue, requestOf, withTimeout } from './fuzz-harness.js';

/**
 * Schema fuzzing of every operation through REST, the MCP tool surface and core_http: every answer is
 * a success or a refusal with a stable code; never INTERNAL, never a 500, never a hang.
 */
const SEED = 20261122;
const RUNS = { rest: 20, mcp: 15, http: 15 };

const server = useServer({ CORE_RATE_LIMIT: 'off' });
let owner: { key: string; uid: string };
let slug = '';
let fixtures = 0;
const tally = new Tally();
const findings: string[] = [];

async function freshFixture() {
  owner = await mintKey(server);
  slug = `fuzz-${++fixtures}`;
  await createMachine(server, owner.key, { slug, isPublic: false });
}

/** Destructive operations (key revocation, freezes) may take the fixture down: make a new one when they did. */
async function ensureFixture() {
  const res = await server.call('GET', `/api/chain/${slug}/activity?limit=1`, { key: owner.key });
  if (res.status !== 200) await freshFixture();
}

beforeAll(freshFixture);

afterAll(async () => {
  const lines = [...tally.rows.entries()].map(([id, r]) => {
    const refused = [...r.refused.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ');
    return `| ${id} | ${r.rest} | ${r.mcp} | ${r.http} | ${r.ok} | ${refused} |`;
  });
  if (process.env.FUZZ_REPORT) await writeFile(process.env.FUZZ_REPORT, `${lines.join('\n')}\n`);
});

/** Puts the live fixture slug where the generator left its placeholder. */
function withSlug(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    Object.defineProperty(out, k, { value: v === FIXTURE_SLUG ? slug : v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function fail(what: string) {
  findings.push(what);
}

function outcomeOfError(code: unknown, status: number, where: string): string {
  if (typeof code !== 'string' || !ACCEPTED_CODES.has(code) || (status >= 500 && code !== 'NOT_IMPLEMENTED' && code !== 'UNAVAILABLE')) {
    fail(`${where}: status ${status} code ${String(code)}`);
  }
  return String(code);
}

async function viaRest(op: Operation, input: unknown): Promise<string> {
  const { path, query, body } = requestOf(op, input, { slug, motherSlug: slug });
  const qs = new URLSearchParams(query).toString();
  const url = `${server.url}${path}${qs ? `?${qs}` : ''}`;
  const where = `REST ${op.id} ${op.method} ${path.slice(0, 120)}`;
  const abort = new AbortController();
  const res = await withTimeout(
    fetch(url, {
      method: op.method,
      headers: { authorization: `Bearer ${owner.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: abort.signal,
    }),
    where,
  );
  try {
    if (op.response.kind === 'stream' && res.status === 200) {
      if (!res.headers.get('content-type')?.startsWith('text/event-stream')) fail(`${where}: stream answered 200 without text/event-stream`);
      return 'ok';
    }
    const text = await withTimeout(res.text(), where);
    if (res.status < 300) return 'ok';
    // Node refuses a request line or headers over 16 KiB itself, before the app: a protocol answer, not a crash.
    if (res.status === 431) return 'HTTP_431';
    let code: unknown;
    try {
      code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    } catch {
      /* not JSON: reported below */
    }
    return outcomeOfError(code, res.status, `${where} -> ${text.slice(0, 300)}`);
  } finally {
    abort.abort();
  }
}

async function viaMcp(op: Operation, input: unknown): Promise<string> {
  const args = (op.tool.actions.length > 1 ? { action: op.action, ...(input as object) } : input) as Record<string, unknown>;
  const where = `MCP ${op.tool.name}/${op.action}`;
  const result = await withTimeout(
    callTool(server.core.surface, op.tool.name, args, { bearer: owner.key }, { surface: 'mcp-http', signal: AbortSignal.timeout(300) }),
    where,
  );
  if (!result.isError) return 'ok';
  const error = (result.structuredContent as { error?: { code?: string } } | undefined)?.error;
  return outcomeOfError(error?.code, 400, `${where} -> ${JSON.stringify(error).slice(0, 300)}`);
}

async function viaHttpTool(op: Operation, input: unknown): Promise<string> {
  const { path, query, body } = requestOf(op, input, { slug, motherSlug: slug });
  const httpOp = server.core.registry.byId.get('http.call')!;
  const where = `core_http ${op.id} ${path.slice(0, 120)}`;
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) q[k] = queryValue(v);
  const call = { method: op.method, path, query: q, max_ms: 150, max_events: 3, ...(body !== undefined ? { body } : {}) };
  const result = await withTimeout(server.core.pipeline.invoke(httpOp, call, { bearer: owner.key }, { surface: 'core_http' }), where);
  if (result.ok) return 'ok';
  return outcomeOfError(result.error.code, result.error.status, `${where} -> ${result.error.code} ${result.error.message.slice(0, 200)}`);
}

describe('schema fuzzing of every operation', () => {
  it('answers every generated input on every surface with success or a stable 4xx code, never INTERNAL, a crash or a hang', async () => {
    // Destructive operations last, so they take the fixture down as rarely as possible.
    const ops = [...server.core.registry.operations].sort((a, b) => Number(!!a.def.destructive) - Number(!!b.def.destructive));
    const only = process.env.FUZZ_ONLY;
    for (const op of ops) {
      if (only && !op.id.includes(only)) continue;
      await ensureFixture();
      if (process.env.FUZZ_TRACE) writeSync(2, `fuzz ${op.id}\n`);
      const arb = inputsFor(op.inputSchema);
      const surfaces = [
        ['rest', viaRest, RUNS.rest],
        ['mcp', viaMcp, RUNS.mcp],
        ['http', viaHttpTool, RUNS.http],
      ] as const;
      for (const [name, send, numRuns] of surfaces) {
        if (name === 'http' && op.id === 'http.call') continue; // core_http refuses to call itself
        await fc.assert(
          fc.asyncProperty(arb, async (input) => {
            if (process.env.FUZZ_TRACE) writeSync(2, `  ${name} ${JSON.stringify(input)?.slice(0, 300)}\n`);
            const outcome = await send(op, withSlug(input)).catch((err: Error) => {
              fail(`${name} ${op.id}: ${err.message}`);
              return 'threw';
            });
            tally.add(op.id, name, outcome);
          }),
          { seed: SEED, numRuns, endOnFailure: true },
        );
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // One line per distinct problem (surface, operation, first words), so a report stays readable.
    const distinct = [...new Map(findings.map((f) => [f.split(' -> ')[0]!.replace(/ (GET|POST|PUT|PATCH|DELETE) \S+/, ''), f])).values()];
    expect(distinct).toEqual([]);
    // The server still answers after everything above.
    expect((await server.call('GET', '/api/health')).status).toBeLessThan(500);
  });

  it('never lets a prototype key supply a field, on REST, MCP or core_http', async () => {
    await ensureFixture();
    const before = await server.call('GET', `/api/chain/${slug}/activity?limit=100`, { key: owner.key });
    const smuggled = '{"__proto__": {"type": "smuggled"}}';
    const rest = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: smuggled });
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('VALIDATION_FAILED');
    const args = JSON.parse(`{"action": "append_event", "slug": "${slug}", "__proto__": {"type": "smuggled"}}`) as Record<string, unknown>;
    const op = server.core.registry.byId.get('chain.appendEvent')!;
    const mcp = await callTool(server.core.surface, op.tool.name, { ...args, action: op.action }, { bearer: owner.key }, { surface: 'mcp-http' });
    expect(mcp.isError).toBe(true);
    const http = await server.core.pipeline.invoke(
      server.core.registry.byId.get('http.call')!,
      { method: 'POST', path: `/api/chain/${slug}/event`, body: JSON.parse(smuggled) },
      { bearer: owner.key },
      { surface: 'core_http' },
    );
    expect(http.ok).toBe(false);
    const after = await server.call('GET', `/api/chain/${slug}/activity?limit=100`, { key: owner.key });
    expect(after.body.rows.length).toBe(before.body.rows.length);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });
});
