import { describe, expect, it } from 'vitest';
import { createLoginCodeRepository, type LoginCodeRecord } from '../../src/domain/sessions/login-code-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** The login codes repository on every adapter. */
export function runLoginCodeRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`login code repository: ${name}`, () => {
    it('serializes concurrent updates of one address, so no counted attempt is lost', async () => {
      const { store } = await freshStore(makeStore);
      const codes = createLoginCodeRepository(store);
      const fresh: LoginCodeRecord = { email_hash: 'e1', code_hash: 'c', issued_ms: 0, expires_ms: 10, attempts: 0 };
      await codes.update('e1', (current) => (current ? undefined : fresh));
      await Promise.all(Array.from({ length: 5 }, () => codes.update('e1', (current) => current && { ...current, attempts: current.attempts + 1 })));
      let seen: LoginCodeRecord | undefined;
      await codes.update('e1', (current) => {
        seen = current;
        return undefined;
      });
      expect(seen).toEqual({ ...fresh, attempts: 5 });
    });
  });
}
