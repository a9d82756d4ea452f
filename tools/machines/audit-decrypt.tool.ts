import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject } from '../../src/registry/common-schemas.js';
import { AuditRow, MachineSlug } from './machines.schemas.js';

export const auditDecryptTool = defineTool({
  name: 'core_audit_decrypt',
  toolset: 'machines',
  title: 'Decrypt audit payloads',
  description: "Lets a machine's owner decrypt the payloads behind audit rows, which otherwise show only a digest. Each decryption is recorded in the chain.",
  actions: [
    defineAction({
      id: 'chain.decryptAudit',
      action: 'decrypt',
      method: 'POST',
      path: '/api/chain/{slug}/audit/decrypt',
      auth: 'public',
      role: 'owner',
      guards: 'slug',
      area: 'chain',
      summary:
        'Decrypts the stored payloads of the given audit rows (by seq or transition id), checks each against its payload_digest, and records the access.',
      input: z.object({
        slug: MachineSlug,
        seqs: z.array(z.number().int().min(0)).min(1).max(100).optional().describe('seq of each row to decrypt; give seqs or transition_ids'),
        transition_ids: z.array(z.string().min(1).max(128)).min(1).max(100).optional().describe('Transition ids of the rows to decrypt'),
        reason: z.string().max(500).optional().describe('Why, recorded in the access row'),
      }),
      output: z.object({
        ok: z.literal(true),
        slug: z.string(),
        rows: z.array(
          z.object({
            row: AuditRow,
            payload: JsonObject.nullable().describe('Decrypted payload; null when the row kept only a digest (e.g. a hash was sent)'),
            digest_matches: z.boolean().nullable().describe('Whether sha256 of the payload equals payload_digest; null without payload'),
          }),
        ),
        access_seq: z.number().int().min(0).describe('seq of the row that records this decryption'),
      }),
      handler: async ({ slug, ...input }, { services, caller, machine }) => {
        return { ok: true as const, slug, ...(await services.chainWrites.decrypt(machine, caller, input)) };
      },
    }),
  ],
});
