import { describe, expect, it } from 'vitest';
import type { CodeRecord, GrantRecord, TokenRecord } from '../../src/domain/oauth/oauth-records.js';
import { createOAuthRepository } from '../../src/domain/oauth/oauth-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

const grant = (id: string, liveUntil?: number): GrantRecord => ({
  grant_id: id,
  client_id: 'https://client.example/c.json',
  uid: 'u1',
  granter: { kind: 'key', key_hash: 'h' },
  scope: 'read',
  resource: 'https://core.example/api/mcp',
  created_ms: 0,
  revoked_ms: null,
  revoked_reason: null,
  ...(liveUntil === undefined ? {} : { live_until_ms: liveUntil }),
});
const code = (hash: string, expires: number): CodeRecord => ({
  code_hash: hash,
  grant_id: 'g',
  client_id: 'c',
  redirect_uri: 'http://127.0.0.1:1/cb',
  code_challenge: 'x',
  expires_ms: expires,
  used_ms: null,
});
const token = (hash: string, expires: number): TokenRecord => ({
  token_hash: hash,
  kind: 'refresh',
  grant_id: 'g',
  client_id: 'c',
  scope: 'read',
  expires_ms: expires,
  used_ms: null,
});

/** The OAuth repository on every adapter. */
export function runOAuthRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`oauth repository: ${name}`, () => {
    it('sweeps the codes, tokens and grants expired by then, soonest first, and keeps the rest', async () => {
      const { store } = await freshStore(makeStore);
      const repo = createOAuthRepository(store);
      for (const [id, at] of [
        ['c-old', 100],
        ['c-edge', 200],
        ['c-new', 201],
      ] as const)
        await repo.insertCode(code(id, at));
      for (const [id, at] of [
        ['t-old', 50],
        ['t-new', 900],
      ] as const)
        await repo.insertToken(token(id, at));
      await repo.insertGrant(grant('g-old', 150));
      await repo.insertGrant(grant('g-new', 300));
      // Stored before grants had an expiry: nothing says when it dies, so it is kept.
      await repo.insertGrant(grant('g-legacy'));
      await repo.sweepExpired(200, 200);
      expect(await repo.useCode('c-old', 0)).toBeUndefined();
      expect(await repo.useCode('c-edge', 0)).toBeUndefined();
      expect((await repo.useCode('c-new', 0))?.first).toBe(true);
      expect(await repo.token('t-old')).toBeUndefined();
      expect(await repo.token('t-new')).toBeDefined();
      expect(await repo.grant('g-old')).toBeUndefined();
      expect(await repo.grant('g-new')).toBeDefined();
      expect(await repo.grant('g-legacy')).toBeDefined();
    });

    it('sweeps at most `limit` of each a pass', async () => {
      const { store } = await freshStore(makeStore);
      const repo = createOAuthRepository(store);
      for (let i = 0; i < 3; i++) await repo.insertGrant(grant(`g${i}`, 10 + i));
      await repo.sweepExpired(100, 2);
      expect(await repo.grant('g0')).toBeUndefined();
      expect(await repo.grant('g1')).toBeUndefined();
      expect(await repo.grant('g2')).toBeDefined();
    });

    it('extends a grant only forward', async () => {
      const { store } = await freshStore(makeStore);
      const repo = createOAuthRepository(store);
      await repo.insertGrant(grant('g', 500));
      await repo.extendGrant('g', 400);
      expect((await repo.grant('g'))?.live_until_ms).toBe(500);
      await repo.extendGrant('g', 900);
      expect((await repo.grant('g'))?.live_until_ms).toBe(900);
      await repo.insertGrant(grant('legacy'));
      await repo.extendGrant('legacy', 700);
      expect((await repo.grant('legacy'))?.live_until_ms).toBe(700);
      await repo.extendGrant('missing', 700);
      expect(await repo.grant('missing')).toBeUndefined();
    });
  });
}
