import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Hex64, IsoDate, Limit, Tick, Uid } from '../../src/registry/common-schemas.js';
import type { SiteFile as StoredSiteFile } from '../../src/domain/site/site-repository.js';
import { MachineSlug } from './machines.schemas.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const SiteFile = wireShape<StoredSiteFile>()(
  z.object({
    sha: Hex64.describe('SHA-256 of the content; addresses the file'),
    path: z.string().describe('Path inside the site, e.g. "index.html"'),
    content_type: z.string(),
    size: z.number().int().min(0).describe('Size in bytes'),
    uploaded_tick: Tick,
    uploaded_by: Uid.nullable(),
    created_at: IsoDate,
  }),
);

export const siteTool = defineTool({
  name: 'core_site',
  toolset: 'machines',
  title: 'Machine site',
  description:
    "Manages the small static site a machine serves: list its files, read one file's metadata by content hash, upload a page, and read, issue or revoke the site publish key. Issuing and revoking the key needs the admin role; the plaintext key is returned only when issued.",
  actions: [
    defineAction({
      id: 'chain.getSiteFile',
      action: 'get_file',
      method: 'GET',
      path: '/api/chain/{slug}/site/file/{sha}',
      auth: 'public',
      area: 'chain',
      summary: "Reads one file's metadata by content hash (path, type, size, when and by whom it was uploaded).",
      input: z.object({ slug: MachineSlug, sha: Hex64.describe('Content hash of the file') }),
      output: z.object({ ok: z.literal(true), slug: z.string(), file: SiteFile }),
      idempotent: true,
      handler: async ({ slug, sha }, { services, caller }) => ({ ok: true as const, slug, file: await services.site.getFile(slug, sha, caller) }),
    }),
    defineAction({
      id: 'chain.listSiteFiles',
      action: 'list',
      method: 'GET',
      path: '/api/chain/{slug}/site/list',
      auth: 'public',
      area: 'chain',
      summary: "Lists the site's files; one per path, with content hash, type and size.",
      input: z.object({ slug: MachineSlug, limit: Limit.default(100), cursor: Cursor.optional() }),
      output: z.object({ ok: z.literal(true), slug: z.string(), files: z.array(SiteFile), next_cursor: z.string().nullable() }),
      idempotent: true,
      handler: async ({ slug, ...page }, { services, caller }) => ({ ok: true as const, slug, ...(await services.site.list(slug, caller, page)) }),
    }),
    defineAction({
      id: 'chain.uploadSitePage',
      action: 'upload',
      method: 'POST',
      path: '/api/chain/{slug}/site/upload',
      auth: 'public',
      area: 'chain',
      summary:
        'Uploads one page or asset to the site; at most 512 KiB, allow-listed content types; replaces the file at that path, records its hash in the chain, and returns the file metadata; needs the site publish key or the operator role.',
      input: z.object({
        slug: MachineSlug,
        path: z
          .string()
          .min(1)
          .max(512)
          .regex(/^[A-Za-z0-9._~\-/]+$/, 'URL-safe path characters only')
          .describe('Path inside the site, e.g. "docs/intro.html"'),
        content: z.string().max(700_000).describe('File content, as UTF-8 text or base64 per encoding (at most 512 KiB decoded)'),
        encoding: z.enum(['utf-8', 'base64']).default('utf-8').describe('How content is encoded'),
        content_type: z
          .string()
          .min(1)
          .max(255)
          .default('text/html; charset=utf-8')
          .describe(
            'Served MIME type: text/html, text/css, text/plain, text/markdown, text/csv, (text|application)/javascript, application/json, application/wasm, application/pdf, image/(png|jpeg|gif|webp|avif|svg+xml|x-icon) or font/(woff|woff2)',
          ),
        publish_key: z.string().max(256).optional().describe('Publish key, if you are not an operator or higher (the site proxy attaches it)'),
      }),
      output: z.object({
        ok: z.literal(true),
        file: SiteFile,
        tick: Tick,
        transition_id: z.string(),
        seq: z.number().int().min(0),
        state_hash: Hex64,
      }),
      handler: async (input, { services, caller }) => services.site.upload(input, caller),
    }),
    defineAction({
      id: 'chain.getSitePublishKey',
      action: 'get_publish_key',
      method: 'GET',
      path: '/api/chain/{slug}/site/publish-key',
      auth: 'public',
      area: 'chain',
      summary: 'Tells whether a publish key is active; never the key itself.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        active: z.boolean(),
        key_prefix: z.string().nullable(),
        issued_tick: Tick.nullable(),
      }),
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, ...(await services.site.publishKeyStatus(slug, caller)) }),
    }),
    defineAction({
      id: 'chain.issueSitePublishKey',
      lastingAccess: 'Issuing a site publish key',
      action: 'issue_publish_key',
      method: 'POST',
      path: '/api/chain/{slug}/site/publish-key',
      auth: 'bearer',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Issues a new site publish key; replaces any previous one and returns its plaintext this once.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        publish_key: z.string().describe('Plaintext key; shown only now, only its SHA-256 is stored'),
        key_prefix: z.string(),
        issued_tick: Tick,
      }),
      destructive: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, ...(await services.site.issuePublishKey(slug, caller)) }),
    }),
    defineAction({
      id: 'chain.revokeSitePublishKey',
      action: 'revoke_publish_key',
      method: 'DELETE',
      path: '/api/chain/{slug}/site/publish-key',
      auth: 'bearer',
      role: 'admin',
      guards: 'slug',
      area: 'chain',
      summary: 'Revokes the site publish key; uploads with it are refused afterwards.',
      input: z.object({ slug: MachineSlug }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        revoked: z.boolean().describe('False when no key was active'),
      }),
      destructive: true,
      idempotent: true,
      handler: async ({ slug }, { services, caller }) => ({ ok: true as const, slug, revoked: await services.site.revokePublishKey(slug, caller) }),
    }),
  ],
});
