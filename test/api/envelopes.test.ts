import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const clock = createFakeClock();

const server = useServer({}, clock);

async function machineWithToken(slug: string) {
  const { key, machineKey } = await spinUp(server, slug);
  const genesis = await server.call('POST', `/api/chain/${slug}/tally/token/genesis`, {
    key,
    body: { name: 'Lab token', symbol: 'LAB', max_supply: 1000, mint_rate_per_tick: 5 },
  });
  expect(genesis.status).toBe(200);
  // A token fills at its mint rate per tick from genesis: let a few ticks pass.
  clock.advance(777 * 4);
  return { key, machineKey };
}

describe('envelopes', () => {
  it('are minted by a solve on the machine of the key that asked', async () => {
    const { machineKey } = await machineWithToken('env-solve');
    const solvers = await server.call('GET', '/api/solvers/root-brent');
    const res = await server.call('POST', '/api/solvers/root-brent/solve', { key: machineKey, body: { inputs: solvers.body.solver.example } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.envelope).toMatchObject({ machine_slug: 'env-solve' });
    expect(res.body.envelope.token_id).toMatch(/^tt_/);
  });

  it('are minted by a compute, and not for an anonymous caller', async () => {
    const { machineKey } = await machineWithToken('env-compute');
    const body = { operators: ['NM19'], inputs: { m: 2, a: 3 } };
    const mine = await server.call('POST', '/api/compute', { key: machineKey, body });
    expect(mine.body.envelope).toMatchObject({ machine_slug: 'env-compute' });
    const anonymous = await server.call('POST', '/api/compute', { body });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.envelope).toBeUndefined();
  });

  it('are minted by a driven contract transition and reported as tally', async () => {
    const { key } = await machineWithToken('env-contract');
    const definition = {
      name: 'toggle',
      version: '1.0',
      states: { off: { initial: true }, on: {} },
      transitions: [{ from: 'off', to: 'on', operator: 'KO42', proof_required: false }],
    };
    const created = await server.call('POST', '/api/chain/env-contract/contracts/custom', { key, body: { definition } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.contract.id as string;
    const fired = await server.call('POST', `/api/chain/env-contract/contracts/${id}/transition`, { key, body: { to: 'on', input: {} } });
    expect(fired.status, JSON.stringify(fired.body)).toBe(200);
    expect(fired.body.tally?.token_id, JSON.stringify(fired.body)).toMatch(/^tt_/);
    expect(Number.isInteger(fired.body.tally.remaining)).toBe(true);
    const rows = await server.call('GET', '/api/chain/env-contract/activity?type=tally.minted', { key });
    expect(rows.body.rows.length).toBeGreaterThanOrEqual(1);
  });
});
