import { describe, expect, it } from 'vitest';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import type { ContractRecord, TransitionSpec } from '../../src/domain/contracts/contract.types.js';
import type { Store } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

/** A transition listening to `machine`'s `beat` events (its own machine's when undefined). */
const on = (machine?: string): TransitionSpec => ({
  from: 's',
  to: 's',
  trigger: { kind: 'on_event', event: 'beat', ...(machine === undefined ? {} : { machine }) },
});

/** A contract on `slug` listening to each of `listens`; every one created at the same tick and time. */
const contract = (id: string, slug: string, listens: Array<string | undefined>, status: ContractRecord['status'] = 'active'): ContractRecord => ({
  id,
  slug,
  name: id,
  template_id: null,
  status,
  definition: { name: id, states: { s: { initial: true } }, transitions: listens.map(on) },
  integrity_hash: 'h',
  current_version_no: 1,
  created_by: 'u',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  created_tick: 10,
  anchor_tick: 10,
  skip_floor: {},
});

const listen = (record: ContractRecord, listens: Array<string | undefined>): ContractRecord => ({
  ...record,
  definition: { ...record.definition, transitions: listens.map(on) },
});

const idsOf = (records: ContractRecord[]) => records.map((c) => c.id);

/** The store's own collection of index entries, counted from outside (what a crash would leave behind). */
const entriesOf = (store: Store, contractId: string) => store.docs.count('contract-listeners', { contract_id: contractId });

/** The contract repository's listener index (the public directory's subscribers), on every adapter. */
export function runContractListenersContract(name: string, makeStore: MakeStore): void {
  describe(`contract listener index: ${name}`, () => {
    it('lists the contracts of other machines listening to a machine in insertion order, ties in creation time included', async () => {
      const { store } = await freshStore(makeStore);
      const contracts = createContractRepository(store);
      // Ids out of alphabetical order, every one created at the same tick: only insertion order tells them apart.
      await contracts.insert(contract('cz', 'a', ['src']));
      await contracts.insert(contract('cm', 'b', ['other']));
      await contracts.insert(contract('own', 'src', ['src', undefined]));
      await contracts.insert(contract('ca', 'c', ['other', 'src']));
      await contracts.insert(contract('cq', 'a', ['src'], 'killed'));
      await contracts.insert(contract('cb', 'b', ['src', 'src']));
      expect(idsOf(await contracts.listeners('src'))).toEqual(['cz', 'ca', 'cq', 'cb']);
      expect(idsOf(await contracts.listeners('other'))).toEqual(['cm', 'ca']);
      expect(await contracts.listeners('nobody')).toEqual([]);
      // The ordinal is the repository's: kept by an update whatever its function returns.
      await contracts.update('cz', (c) => {
        const copy = { ...c };
        delete copy.ordinal;
        return copy;
      });
      expect(idsOf(await contracts.listeners('src'))).toEqual(['cz', 'ca', 'cq', 'cb']);
      expect((await createContractRepository(store).listeners('src')).map((c) => c.ordinal)).toEqual([0, 3, 4, 5]);
    });

    it('follows edits: a contract that starts listening comes in at its creation place, one that stops leaves with its entry', async () => {
      const { store } = await freshStore(makeStore);
      const contracts = createContractRepository(store);
      await contracts.insert(contract('first', 'a', ['other']));
      await contracts.insert(contract('second', 'b', ['src']));
      await contracts.insert(contract('third', 'c', ['src', 'other']));
      await contracts.update('first', (c) => listen(c, ['src', 'other']));
      expect(idsOf(await contracts.listeners('src'))).toEqual(['first', 'second', 'third']);
      await contracts.update('third', (c) => listen(c, ['elsewhere']));
      expect(idsOf(await contracts.listeners('src'))).toEqual(['first', 'second']);
      expect(idsOf(await contracts.listeners('other'))).toEqual(['first']);
      expect(idsOf(await contracts.listeners('elsewhere'))).toEqual(['third']);
      expect(await entriesOf(store, 'third')).toBe(1);
      // A change of status leaves the index alone: readers filter by status.
      await contracts.update('second', (c) => ({ ...c, status: 'paused' }));
      expect((await contracts.listeners('src')).map((c) => [c.id, c.status])).toEqual([
        ['first', 'active'],
        ['second', 'paused'],
      ]);
      expect(await contracts.update('missing', (c) => c)).toBeUndefined();
    });

    it('skips an entry whose contract was never stored or no longer listens (a crash between the writes)', async () => {
      const { store } = await freshStore(makeStore);
      const contracts = createContractRepository(store);
      await contracts.insert(contract('before', 'a', ['src']));
      // The contract's insert fails after its entry was written, as a crash between them would leave it.
      const crashing: Store = {
        ...store,
        docs: { ...store.docs, insert: (c, id, v) => (c === 'contracts' ? Promise.reject(new Error('crash')) : store.docs.insert(c, id, v)) },
      };
      await expect(createContractRepository(crashing).insert(contract('lost', 'b', ['src']))).rejects.toThrow('crash');
      // PostgreSQL writes the insert's entries in the ordinal lock's transaction: the failure rolled them
      // back with it. lowdb keeps them, and reads skip them.
      expect(await entriesOf(store, 'lost')).toBe(store.backend === 'postgres' ? 0 : 1);
      // An edit's dropped entry is deleted after the record: a crash before that leaves it stale.
      const failingDelete: Store = { ...store, docs: { ...store.docs, delete: () => Promise.reject(new Error('crash')) } };
      await contracts.insert(contract('moved', 'c', ['src']));
      await expect(createContractRepository(failingDelete).update('moved', (c) => listen(c, ['other']))).rejects.toThrow('crash');
      expect(await entriesOf(store, 'moved')).toBe(2);
      await contracts.insert(contract('after', 'd', ['src']));
      expect(idsOf(await contracts.listeners('src'))).toEqual(['before', 'after']);
      expect(idsOf(await contracts.listeners('other'))).toEqual(['moved']);
    });

    it('enters contracts stored before the index existed once, in insertion order, beside ones created meanwhile', async () => {
      const { store, reopen } = await freshStore(makeStore);
      // Written as an earlier server did: no ordinal, no index entry.
      for (const [id, slug, listens] of [
        ['old-z', 'a', ['src']],
        ['old-m', 'b', ['other']],
        ['old-a', 'c', ['src']],
        ['old-k', 'd', ['other']],
      ] as const) {
        await store.docs.insert('contracts', id, contract(id, slug, [...listens]));
      }
      const [one, two] = [createContractRepository(store), createContractRepository(store)];
      // Created before the backfill ran: it takes the ordinal after every stored contract.
      await one.insert(contract('new-b', 'e', ['src']));
      expect((await one.get('new-b'))?.ordinal).toBe(4);
      // Two processes sharing a store may both run it, while an edit of a contract it has not reached yet
      // waits for it to learn that contract's ordinal.
      await Promise.all([one.update('old-k', (c) => listen(c, ['src'])), two.listenersReady(), one.listenersReady()]);
      expect((await one.listeners('src')).map((c) => [c.id, c.ordinal])).toEqual([
        ['old-z', 0],
        ['old-a', 2],
        ['old-k', 3],
        ['new-b', 4],
      ]);
      expect(idsOf(await two.listeners('other'))).toEqual(['old-m']);
      expect(await entriesOf(store, 'old-z')).toBe(1);
      // Done once: after a restart the marker says so, and new contracts follow.
      const again = createContractRepository(await reopen());
      await again.insert(contract('new-c', 'f', ['src']));
      expect(idsOf(await again.listeners('src'))).toEqual(['old-z', 'old-a', 'old-k', 'new-b', 'new-c']);
      expect((await again.get('new-c'))?.ordinal).toBe(5);
    });

    it('runs the backfill on a store that holds no contract, and numbers the first contract 0', async () => {
      const { store } = await freshStore(makeStore);
      const contracts = createContractRepository(store);
      await contracts.listenersReady();
      await contracts.insert(contract('c1', 'a', ['src']));
      expect((await contracts.listeners('src')).map((c) => c.ordinal)).toEqual([0]);
    });

    it('walks again when asked whatever the marker says: contracts copied into a store that a server already started on', async () => {
      const { store } = await freshStore(makeStore);
      const contracts = createContractRepository(store);
      await contracts.listenersReady();
      await store.docs.insert('contracts', 'copied-b', contract('copied-b', 'a', ['src']));
      await store.docs.insert('contracts', 'copied-a', contract('copied-a', 'b', ['src']));
      expect(await contracts.listeners('src')).toEqual([]);
      await contracts.backfillListeners();
      expect((await contracts.listeners('src')).map((c) => [c.id, c.ordinal])).toEqual([
        ['copied-b', 0],
        ['copied-a', 1],
      ]);
    });
  });
}
