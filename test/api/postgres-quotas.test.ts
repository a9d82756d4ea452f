import { describe, expect, it } from 'vitest';
import { databaseUrl, SKIP_REASON } from '../store/postgres-harness.js';
import { twoNodes } from '../helpers/pg-nodes.js';
import { createMachine, mintKey } from '../helpers/server.js';

const sorted = (answers: Array<{ status: number }>) => answers.map((a) => a.status).sort();

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('quotas and the unlock throttle across servers on one PostgreSQL database', () => {
  it('checks at most 5 of 40 guesses raced through two servers, and the owner still unlocks', async () => {
    const { a, b } = await twoNodes('quota');
    const owner = await mintKey(a);
    await createMachine(a, owner.key, { slug: 'pg-locked' });
    expect((await a.call('PATCH', '/api/chain/pg-locked/settings', { key: owner.key, body: { password: 'open sesame 42' } })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).call('POST', '/api/chain/pg-locked/unlock', { body: { password: `guess ${i}` } })),
    );
    expect(sorted(answers).filter((s) => s === 403)).toHaveLength(5);
    expect(sorted(answers).filter((s) => s === 429)).toHaveLength(35);
    expect((await b.call('POST', '/api/chain/pg-locked/unlock', { key: owner.key, body: { password: 'open sesame 42' } })).status).toBe(200);
  });

  it('lets one identity create exactly its machine quota when it races through two servers', async () => {
    const { a, b } = await twoNodes('quota', { CORE_QUOTAS: 'machines=3' });
    const user = await mintKey(a);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call('POST', '/api/chain/state-machines', { key: user.key, body: { slug: `pg-quota-${i}` } })),
    );
    expect(sorted(answers)).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
  });

  it('mints at most the demo-key quota of one address through two servers', async () => {
    const { a, b } = await twoNodes('quota', { CORE_QUOTAS: 'demo_keys_per_address=4' });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call('POST', '/api/demo-key/mint', { body: {} })));
    expect(sorted(answers)).toEqual([200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
  });
});
