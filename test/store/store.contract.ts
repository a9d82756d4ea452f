import { describe, expect, it } from 'vitest';
import { describeDocContract } from './doc.contract.js';
import { describeDocFindContract } from './doc-find.contract.js';
import { describeDocPositionsContract } from './doc-positions.contract.js';
import { runDomainAreaRepositoryContracts } from './domain-area-repositories.contract.js';
import { describeLogQueryContract } from './log-query.contract.js';
import { runIdentityAreaRepositoryContracts } from './identity-area-repositories.contract.js';
import { runMachineRepositoryContract } from './machine-repository.contract.js';
import { runListBoundsContract } from './list-bounds.contract.js';
import { runOwnedListContract } from './owned-list.contract.js';
import { runScanBoundsContract } from './scan-bounds.contract.js';
import { appendLinks, chainLink, describeLogContract, expectUnbrokenChain, type ChainRow } from './log.contract.js';
import { freshStore, type StoreHarness } from './store-harness.js';

export type { MakeStore, StoreHarness } from './store-harness.js';

/**
 * The storage contract: every adapter runs this one suite, written against the port only.
 * `makeStore` gives each test an open store over storage of its own (see `StoreHarness`).
 */
export function runStoreContract(name: string, makeStore: () => Promise<StoreHarness>): void {
  describe(`storage contract: ${name}`, () => {
    describeDocContract(makeStore);
    describeDocFindContract(makeStore);
    describeDocPositionsContract(makeStore);
    describeLogContract(makeStore);
    describeLogQueryContract(makeStore);
    runIdentityAreaRepositoryContracts(name, makeStore);
    runDomainAreaRepositoryContracts(name, makeStore);
    runMachineRepositoryContract(name, makeStore);
    runScanBoundsContract(name, makeStore);
    runListBoundsContract(name, makeStore);
    runOwnedListContract(name, makeStore);

    describe('lifecycle', () => {
      it('is open after open, closed after close, and closing twice is harmless', async () => {
        const { store } = await freshStore(makeStore);
        expect(store.isOpen()).toBe(true);
        await store.close();
        expect(store.isOpen()).toBe(false);
        await store.close();
        expect(store.isOpen()).toBe(false);
      });

      it('refuses reads and writes once closed', async () => {
        const { store } = await freshStore(makeStore);
        await store.close();
        await expect(store.docs.get('machines', 'x')).rejects.toThrow();
        await expect(store.docs.put('machines', 'x', { a: 1 })).rejects.toThrow();
        await expect(store.logs.append('audit', () => ({ tick: 0, type: 't' }))).rejects.toThrow();
        await expect(store.logs.read('audit')).rejects.toThrow();
      });

      it('lets writes started before close finish before the store closes', async () => {
        const { store, reopen } = await freshStore(makeStore);
        const writes = Array.from({ length: 20 }, (_, n) => store.logs.append<ChainRow>('audit', (head, seq) => chainLink(head, seq, n)));
        const doc = store.docs.put('machines', 'm', { n: 1 });
        await store.close();
        await Promise.all([...writes, doc]);
        const again = await reopen();
        expect(await again.logs.count('audit')).toBe(20);
        expect(await again.docs.get('machines', 'm')).toEqual({ n: 1 });
      });

      it('keeps documents and logs across close and reopen, and the chain continues from the stored head', async () => {
        const { store, reopen } = await freshStore(makeStore);
        await store.docs.insert('machines', 'b', { n: 2 });
        await store.docs.insert('machines', 'a', { n: 1 });
        await appendLinks(store, 'chain/m', 30);
        await appendLinks(store, 'audit:x', 3);
        const headBefore = await store.logs.head('chain/m');
        const again = await reopen();
        expect(again.isOpen()).toBe(true);
        expect(await again.docs.list('machines')).toEqual([{ n: 2 }, { n: 1 }]);
        expect(await again.logs.head('chain/m')).toEqual(headBefore);
        expect(await again.logs.count('chain/m')).toBe(30);
        expect((await again.logs.streams()).sort()).toEqual(['audit:x', 'chain/m']);
        expect(await again.logs.read('chain/m', { fromSeq: 10, toSeq: 12 })).toHaveLength(3);
        await appendLinks(again, 'chain/m', 5);
        expectUnbrokenChain(await again.logs.read<ChainRow>('chain/m'));
      });
    });
  });
}
