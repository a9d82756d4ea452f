import { describe, expect, it } from 'vitest';
import { createUserRepository } from '../../src/domain/identity/user-repository.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const user = (uid: string, tick: number) => ({ uid, created_at: '2026-01-01T00:00:00.000Z', created_tick: tick });

/** The users repository (users and their e-mail index) on every adapter. */
export function runUserRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`user repository: ${name}`, () => {
    it('stores users once each and pages through them in creation order', async () => {
      const { store } = await freshStore(makeStore);
      const users = createUserRepository(store);
      for (const [n, uid] of ['uc', 'ua', 'ub'].entries()) await users.insert(user(uid, n));
      await expect(users.insert(user('ua', 9))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await users.byUid('ua')).toEqual(user('ua', 1));
      expect(await users.byUid('ux')).toBeUndefined();
      const first = await users.page({ limit: 2 });
      expect(first.items.map((u) => u.uid)).toEqual(['uc', 'ua']);
      const rest = await users.page({ limit: 2, after: first.next! });
      expect(rest).toEqual({ items: [user('ub', 2)] });
      expect((await users.page()).items).toHaveLength(3);
    });

    it('binds an e-mail hash to the first uid that claims it, also when claims race', async () => {
      const { store } = await freshStore(makeStore);
      const users = createUserRepository(store);
      expect(await users.uidForEmail('e1')).toBeUndefined();
      const winners = await Promise.all(['u1', 'u2', 'u3'].map((uid) => users.claimEmail('e1', uid, '2026-01-01T00:00:00.000Z')));
      expect(new Set(winners).size).toBe(1);
      expect(await users.uidForEmail('e1')).toBe(winners[0]);
      expect(await users.claimEmail('e2', 'u9', '2026-01-01T00:00:00.000Z')).toBe('u9');
    });
  });
}
