import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFakeClock, tickStartMs } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * A condition cannot hold the event loop. `matches` runs on RE2 (linear), and
 * an evaluation that needs more than its step budget is refused with 422 on simulate, dry-run and
 * transition, and recorded as a failed row on a scheduled fire. Nothing here measures time: the
 * test timeout only catches a hang (the old code spent ~1 s per 29 characters of this input, doubling).
 */
const T0 = 2_287_000_000;
const clock = createFakeClock(tickStartMs(T0));
let n = 0;

const server = useServer({}, clock);

const EVIL = 's.matches("^(a+)+$")';
const NESTED = 'l.all(x, l.all(y, x + y >= 0))';
const LIST = Array.from({ length: 1000 }, (_, i) => i);

const gate = (condition: string, extra: Record<string, unknown> = {}) => ({
  name: 'gate',
  states: { closed: { initial: true }, open: {} },
  transitions: [{ from: 'closed', to: 'open', operator: 'KO42', condition, ...extra }],
});

async function setup() {
  const slug = `budget-${++n}`;
  const owner = await mintKey(server);
  await createMachine(server, owner.key, { slug });
  const create = async (definition: unknown) => {
    const res = await server.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.contract.id as string;
  };
  return { slug, owner, create };
}

describe('condition budget', () => {
  it('evaluates a catastrophic-backtracking pattern over a 1000-character input at once (RE2)', async () => {
    const t = await setup();
    const input = { s: `${'a'.repeat(1000)}!` };
    const res = await server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body: { definition: gate(EVIL), input } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results[0]).toMatchObject({ outcome: 'filtered', reason: `condition is false: ${EVIL}` });
    const matching = await server.call('POST', '/api/contracts/simulate', {
      key: t.owner.key,
      body: { definition: gate(EVIL), input: { s: 'a'.repeat(1000) } },
    });
    expect(matching.body.results[0].outcome).toBe('fire');
    const id = await t.create(gate(EVIL));
    const fired = await server.call('POST', `/api/chain/${t.slug}/contracts/${id}/transition`, { key: t.owner.key, body: { to: 'open', input } });
    expect(fired.status).toBe(400);
    expect(fired.body.error.details.code).toBe('condition_failed');
  });

  it('refuses patterns RE2 cannot run (backreferences, look-around) when the definition is written', async () => {
    const t = await setup();
    for (const condition of ['s.matches("^(a+)\\\\1$")', 's.matches("(?=a)a")']) {
      const res = await server.call('POST', `/api/chain/${t.slug}/contracts`, { key: t.owner.key, body: { definition: gate(condition) } });
      expect(res.status, condition).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.message).toContain('RE2 syntax');
    }
  });

  it('refuses comprehensions nested three deep when the definition is written', async () => {
    const t = await setup();
    const res = await server.call('POST', '/api/contracts/simulate', {
      key: t.owner.key,
      body: { definition: gate('l.all(x, l.all(y, l.exists(z, x + y + z > 0)))'), input: { l: [1] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('nest at most 2 deep');
  });

  it('answers 422 condition_over_budget on simulate, dry-run and transition over REST, MCP and core_http', async () => {
    const t = await setup();
    const id = await t.create(gate(NESTED));
    const base = `/api/chain/${t.slug}/contracts/${id}`;
    const input = { l: LIST };
    const calls = [
      await server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body: { definition: gate(NESTED), input } }),
      await server.call('POST', '/api/contracts/simulate', { key: t.owner.key, body: { slug: t.slug, contract_id: id, input } }),
      await server.call('POST', `${base}/dry-run`, { key: t.owner.key, body: { input } }),
      await server.call('POST', `${base}/transition`, { key: t.owner.key, body: { to: 'open', input } }),
    ];
    for (const [i, res] of calls.entries()) {
      expect(res.status, `call ${i}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'UNPROCESSABLE', details: { code: 'condition_over_budget' } });
      expect(res.body.error.message).toContain('over budget');
    }
    // The refused transition wrote nothing.
    expect((await server.call('GET', `${base}/audit`, { key: t.owner.key })).body.transitions).toEqual([]);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.owner.key}` } },
    });
    const client = new Client({ name: 'budget-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const viaMcp = await client.callTool({ name: 'core_contract_simulate', arguments: { action: 'dry_run', slug: t.slug, id, input } });
      expect(viaMcp.isError).toBe(true);
      expect(viaMcp.structuredContent).toMatchObject({ error: { code: 'UNPROCESSABLE', details: { code: 'condition_over_budget' } } });
      const viaHttp = await client.callTool({
        name: 'core_http',
        arguments: { method: 'POST', path: '/api/contracts/simulate', body: { definition: gate(NESTED), input } },
      });
      expect(viaHttp.isError).toBe(true);
      expect(viaHttp.structuredContent).toMatchObject({ error: { code: 'UNPROCESSABLE' } });
    } finally {
      await client.close();
    }
    // Within the budget the same condition runs.
    const small = await server.call('POST', `${base}/dry-run`, { key: t.owner.key, body: { input: { l: LIST.slice(0, 50) } } });
    expect(small.status).toBe(200);
    expect(small.body.results[0].outcome).toBe('fire');
  });

  it('records an over-budget scheduled fire as a failed row and keeps firing', async () => {
    const t = await setup();
    const id = await t.create({ ...gate(NESTED, { trigger: { kind: 'every', every_ticks: 1 } }), defaults: { l: LIST } });
    const start = Math.floor(clock.now() / 777);
    for (let tick = start + 1; tick <= start + 2; tick++) {
      clock.set(tickStartMs(tick));
      await server.core.services.contracts.scheduler.runDue();
      await server.core.services.contracts.settled();
    }
    const audit = await server.call('GET', `/api/chain/${t.slug}/contracts/${id}/audit`, { key: t.owner.key });
    const rows = audit.body.transitions as Array<{ success: boolean; error: string; to_state: string }>;
    expect(rows.length).toBe(2);
    for (const row of rows) expect(row).toMatchObject({ success: false, error: 'condition_over_budget', to_state: 'closed' });
  });
});
