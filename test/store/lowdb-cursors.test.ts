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
    // Nothing of the record is readable in its cursor, not even its id.
    const all = await store.docs.find<{ slug: string }>('machines', {}, { limit: 2, positions: true });
    for (const position of all.positions!) expect(position).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(all.positions![1]!, 'base64url').toString('latin1')).not.toContain('hidden');
    // An altered cursor (any byte, or an ordinal:id written by hand) is refused.
    const bytes = Buffer.from(first.next!, 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] = altered[at]! ^ 1;
      await expect(store.docs.find('machines', { is_public: true }, { after: altered.toString('base64url') })).rejects.toBeInstanceOf(InvalidCursorError);
    }
    for (const forged of ['1:hidden', '2:b', `0:${'A'.repeat(22)}:hidden`]) {
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
