import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONFile } from 'lowdb/node';
import { afterEach, describe, expect, it } from 'vitest';
import { captureEntries, writeSnapshotFile } from '../../../src/storage/lowdb/snapshot-file.js';

const dirs: string[] = [];
afterEach(async () => {
  while (dirs.length) await rm(dirs.pop()!, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'core-snapshot-'));
  dirs.push(dir);
  return dir;
}

describe('collection snapshot file', () => {
  it.each([
    ['no records', 0],
    ['one record', 1],
    ['records across several chunks', 2_345],
  ])('writes %s as the very text lowdb writes, which lowdb reads back', async (_, n) => {
    const dir = await freshDir();
    const records = new Map<string, { value: object }>();
    for (let i = 0; i < n; i++) {
      records.set(`id-${i}`, { value: { slug: `m-${i}`, nested: { list: [i, 'two', { deep: i % 2 === 0 }], empty: {}, none: [] }, text: 'a\nb "q"' } });
    }
    records.set('__proto__', { value: { odd: 'id' } });
    const entries = await captureEntries(records);
    const file = join(dir, 'things.json');
    await writeSnapshotFile(file, entries, true);
    const asObject = Object.create(null) as Record<string, object>;
    for (const [id, value] of entries) asObject[id] = value;
    expect(await readFile(file, 'utf8')).toBe(JSON.stringify(asObject, null, 2));
    expect(await new JSONFile<Record<string, object>>(file).read()).toEqual(asObject);
    expect(await readdir(dir)).toEqual(['things.json']);
  });

  it('writes {} for an empty collection', async () => {
    const dir = await freshDir();
    await writeSnapshotFile(join(dir, 'empty.json'), [], false);
    expect(await readFile(join(dir, 'empty.json'), 'utf8')).toBe('{}');
  });
});
