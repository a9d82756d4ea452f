import { describe, expect, it } from 'vitest';
import { createFakeClock, tickStartMs, TICK_MS } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * Re-check at every wait, for scheduled fires: a contract fires for its principal (who set
 * its definition), so a fire is made only while that principal still holds the operator role on the
 * machine, read at the fire, not only when the contract was created.
 */
const clock = createFakeClock(tickStartMs(2_287_000_000));
const server = useServer({}, clock);

const nowTick = () => Math.floor(clock.now() / TICK_MS);
async function runAt(tick: number) {
  clock.set(tickStartMs(tick));
  await server.core.services.contracts.scheduler.runDue();
  await server.core.services.contracts.settled();
}

const heartbeat = {
  name: 'heartbeat',
  states: { running: { initial: true } },
  transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: 2 } }],
};

describe('a scheduled fire', () => {
  it('is not made once the member who set the contract lost the operator role, and resumes once an operator takes it over', async () => {
    const owner = await mintKey(server);
    const member = await mintKey(server);
    const slug = 'fire-recheck';
    await createMachine(server, owner.key, { slug });
    expect((await server.call('POST', `/api/chain/${slug}/admins`, { key: owner.key, body: { uid: member.uid, role: 'operator' } })).status).toBe(200);
    const made = await server.call('POST', `/api/chain/${slug}/contracts`, { key: member.key, body: { definition: heartbeat } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.contract.id as string;
    const audit = async () => (await server.call('GET', `/api/chain/${slug}/contracts/${id}/audit`, { key: owner.key })).body.transitions as any[];

    const start = nowTick();
    await runAt(start + 2);
    expect((await audit()).map((r) => r.success)).toEqual([true]);

    // Demoted to viewer: the member may no longer set contracts, so the contract no longer fires for it.
    expect((await server.call('PATCH', `/api/chain/${slug}/admins/${member.uid}`, { key: owner.key, body: { role: 'viewer' } })).status).toBe(200);
    await runAt(start + 4);
    const refused = (await audit()).find((r) => r.tick_number === start + 4);
    expect(refused).toMatchObject({ success: false, error: 'principal_lost_access', triggered_by: 'trigger' });
    expect((await audit()).map((r) => r.success)).toEqual([true, false]);

    // The owner edits it: the owner is its principal now, and it fires again.
    const edited = await server.call('PATCH', `/api/chain/${slug}/contracts/${id}`, { key: owner.key, body: { definition: heartbeat } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await runAt(start + 6);
    expect((await audit()).map((r) => [r.tick_number - start, r.success])).toEqual([
      [2, true],
      [4, false],
      [6, true],
    ]);
  });
});
