import type { LogRow, RowInput, Store } from '../../storage/port.js';

export interface SiteFile {
  sha: string;
  path: string;
  content_type: string;
  size: number;
  uploaded_tick: number;
  uploaded_by: string | null;
  created_at: string;
}

/** The current file at a path of a machine's site. */
export interface SiteFileRecord extends SiteFile {
  slug: string;
  /** seq of the content row in the site's log. */
  blob_seq: number;
}

/** Content, one row per distinct hash of a site. */
export interface SiteBlobRow extends LogRow {
  type: 'blob';
  sha: string;
  size: number;
  content_b64: string;
}

/** A site's publish key, stored hashed. */
export interface PublishKeyRecord {
  slug: string;
  key_hash: string;
  key_prefix: string;
  issued_tick: number;
  issued_by: string | null;
}

/** Id `<slug>|<path>`. */
const FILES = 'site-files';
/** The file record that first stored a hash, with the seq of its content: id `<slug>|<sha>`. */
const BLOBS = 'site-blobs';
const KEYS = 'site-keys';
/** Bytes of content a site has stored: id `<slug>`. */
const USAGE = 'site-usage';
const siteStream = (slug: string) => `site/${slug}`;

/** Machines' sites: files, content log, usage and publish keys. The only module that names them. */
export interface SiteRepository {
  file(slug: string, path: string): Promise<SiteFileRecord | undefined>;
  /** The site's files, in upload order of their paths (at most `MAX_FILES`). */
  filesOf(slug: string): Promise<SiteFileRecord[]>;
  /** Replaces the file at the record's path and indexes its content by hash. */
  putFile(record: SiteFileRecord): Promise<void>;
  /** The file record that stored content of hash `sha`, with the seq of that content. */
  blobByHash(slug: string, sha: string): Promise<(SiteFileRecord & { seq: number }) | undefined>;
  /** Appends content; resolves with its row once durable. */
  appendBlob(slug: string, row: RowInput<SiteBlobRow>): Promise<SiteBlobRow>;
  blobRow(slug: string, seq: number): Promise<SiteBlobRow | undefined>;
  /** Bytes of content the site has stored. */
  usedBytes(slug: string): Promise<number>;
  addUsedBytes(slug: string, bytes: number): Promise<void>;
  publishKey(slug: string): Promise<PublishKeyRecord | undefined>;
  /** Issues or replaces the site's publish key. */
  putPublishKey(record: PublishKeyRecord): Promise<void>;
  /** Returns whether a key was there. */
  deletePublishKey(slug: string): Promise<boolean>;
}

export function createSiteRepository(store: Store): SiteRepository {
  return {
    file: (slug, path) => store.docs.get<SiteFileRecord>(FILES, `${slug}|${path}`),
    filesOf: async (slug) => (await store.docs.find<SiteFileRecord>(FILES, { slug })).items,
    async putFile(record) {
      await store.docs.put(FILES, `${record.slug}|${record.path}`, record);
      await store.docs.put(BLOBS, `${record.slug}|${record.sha}`, { ...record, seq: record.blob_seq });
    },
    blobByHash: (slug, sha) => store.docs.get<SiteFileRecord & { seq: number }>(BLOBS, `${slug}|${sha}`),
    appendBlob: (slug, row) => store.logs.append<SiteBlobRow>(siteStream(slug), () => row),
    blobRow: (slug, seq) => store.logs.get<SiteBlobRow>(siteStream(slug), seq),
    usedBytes: async (slug) => (await store.docs.get<{ bytes: number }>(USAGE, slug))?.bytes ?? 0,
    async addUsedBytes(slug, bytes) {
      await store.docs.update<{ bytes: number }>(USAGE, slug, (u) => ({ bytes: (u?.bytes ?? 0) + bytes }));
    },
    publishKey: (slug) => store.docs.get<PublishKeyRecord>(KEYS, slug),
    putPublishKey: (record) => store.docs.put(KEYS, record.slug, record),
    deletePublishKey: (slug) => store.docs.delete(KEYS, slug),
  };
}
