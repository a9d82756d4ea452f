import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Hex64, IsoDate, Limit, Slug, Uid } from '../../src/registry/common-schemas.js';
import { actorOf } from './agent-actor.js';
import { FileEncoding, FilePath, FileVersion } from './agents.schemas.js';

/** No `{uid}` in these paths: the store is the caller's unless the owner of a machine the agent delegated names it. */
const StoreRef = {
  uid: Uid.optional().describe('Agent whose store to use; defaults to the caller'),
  slug: Slug.optional().describe("Your machine; with `uid`, uses that agent's store by its delegation"),
};

export const agentFilesTool = defineTool({
  name: 'core_agent_files',
  toolset: 'agents',
  title: 'Agent files',
  description:
    'A versioned per-agent file store (up to 1 MiB a file). `write` adds a new version; `read` returns the latest or a given version; `list` lists paths by prefix; `history` lists the versions of one path.',
  actions: [
    defineAction({
      id: 'agentFile.listVersions',
      action: 'history',
      method: 'GET',
      path: '/api/agent/files/history',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: 'Lists every version of one file. Newest first, with size, digest and time.',
      input: z.object({ ...StoreRef, path: FilePath, limit: Limit.default(50), cursor: Cursor.optional() }),
      output: z.object({
        ok: z.literal(true),
        path: FilePath,
        versions: z.array(FileVersion),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async ({ path, limit, cursor }, ctx) => {
        const owner = actorOf(ctx).uid;
        return { ok: true as const, ...(await ctx.services.agents.files.history(owner, { path, limit, ...(cursor !== undefined ? { cursor } : {}) })) };
      },
    }),
    defineAction({
      id: 'agentFile.list',
      action: 'list',
      method: 'GET',
      path: '/api/agent/files/list',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: 'Lists the paths under a prefix; with their latest version, size and digest.',
      input: z.object({
        ...StoreRef,
        prefix: z.string().max(512).optional().describe('Path prefix, e.g. "notes/"'),
        limit: Limit.default(100),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        files: z.array(
          z.object({
            path: FilePath,
            latest_version: z.number().int().min(1),
            bytes: z.number().int().min(0),
            sha256: Hex64,
            updated_at: IsoDate,
          }),
        ),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async ({ prefix, limit, cursor }, ctx) => {
        const owner = actorOf(ctx).uid;
        const page = await ctx.services.agents.files.list(owner, {
          limit,
          ...(prefix !== undefined ? { prefix } : {}),
          ...(cursor !== undefined ? { cursor } : {}),
        });
        return { ok: true as const, ...page };
      },
    }),
    defineAction({
      id: 'agentFile.read',
      action: 'read',
      method: 'GET',
      path: '/api/agent/files/read',
      auth: 'bearer',
      agentStore: 'read',
      area: 'agents',
      summary: "Reads a file's latest version, or the version given; with its content, encoding and digest.",
      input: z.object({
        ...StoreRef,
        path: FilePath,
        version: z.number().int().min(1).optional().describe('Version to read; default the latest'),
        encoding: FileEncoding.optional().describe('Encoding of the returned content; default as written'),
      }),
      output: z.object({
        ok: z.literal(true),
        ...FileVersion.shape,
        content: z.string(),
        content_encoding: FileEncoding.describe('How `content` is encoded: the `encoding` asked for, else the one it was written with'),
      }),
      idempotent: true,
      handler: async ({ path, version, encoding }, ctx) => {
        const owner = actorOf(ctx).uid;
        const file = await ctx.services.agents.files.read(owner, {
          path,
          ...(version !== undefined ? { version } : {}),
          ...(encoding !== undefined ? { encoding } : {}),
        });
        return { ok: true as const, ...file };
      },
    }),
    defineAction({
      id: 'agentFile.write',
      action: 'write',
      method: 'POST',
      path: '/api/agent/files/write',
      auth: 'bearer',
      agentStore: 'write',
      area: 'agents',
      summary: 'Writes a new version of a file. Earlier versions are kept; returns its version number and digest.',
      input: z.object({
        ...StoreRef,
        path: FilePath,
        content: z.string().max(1_398_104).describe('File content, at most 1 MiB once decoded'),
        encoding: FileEncoding.default('utf8').describe('How `content` is encoded'),
      }),
      output: z.object({ ok: z.literal(true), file: FileVersion }),
      handler: async ({ path, content, encoding }, ctx) => {
        const owner = actorOf(ctx).uid;
        return { ok: true as const, file: await ctx.services.agents.files.write(owner, { path, content, encoding }) };
      },
    }),
  ],
});
