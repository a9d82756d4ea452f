import { describe, expect, it } from 'vitest';
import { createContactRepository, type ContactMessage } from '../../src/domain/general/contact-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

const message = (id: string): ContactMessage => ({ id, name: 'Ada', email: 'ada@example.org', subject: null, message: 'hi', from_uid: null, received_at: 'a' });

/** The contact messages repository on every adapter. */
export function runContactRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`contact repository: ${name}`, () => {
    it('keeps messages in order and never lets their ticks go backwards', async () => {
      const { store } = await freshStore(makeStore);
      const contact = createContactRepository(store);
      await contact.append(message('m1'), 10);
      const late = await contact.append(message('m2'), 4);
      expect(late).toMatchObject({ seq: 1, tick: 10, type: 'contact', id: 'm2' });
      await contact.append(message('m3'), 12);
      expect((await contact.messages()).map((r) => [r.id, r.tick])).toEqual([
        ['m1', 10],
        ['m2', 10],
        ['m3', 12],
      ]);
      expect((await contact.messages({ reverse: true, limit: 1 })).map((r) => r.id)).toEqual(['m3']);
    });
  });
}
