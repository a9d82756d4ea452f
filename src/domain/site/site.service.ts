import { CoreError, errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { pageOf } from '../../lib/cursor.js';
import { digestOf, randomToken, sameDigest, sha256Hex } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import type { ChainService, WriteResult } from '../chain/chain.service.js';
import { type MachineRecord } from '../chain/machine.js';
import type { MachinesService } from '../chain/machines.service.js';
import { hasRole } from '../identity/roles.js';
import { siteUid } from './site-proxy.js';
import { type PublishKeyRecord, type SiteFile, type SiteFileRecord as FileRecord, type SiteRepository } from './site-repository.js';
import { checkSitePath, MAX_FILE_BYTES, MAX_FILES, MAX_SITE_BYTES, normalizeContentType } from './site-rules.js';
import type { MachineRepository } from '../chain/machine-repository.js';

export type { SiteFile } from './site-repository.js';

const PUBLISH_KEY_PREFIX = 'core_site_';

export interface UploadInput {
  slug: string;
  path: string;
  content: string;
  encoding: 'utf-8' | 'base64';
  content_type: string;
  publish_key?: string | undefined;
}

export interface SiteService {
  upload(input: UploadInput, caller: Caller): Promise<WriteResult & { file: SiteFile }>;
  list(slug: string, caller: Caller, page: { limit: number; cursor?: string | undefined }): Promise<{ files: SiteFile[]; next_cursor: string | null }>;
  getFile(slug: string, sha: string, caller: Caller): Promise<SiteFile>;
  publishKeyStatus(slug: string, caller: Caller): Promise<{ active: boolean; key_prefix: string | null; issued_tick: number | null }>;
  issuePublishKey(slug: string, caller: Caller): Promise<{ publish_key: string; key_prefix: string; issued_tick: number }>;
  revokePublishKey(slug: string, caller: Caller): Promise<boolean>;
  /** A page for a visitor: NOT_FOUND for a private machine the visitor cannot read, as for a missing file. */
  page(slug: string, path: string, caller: Caller): Promise<{ contentType: string; body: Buffer; sha: string; isPublic: boolean }>;
  /** The caller a site's proxied writes run as: the site itself, operator on this machine alone, while a publish key is active. */
  siteAuthority(slug: string, visitor: Caller): Promise<Caller>;
}

export function createSiteService(deps: {
  sites: SiteRepository;
  machineRecords: MachineRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
}): SiteService {
  const { sites, machineRecords, clock, chain, machines } = deps;
  const fileView = ({ sha, path, content_type, size, uploaded_tick, uploaded_by, created_at }: FileRecord): SiteFile => ({
    sha,
    path,
    content_type,
    size,
    uploaded_tick,
    uploaded_by,
    created_at,
  });

  async function authorizeUpload(slug: string, caller: Caller, publishKey: string | undefined): Promise<{ machine: MachineRecord; actor: string | null }> {
    if (publishKey !== undefined) {
      const key = await sites.publishKey(slug);
      const machine = await machineRecords.get(slug);
      if (key && machine && sameDigest(sha256Hex(publishKey), key.key_hash)) return { machine, actor: null };
      await machines.readable(slug, caller);
      throw errors.forbidden(`That publish key is not valid for the site of "${slug}" (revoked or replaced); ask an admin for the current one`);
    }
    const { machine, role } = await machines.readable(slug, caller);
    if (role !== 'none' && hasRole(role, 'operator')) return { machine, actor: caller.uid };
    if (caller.uid === null) throw errors.unauthenticated(caller);
    throw errors.forbidden(`Uploading to the site of "${slug}" needs the operator role or the site publish key`);
  }

  function decode(content: string, encoding: UploadInput['encoding']): Buffer {
    if (encoding === 'utf-8') return Buffer.from(content, 'utf8');
    const compact = content.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
      throw errors.validation('content is not valid base64', { issues: [{ path: 'content', message: 'invalid base64', code: 'invalid_base64' }] });
    }
    return Buffer.from(compact, 'base64');
  }

  return {
    async upload(input, caller) {
      const path = checkSitePath(input.path);
      const contentType = normalizeContentType(input.content_type);
      const bytes = decode(input.content, input.encoding);
      if (bytes.length > MAX_FILE_BYTES) {
        throw new CoreError('PAYLOAD_TOO_LARGE', `The file is ${bytes.length} bytes; a site file holds at most ${MAX_FILE_BYTES} bytes`);
      }
      const { machine, actor } = await authorizeUpload(input.slug, caller, input.publish_key);
      chain.assertWritable(machine);
      const { slug } = machine;
      const sha = sha256Hex(bytes);
      const current = await sites.file(slug, path);
      if (!current && (await sites.filesOf(slug)).length >= MAX_FILES) {
        throw new CoreError('QUOTA_EXCEEDED', `The site of "${slug}" already holds ${MAX_FILES} files; replace an existing path instead`);
      }
      let blobSeq = (await sites.blobByHash(slug, sha))?.seq;
      if (blobSeq === undefined) {
        const used = await sites.usedBytes(slug);
        if (used + bytes.length > MAX_SITE_BYTES) {
          throw new CoreError('QUOTA_EXCEEDED', `The site of "${slug}" has stored ${used} of ${MAX_SITE_BYTES} bytes; this file does not fit`);
        }
        const row = await sites.appendBlob(slug, { tick: clock.tick(), type: 'blob', sha, size: bytes.length, content_b64: bytes.toString('base64') });
        blobSeq = row.seq;
        await sites.addUsedBytes(slug, bytes.length);
      }
      const written = await chain.append(machine, {
        type: 'site.uploaded',
        actor_uid: actor,
        payload_digest: digestOf({ path, sha, content_type: contentType, size: bytes.length }),
      });
      const record: FileRecord = {
        slug,
        sha,
        path,
        content_type: contentType,
        size: bytes.length,
        uploaded_tick: written.tick,
        uploaded_by: actor,
        created_at: new Date(clock.now()).toISOString(),
        blob_seq: blobSeq,
      };
      await sites.putFile(record);
      return { ok: true, file: fileView(record), tick: written.tick, transition_id: written.transition_id, seq: written.seq, state_hash: written.state_hash };
    },

    async list(slug, caller, page) {
      await machines.readable(slug, caller);
      const files = (await sites.filesOf(slug)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const { page: slice, next_cursor } = pageOf(files, page.limit, page.cursor);
      return { files: slice.map(fileView), next_cursor };
    },

    async getFile(slug, sha, caller) {
      await machines.readable(slug, caller);
      const blob = await sites.blobByHash(slug, sha.toLowerCase());
      if (!blob) throw errors.notFound(`No file with hash ${sha} on the site of "${slug}"`, { slug, sha });
      return fileView(blob);
    },

    async publishKeyStatus(slug, caller) {
      await machines.readable(slug, caller);
      const key = await sites.publishKey(slug);
      return { active: key !== undefined, key_prefix: key?.key_prefix ?? null, issued_tick: key?.issued_tick ?? null };
    },

    async issuePublishKey(slug, caller) {
      const { machine } = await machines.readable(slug, caller);
      const publishKey = `${PUBLISH_KEY_PREFIX}${randomToken(32)}`;
      const record: PublishKeyRecord = {
        slug,
        key_hash: sha256Hex(publishKey),
        key_prefix: publishKey.slice(0, PUBLISH_KEY_PREFIX.length + 4),
        issued_tick: clock.tick(),
        issued_by: caller.uid,
      };
      await sites.putPublishKey(record);
      await chain.append(machine, {
        type: 'site.publish_key.issued',
        actor_uid: caller.uid,
        payload_digest: digestOf({ key_prefix: record.key_prefix, issued_tick: record.issued_tick }),
      });
      return { publish_key: publishKey, key_prefix: record.key_prefix, issued_tick: record.issued_tick };
    },

    async revokePublishKey(slug, caller) {
      const { machine } = await machines.readable(slug, caller);
      const key = await sites.publishKey(slug);
      if (!key || !(await sites.deletePublishKey(slug))) return false;
      await chain.append(machine, { type: 'site.publish_key.revoked', actor_uid: caller.uid, payload_digest: digestOf({ key_prefix: key.key_prefix }) });
      return true;
    },

    async page(slug, path, caller) {
      const { machine } = await machines.readable(slug, caller);
      const file = await sites.file(slug, path);
      const row = file ? await sites.blobRow(slug, file.blob_seq) : undefined;
      if (!file || !row) throw errors.notFound(`No page "${path}" on the site of "${slug}"`, { slug, path });
      return { contentType: file.content_type, body: Buffer.from(row.content_b64, 'base64'), sha: file.sha, isPublic: machine.is_public };
    },

    async siteAuthority(slug, visitor) {
      const { machine } = await machines.readable(slug, visitor);
      const key = await sites.publishKey(slug);
      if (!key) throw errors.forbidden(`The site of "${slug}" has no active publish key, so writes through it are off`);
      return { uid: siteUid(machine.slug), credential: 'site', machine: slug, scope: 'write' };
    },
  };
}
