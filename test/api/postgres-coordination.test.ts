import { describe, expect, it, onTestFinished } from 'vitest';
import { createProposalRepository } from '../../src/domain/community/proposal-repository.js';
import { databaseUrl, SKIP_REASON } from '../store/postgres-harness.js';
import { twoNodes } from '../helpers/pg-nodes.js';
import { kineticProposal } from '../fixtures/community-operator.js';
import { eventually, listeningNow } from '../helpers/pg-wait.js';
import { SHARE_CHANNEL } from '../../src/pipeline/rate-limit.js';
import { mintKey } from '../helpers/server.js';

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('coordination between servers on one PostgreSQL database', () => {
  it('registers an operator promoted through one server in the other at once, without a restart', async () => {
    const { a, b } = await twoNodes('coord');
    const { key } = await mintKey(a);
    const proposed = await a.call('POST', '/api/community-operators/propose', { key, body: kineticProposal('KE_ACROSS') });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(200);
    const id = proposed.body.proposal.id as string;
    // The vote itself is covered elsewhere; here the proposal is accepted directly in the shared store.
    await createProposalRepository(a.core.store).update(id, (p) => p && { ...p, status: 'accepted' });
    expect((await b.call('GET', '/api/operators/KE_ACROSS')).status).toBe(404);
    await a.core.services.communityOperators.promote(id, { uid: 'reviewer', credential: 'session', proven: true });
    const found = await eventually(async () => {
      const res = await b.call('GET', '/api/operators/KE_ACROSS');
      expect(res.status).toBe(200);
      return res;
    });
    expect(found.body.operator).toMatchObject({ id: 'KE_ACROSS', tier: 'community', expression: '0.5 * m * v^2' });
    const computed = await b.call('POST', '/api/compute', { body: { operators: ['KE_ACROSS'], inputs: { m: 2, v: 3 } } });
    expect(computed.body).toMatchObject({ value: 9, unit: 'J' });
    // Both registries now agree on the version a signed claim names.
    expect(computed.body.signed.claim.registry_version).toBe(a.core.services.operators.registryVersion());
  });

  it('holds a key to one rate across both servers: a burst used through one is refused by the other', async () => {
    // One token per 1000 s: no bucket refills within the test, however slowly it runs.
    const { a, b } = await twoNodes('coord', { CORE_RATE_LIMIT: '0.001/4' });
    // What B hears of A's consumption, per bucket; B's limiter (subscribed at start) has applied a
    // message before this later listener sees it.
    const sharedToB = new Map<string, number>();
    const off = b.core.store.pubsub.subscribe(SHARE_CHANNEL, (message) => {
      for (const [id, entry] of Object.entries((message as { c?: Record<string, [number]> }).c ?? {})) sharedToB.set(id, (sharedToB.get(id) ?? 0) + entry[0]);
    });
    onTestFinished(off);
    await listeningNow(a.core.store.pubsub, b.core.store.pubsub);
    const { key } = await mintKey(a);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await a.call('GET', '/api/constants/h', { key })).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    // Consumption is shared every 200 ms: wait until B has heard all four.
    await eventually(() => expect(Math.max(0, ...sharedToB.values())).toBeGreaterThanOrEqual(4));
    const refused = await b.call('GET', '/api/constants/h', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    // Another key still gets through on either server.
    const other = await mintKey(b);
    expect((await b.call('GET', '/api/constants/h', { key: other.key })).status).toBe(200);
  });
});
