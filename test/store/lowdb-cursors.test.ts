import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURSOR_KEY_FILE } from '../../src/storage/lowdb/cursor-seal.js';
import { InvalidCursorError } from '../../src/storage/port.js';
import { makeLowdbHarness } from './lowdb-harness.js';
import { freshStore } from './store-harness.js';

const slugs = (items: Array<{ slug: string }>) => items.map((m) => m.slug);

describe('lowdb find cursors', () => {
  it('refuses a cursor naming a record it did not hand out, so a cursor says nothing of records a list left out', async () => {
    const harness = (await freshStore(() => makeLowdbHarness({ fsync: false }))) as Awaited<ReturnType<typeof makeLowdbHarness>>;
    const { store } = harness;
    for (const [slug, is_public] of [
      ['a', true],
      ['hidden', false],
      ['b', true],
      ['c', true],
    ] as const)
      await store.docs.insert('machines', slug, { slug, is_public });
    const first = await store.docs.find<{ slug: string }>('machines', { is_public: true }, { limit: 1, positions: true });
    expect(first.positions).toEqual([first.next]);
    expect(first.next).not.toContain('hidden');
    // The same cursor with another id in it (the id is looked up when used): refused, whether that record exists or not.
    for (const id of ['hidden', 'b', 'nothing']) {
      const forged = first.next!.replace(/:a$/, `:${id}`);
      await expect(store.docs.find('machines', { is_public: true }, { after: forged })).rejects.toBeInstanceOf(InvalidCursorError);
    }
    // Sealed per collection: a cursor of another collection is refused too.
    await store.docs.insert('others', 'a', { slug: 'a' });
    const other = (await store.docs.find('others', {}, { limit: 1, positions: true })).positions![0]!;
    await expect(store.docs.find('machines', {}, { after: other })).rejects.toBeInstanceOf(InvalidCursorError);

    // The key lives in the data directory, readable by its owner only: cursors stay valid across a restart.
    const keyFile = join(harness.dataDir, CURSOR_KEY_FILE);
    expect((await stat(keyFile)).mode & 0o077).toBe(0);
    const again = await harness.reopen();
    expect(slugs((await again.docs.find<{ slug: string }>('machines', { is_public: true }, { after: first.next! })).items)).toEqual(['b', 'c']);
    // A damaged key is replaced: earlier cursors are then refused, like altered ones.
    await again.close();
    await writeFile(keyFile, 'damaged');
    const fresh = await harness.reopen();
    await expect(fresh.docs.find('machines', {}, { after: first.next! })).rejects.toBeInstanceOf(InvalidCursorError);
    expect(slugs((await fresh.docs.find<{ slug: string }>('machines', {}, { limit: 2 })).items)).toEqual(['a', 'hidden']);
  });
});
