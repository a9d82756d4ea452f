import { describe, expect, it } from 'vitest';
import { createSsoCodeRepository, type SsoCodeRecord } from '../../src/domain/sessions/sso-code-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

const code = (hash: string, expires_ms: number): SsoCodeRecord => ({
  code_hash: hash,
  uid: 'u1',
  state: 's',
  redirect_uri: 'https://example.test/cb',
  code_challenge: null,
  binding_hash: 'b',
  expires_ms,
});

/** The SSO codes repository on every adapter. */
export function runSsoCodeRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`sso code repository: ${name}`, () => {
    it('hands a code to one of two concurrent takes only', async () => {
      const { store } = await freshStore(makeStore);
      const codes = createSsoCodeRepository(store);
      await codes.insert(code('c1', 100));
      const taken = await Promise.all([codes.take('c1'), codes.take('c1')]);
      expect(taken.filter((r) => r !== undefined)).toEqual([code('c1', 100)]);
      expect(await codes.take('c1')).toBeUndefined();
    });

    it('sweeps the codes expired by then and keeps the others', async () => {
      const { store } = await freshStore(makeStore);
      const codes = createSsoCodeRepository(store);
      await codes.insert(code('old', 100));
      await codes.insert(code('edge', 200));
      await codes.insert(code('new', 201));
      await codes.sweep(200);
      expect(await codes.take('old')).toBeUndefined();
      expect(await codes.take('edge')).toBeUndefined();
      expect(await codes.take('new')).toEqual(code('new', 201));
    });
  });
}
