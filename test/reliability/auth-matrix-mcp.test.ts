import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, STATUS_OF, type ErrorCode } from '../../src/errors.js';
import type { Operation } from '../../src/registry/registry.js';
import { CALLER_KINDS, expectedClass, validInput, type CallerKind } from './auth-harness.js';
import { credentialHeaders, judge, startAuthFixture, type AuthFixture, type Creds, type World } from './auth-world.js';
import { queryValue, requestOf, withTimeout } from './fuzz-harness.js';

/**
 * The auth matrix of auth-matrix.test.ts, run through `POST /api/mcp` with the official MCP SDK client
 * (Streamable HTTP, credentials as HTTP headers) and through `core_http` (called as an MCP tool): the
 * same allow/deny as REST, refusals as `isError` results carrying the stable code, private machines
 * answered exactly like missing ones, no private slug and no secret in any answer or log line.
 *
 * Sampling (deterministic): each (operation, caller kind) runs on both surfaces, on the private machine
 * through one surface and on the public machine through the other, chosen by a hash of the pair; so
 * every operation meets every caller kind on each surface, and every (operation, kind, machine) cell
 * of the REST matrix is run once over MCP or core_http. `AUTHM_FULL=1` runs the full product.
 */
type Surface = 'mcp' | 'core_http';
const SURFACES: Surface[] = ['mcp', 'core_http'];
const FULL = process.env.AUTHM_FULL === '1';

let fx: AuthFixture;
let ops: Operation[] = [];
let world: World;
const clients = new Map<string, Client>();
const counts: Record<Surface, number> = { mcp: 0, core_http: 0 };
/** Time spent per surface and operation, for AUTHM_REPORT. */
const slow = new Map<string, number>();

interface McpAnswer {
  status: number;
  json: any;
  text: string;
  isError: boolean;
}

async function clientFor(creds: Creds): Promise<Client> {
  const id = JSON.stringify(creds);
  let client = clients.get(id);
  if (!client) {
    const transport = new StreamableHTTPClientTransport(new URL(`${fx.running.url}/api/mcp`), {
      requestInit: { headers: credentialHeaders(creds) },
    });
    client = new Client({ name: 'auth-matrix', version: '1.0.0' });
    await client.connect(transport);
    clients.set(id, client);
  }
  return client;
}

/** Arguments of the tool call that runs `op` with `input` on a surface. */
function toolCall(op: Operation, input: Record<string, unknown>, slug: string, surface: Surface) {
  if (surface === 'mcp') {
    const args: Record<string, unknown> = { ...input };
    // Streams collect events for a bounded time over MCP: keep it short.
    if (op.response.kind === 'stream') Object.assign(args, { max_events: 1, max_ms: 100 });
    if (fx.running.core.registry.actionsOf(op.tool).size > 1) args.action = op.action;
    return { name: op.tool.name, arguments: args };
  }
  const { path, query, body } = requestOf(op, input, { slug, motherSlug: slug });
  const args: Record<string, unknown> = { method: op.method, path, max_events: 1, max_ms: 100 };
  const q = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, queryValue(v)]));
  if (Object.keys(q).length > 0) args.query = q;
  if (body !== undefined) args.body = body;
  return { name: 'core_http', arguments: args };
}

/**
 * One call through MCP; a refusal must be an `isError` result with a stable code (its HTTP status is
 * derived from the code, so the REST classification applies). A JSON-RPC error is a finding.
 */
async function callVia(surface: Surface, op: Operation, input: Record<string, unknown>, slug: string, creds: Creds): Promise<McpAnswer> {
  const client = await clientFor(creds);
  const call = toolCall(op, input, slug, surface);
  const where = `${surface} ${op.id}`;
  counts[surface]++;
  const started = performance.now();
  const result = await withTimeout(client.callTool(call), where);
  const ms = performance.now() - started;
  slow.set(`${surface} ${op.id}`, (slow.get(`${surface} ${op.id}`) ?? 0) + ms);
  const text = JSON.stringify(result);
  fx.scanForSecrets(text, where);
  if (result.isError) {
    const error = (result.structuredContent as { error?: { code?: string } } | undefined)?.error;
    if (!error || !ERROR_CODES.includes(error.code as ErrorCode)) throw new Error(`${where}: isError without a stable code: ${text.slice(0, 300)}`);
    if (error.code === 'INTERNAL') throw new Error(`${where}: INTERNAL: ${text.slice(0, 300)}`);
    return { status: STATUS_OF[error.code as ErrorCode], json: { error }, text, isError: true };
  }
  return { status: 200, json: result.structuredContent, text, isError: false };
}

/** The machine(s) a (surface, operation, kind) cell runs on. */
function machinesFor(surface: Surface, op: Operation, kind: CallerKind): ('private' | 'public')[] {
  if (FULL) return ['private', 'public'];
  const bit = createHash('sha256').update(`${op.id}|${kind}`).digest()[0]! & 1;
  return [(bit === 0) === (surface === 'mcp') ? 'private' : 'public'];
}

beforeAll(async () => {
  fx = await startAuthFixture('core-authm-mcp-');
  ops = [...fx.running.core.registry.operations].sort((a, b) => Number(!!a.def.destructive) - Number(!!b.def.destructive));
  world = await fx.buildWorld();
});

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close().catch(() => undefined)));
  await fx?.stop();
  if (process.env.AUTHM_REPORT)
    console.log(
      JSON.stringify({
        counts,
        worlds: fx?.worlds,
        slowest: [...slow]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([k, v]) => `${k} ${Math.round(v)} ms`),
      }),
    );
});

describe.each(SURFACES)('auth matrix over %s', (surface) => {
  it('gives every caller kind the outcome class the registry promises, refusals as isError with the stable code', async () => {
    const wrong: string[] = [];
    const cells = new Set<string>();
    for (const op of ops) {
      for (const kind of CALLER_KINDS) {
        for (const machine of machinesFor(surface, op, kind)) {
          const slug = machine === 'private' ? world.priv : world.pub;
          const input = validInput(op, slug, fx.clock.now());
          // core_http checks the target's input before its auth; MCP like REST. Without a valid input
          // only the credential checks are observable.
          if (!input && !(surface === 'mcp' && op.def.auth === 'bearer' && expectedClass(op, kind, machine) === 'unauthenticated')) continue;
          const res = await callVia(surface, op, input ?? { slug }, slug, world.callers[kind]);
          cells.add(`${op.id}|${kind}`);
          const { ok, want } = judge(op, kind, machine, res.status, res.json, slug);
          if (!ok) wrong.push(`${op.id} ${machine} ${kind}: expected ${want}, got ${res.status} ${res.text.slice(0, 160)}`);
          if (!res.isError && op.method !== 'GET' && !(await fx.worldIntact(world))) world = await fx.buildWorld();
        }
      }
    }
    expect(wrong).toEqual([]);
    // Every operation met every caller kind on this surface.
    expect(cells.size).toBe(ops.length * CALLER_KINDS.length);
  }, 600_000); // a hang-catcher only

  it('answers a caller who cannot read a private machine exactly as if it did not exist', async () => {
    const differ: string[] = [];
    let ghosts = 0;
    for (const op of ops) {
      if (op.id === 'chain.createMachine' || op.def.destructive) continue;
      const props = (op.inputSchema.properties ?? {}) as object;
      if (!('slug' in props) && !('motherSlug' in props)) continue;
      for (const kind of ['none', 'other_owner'] as const) {
        const input = validInput(op, world.priv, fx.clock.now());
        if (!input) continue;
        const ghost = `authm-gone-${surface === 'mcp' ? 'm' : 'h'}-${++ghosts}`;
        const ghostInput = validInput(op, ghost, fx.clock.now())!;
        const a = await callVia(surface, op, input, world.priv, world.callers[kind]);
        const b = await callVia(surface, op, ghostInput, ghost, world.callers[kind]);
        const norm = (r: McpAnswer, slug: string) =>
          JSON.stringify({ isError: r.isError, code: r.json?.error?.code, message: r.json?.error?.message, details: r.json?.error?.details }).replaceAll(
            slug,
            'SLUG',
          );
        const same = !a.isError && !b.isError ? true : norm(a, world.priv) === norm(b, ghost);
        if (!same) differ.push(`${op.id} ${kind}: private ${norm(a, world.priv)} vs unknown ${norm(b, ghost)}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('never shows a private machine in any read, list, directory, count or stream of a caller who may not read it', async () => {
    await fx.send('POST', `/api/chain/${world.priv}/event`, world.callers.owner, { type: 'authm.secret', payload: { surface } });
    const seen: string[] = [];
    for (const op of ops) {
      if (op.method !== 'GET') continue;
      for (const kind of ['none', 'other_owner'] as const) {
        const input = validInput(op, world.pub, fx.clock.now());
        if (!input) continue;
        const res = await callVia(surface, op, input, world.pub, world.callers[kind]);
        if (res.text.includes(world.priv) || res.text.includes('authm.secret')) seen.push(`${op.id} ${kind}: ${res.text.slice(0, 200)}`);
      }
    }
    expect(seen).toEqual([]);
  });
});

describe('secrets over MCP and core_http', () => {
  it('never returns an issued raw key, share token or session token in a tool result, and never logs one', () => {
    expect(counts.mcp).toBeGreaterThan(CALLER_KINDS.length * 150);
    expect(counts.core_http).toBeGreaterThan(CALLER_KINDS.length * 150);
    expect(fx.secrets.size).toBeGreaterThanOrEqual(9);
    for (const [i, line] of fx.logLines.entries()) fx.scanForSecrets(line, `log line ${i}`);
    expect([...new Set(fx.leaks)]).toEqual([]);
  });
});
