import { describe, expect, it } from 'vitest';
import { createSiteRepository, type SiteFileRecord } from '../../src/domain/site/site-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

const file = (slug: string, path: string, sha: string, seq: number): SiteFileRecord => ({
  slug,
  path,
  sha,
  content_type: 'text/html',
  size: 1,
  uploaded_tick: 1,
  uploaded_by: 'u',
  created_at: 't',
  blob_seq: seq,
});

/** The site repository (files, content log, usage, publish keys) on every adapter. */
export function runSiteRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`site repository: ${name}`, () => {
    it('keeps the current file per path, its content by hash, and a machine’s files apart', async () => {
      const { store } = await freshStore(makeStore);
      const sites = createSiteRepository(store);
      const row = await sites.appendBlob('m', { tick: 1, type: 'blob', sha: 'aa', size: 2, content_b64: 'aGk=' });
      await sites.putFile(file('m', '/index.html', 'aa', row.seq));
      await sites.putFile(file('n', '/index.html', 'bb', 0));
      await sites.putFile(file('m', '/index.html', 'cc', 1));
      expect((await sites.file('m', '/index.html'))?.sha).toBe('cc');
      expect((await sites.blobByHash('m', 'aa'))?.seq).toBe(row.seq);
      expect(await sites.blobByHash('n', 'aa')).toBeUndefined();
      expect((await sites.filesOf('m')).map((f) => f.sha)).toEqual(['cc']);
      expect((await sites.blobRow('m', row.seq))?.content_b64).toBe('aGk=');
      await sites.addUsedBytes('m', 2);
      await sites.addUsedBytes('m', 3);
      expect(await sites.usedBytes('m')).toBe(5);
      expect(await sites.usedBytes('n')).toBe(0);
    });

    it('replaces and revokes a site’s publish key', async () => {
      const { store } = await freshStore(makeStore);
      const sites = createSiteRepository(store);
      const key = { slug: 'm', key_hash: 'h1', key_prefix: 'core_site_ab', issued_tick: 1, issued_by: 'u' };
      await sites.putPublishKey(key);
      await sites.putPublishKey({ ...key, key_hash: 'h2' });
      expect((await sites.publishKey('m'))?.key_hash).toBe('h2');
      expect(await sites.deletePublishKey('m')).toBe(true);
      expect(await sites.deletePublishKey('m')).toBe(false);
      expect(await sites.publishKey('m')).toBeUndefined();
    });
  });
}
