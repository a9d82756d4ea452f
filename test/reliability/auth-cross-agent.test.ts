import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_OF, type ErrorCode } from '../../src/errors.js';
import type { Operation } from '../../src/registry/registry.js';
import { validInput } from './auth-harness.js';
import { credentialHeaders, startAuthFixture, type AuthFixture, type Creds, type World } from './auth-world.js';
import { queryValue, requestOf, withTimeout } from './fuzz-harness.js';

/**
 * Cross-object cases of the auth matrix: acting for another uid. In the matrix's world the owner
 * granted the session user a role on both machines, which it could do without asking; that must not
 * let the owner (or anyone else) use the session user's agent store. Every operation under
 * `/api/agent/` (taken from the registry, so a new one is covered the day it is added) is called with
 * the member's uid and the owner's own machine, over REST, MCP (tools/call) and core_http, and must be
 * refused with a 403 that is not a role refusal, or a 404 for a machine the caller cannot read.
 */
type Surface = 'rest' | 'mcp' | 'core_http';
const SURFACES: Surface[] = ['rest', 'mcp', 'core_http'];

let fx: AuthFixture;
let world: World;
let agentOps: Operation[] = [];
const clients = new Map<string, Client>();

beforeAll(async () => {
  fx = await startAuthFixture('core-authx-');
  agentOps = fx.running.core.registry.operations.filter((op) => op.path.startsWith('/api/agent/'));
  world = await fx.buildWorld();
});

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close().catch(() => undefined)));
  await fx?.stop();
});

async function clientFor(creds: Creds): Promise<Client> {
  const id = JSON.stringify(creds);
  let client = clients.get(id);
  if (!client) {
    const transport = new StreamableHTTPClientTransport(new URL(`${fx.running.url}/api/mcp`), { requestInit: { headers: credentialHeaders(creds) } });
    client = new Client({ name: 'auth-cross-agent', version: '1.0.0' });
    await client.connect(transport);
    clients.set(id, client);
  }
  return client;
}

/** One call on one surface, as status, error code and message. */
async function callVia(surface: Surface, op: Operation, input: Record<string, unknown>, slug: string, creds: Creds) {
  if (surface === 'rest') {
    const res = await fx.callOp(op, input, slug, creds);
    return { status: res.status, code: res.json?.error?.code as string | undefined, message: String(res.json?.error?.message ?? '') };
  }
  const client = await clientFor(creds);
  let call: { name: string; arguments: Record<string, unknown> };
  if (surface === 'mcp') {
    const args: Record<string, unknown> = { ...input };
    if (fx.running.core.registry.actionsOf(op.tool).size > 1) args.action = op.action;
    call = { name: op.tool.name, arguments: args };
  } else {
    const { path, query, body } = requestOf(op, input, { slug });
    const args: Record<string, unknown> = { method: op.method, path };
    if (Object.keys(query).length > 0) args.query = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, queryValue(v)]));
    if (body !== undefined) args.body = body;
    call = { name: 'core_http', arguments: args };
  }
  const result = await withTimeout(client.callTool(call), `${surface} ${op.id}`);
  const error = (result.structuredContent as { error?: { code: ErrorCode; message: string } } | undefined)?.error;
  if (!result.isError) return { status: 200, code: undefined, message: '' };
  return { status: error ? STATUS_OF[error.code] : 0, code: error?.code, message: error?.message ?? JSON.stringify(result) };
}

/** The input of `op` acting for `uid` on machine `slug`. */
function inputFor(op: Operation, uid: string, slug: string): Record<string, unknown> {
  const input = validInput(op, slug, fx.clock.now());
  if (!input) throw new Error(`${op.id}: no valid input`);
  return { ...input, uid, ...('slug' in op.def.input.shape ? { slug } : {}) };
}

describe.each(SURFACES)('acting for another agent over %s', (surface) => {
  it('refuses every agent-store operation to the owner of a machine the agent holds a role on', async () => {
    expect(agentOps.length).toBeGreaterThanOrEqual(21);
    const wrong: string[] = [];
    for (const op of agentOps) {
      for (const slug of [world.priv, world.pub]) {
        const res = await callVia(surface, op, inputFor(op, world.uids.session!, slug), slug, world.callers.owner);
        const refused = res.status === 403 && res.code === 'FORBIDDEN' && !/needs the \w+ role/.test(res.message);
        if (!refused) wrong.push(`${op.id} on ${slug}: ${res.status} ${res.code ?? ''} ${res.message.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('refuses them to other members and to strangers naming the agent, hiding a private machine as missing', async () => {
    const wrong: string[] = [];
    for (const op of agentOps) {
      for (const [kind, slug, expected] of [
        ['admin', world.priv, 403],
        ['operator', world.pub, 403],
        ['other_owner', world.otherSlug, 403],
        ['other_owner', world.priv, null],
      ] as const) {
        const res = await callVia(surface, op, inputFor(op, world.uids.session!, slug), slug, world.callers[kind]);
        // A private machine the caller cannot read is missing, except where only the agent itself may act at all.
        const want = expected ?? (op.def.agentStore === 'self' ? 403 : 404);
        if (res.status !== want) wrong.push(`${op.id} ${kind} on ${slug}: expected ${want}, got ${res.status} ${res.message.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('the agent itself', () => {
  it('still reads its own store with its session, naming a machine it holds a role on', async () => {
    const reads = agentOps.filter((op) => op.method === 'GET');
    expect(reads.length).toBeGreaterThanOrEqual(10);
    const wrong: string[] = [];
    for (const op of reads) {
      const res = await callVia('rest', op, inputFor(op, world.uids.session!, world.priv), world.priv, world.callers.session);
      // Reads of something that does not exist yet (a plan id, a file path) are 404 domain answers, not refusals.
      if (res.status === 401 || res.status === 403 || (res.status === 404 && res.message === `No machine "${world.priv}"`))
        wrong.push(`${op.id}: ${res.status} ${res.message}`);
    }
    expect(wrong).toEqual([]);
  });
});
