import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFakeClock, tickStartMs } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * Conditions whose cost is in their strings, not their syntax, are refused
 * with 422 on every surface, on a transition and on a scheduled fire; and a demo key's parallel
 * simulations beyond its concurrency get 429. Nothing here measures time: the old code answered these
 * after seconds (the test timeout only catches a hang) and with 200, and let every parallel call through.
 */
const T0 = 2_287_100_000;
const clock = createFakeClock(tickStartMs(T0));
let n = 0;

const server = useServer({}, clock);

const list = (count: number) => Array.from({ length: count }, (_, i) => i);
const FINDING_2 = { condition: 'l.all(x, size(s) > 0)', input: { l: list(3000), s: 'a'.repeat(150_000) } };
const CONCAT = { condition: 'l.all(x, (s + string(x)).contains("b") == false)', input: { l: list(8000), s: 'a'.repeat(300_000) } };
const FINDING_3 = { condition: 'l.all(x, s.startsWith("a") && size(s) > 0)', input: { l: list(400), s: 'a'.repeat(100_000) } };

const gate = (condition: string, extra: Record<string, unknown> = {}) => ({
  name: 'gate',
  states: { closed: { initial: true }, open: {} },
  transitions: [{ from: 'closed', to: 'open', operator: 'KO42', condition, ...extra }],
});

/** A new demo key (its own allowance) and a machine it owns. */
async function setup() {
  const slug = `cost-${++n}`;
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug });
  const create = async (definition: unknown) => {
    const res = await server.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    return res.body.contract.id as string;
  };
  return { slug, owner, create };
}

function expectRefused(error: { code: string; message: string; details?: { code?: string } }, what: string) {
  expect(error, what).toMatchObject({ code: 'UNPROCESSABLE', details: { code: 'condition_over_budget' } });
  expect(error.message, what).toMatch(/condition is over budget: .*iterate over fewer elements/);
}

describe('condition cost', () => {
  it('answers 422 condition_over_budget to the attack conditions over REST, MCP tools/call and core_http', async () => {
    for (const attack of [FINDING_2, CONCAT, FINDING_3]) {
      const t = await setup();
      const body = { definition: gate(attack.condition), input: attack.input };
      const rest = await server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body });
      expect(rest.status, attack.condition).toBe(422);
      expectRefused(rest.body.error, attack.condition);
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.owner.key}` } },
      });
      const client = new Client({ name: 'cost-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const viaMcp = await client.callTool({ name: 'core_contract_simulate', arguments: { action: 'simulate', ...body } });
        expect(viaMcp.isError, attack.condition).toBe(true);
        expectRefused((viaMcp.structuredContent as { error: never }).error, `mcp ${attack.condition}`);
        const viaHttp = await client.callTool({ name: 'core_http', arguments: { method: 'POST', path: '/api/contracts/simulate', body } });
        expect(viaHttp.isError, attack.condition).toBe(true);
        expectRefused((viaHttp.structuredContent as { error: never }).error, `core_http ${attack.condition}`);
      } finally {
        await client.close();
      }
    }
  });

  it('refuses a transition whose condition is an attack with 422 and records nothing', async () => {
    const t = await setup();
    const id = await t.create(gate(FINDING_2.condition));
    const base = `/api/chain/${t.slug}/contracts/${id}`;
    const res = await server.call('POST', `${base}/transition`, { key: t.owner.key, body: { to: 'open', input: FINDING_2.input } });
    expect(res.status).toBe(422);
    expectRefused(res.body.error, 'transition');
    const dry = await server.call('POST', `${base}/dry-run`, { key: t.owner.key, body: { input: FINDING_3.input } });
    expect(dry.status).toBe(422);
    expect((await server.call('GET', `${base}/audit`, { key: t.owner.key })).body.transitions).toEqual([]);
  });

  it('records a scheduled fire whose condition is an attack as failed with condition_over_budget', async () => {
    const t = await setup();
    const id = await t.create({ ...gate(FINDING_3.condition, { trigger: { kind: 'every', every_ticks: 1 } }), defaults: FINDING_3.input });
    const start = Math.floor(clock.now() / 777);
    clock.set(tickStartMs(start + 1));
    await server.core.services.contracts.scheduler.runDue();
    await server.core.services.contracts.settled();
    const audit = await server.call('GET', `/api/chain/${t.slug}/contracts/${id}/audit`, { key: t.owner.key });
    const rows = audit.body.transitions as Array<{ success: boolean; error: string; to_state: string }>;
    expect(rows.length).toBe(1);
    expect(rows[0]).toMatchObject({ success: false, error: 'condition_over_budget', to_state: 'closed' });
  });

  it('answers 429 RATE_LIMITED with Retry-After to a demo key beyond its parallel simulations', async () => {
    const t = await setup();
    const id = await t.create(gate('x > 0'));
    const machines = server.core.services.machines;
    const roleOf = machines.roleOf.bind(machines);
    // Holds simulations at their first read, so the test decides when they overlap (no timing involved).
    let arrived = 0;
    const waiters: Array<() => void> = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const arrival = (count: number) => new Promise<void>((r) => (arrived >= count ? r() : waiters.push(() => arrived >= count && r())));
    machines.roleOf = async (...args: Parameters<typeof roleOf>) => {
      arrived++;
      for (const w of waiters) w();
      await held;
      return roleOf(...args);
    };
    try {
      const body = { slug: t.slug, contract_id: id, input: { x: 1 } };
      const first = [0, 1].map(() => server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body }));
      await arrival(2);
      const third = server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body });
      // The old code let the third through to the held read too.
      const outcome = await Promise.race([third, arrival(3).then(() => 'reached the read' as const)]);
      expect(outcome).not.toBe('reached the read');
      const refused = outcome as Awaited<typeof third>;
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'condition_concurrency' } });
      expect(refused.body.error.message).toMatch(/At most 2 simulations or dry-runs may run at once/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      release();
      for (const res of await Promise.all(first)) expect(res.status).toBe(200);
    } finally {
      release();
      machines.roleOf = roleOf;
    }
    // Once they finished, the key simulates again.
    expect((await server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body: { slug: t.slug, contract_id: id, input: { x: 1 } } })).status).toBe(
      200,
    );
  });
});
