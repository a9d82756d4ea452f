import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildRegistry, type Registry } from '../../../src/registry/registry.js';
import { isSecret } from '../../../src/registry/secret-fields.js';
import { defineAction, defineTool } from '../../../src/registry/types.js';
import { allTools } from '../../../tools/index.js';

/**
 * The rule for durable credentials, checked on the registry: an operation that hands out a credential
 * or grants someone a right is declared `lastingAccess` (which the pipeline refuses to an unproven
 * session). "Hands out a credential": an output field whose name says it holds one (the same names
 * as the secret-field rule). "Grants a right": an input naming a role, a key scope, a delegation's
 * access, a read password or a machine's visibility. A new operation of either kind fails here until
 * it is declared or reviewed into `NOT_LASTING` with its reason.
 */
const CREDENTIAL_OUT = /secret|password|passphrase|private_key|api_key|publish_key|share_token|session_token|access_token|refresh_token|plaintext/i;
const ABOUT_A_SECRET = /^has_|_ids?$|_prefix$|_hash$|_expires_at$/;
const GRANT_IN = /^(role|scope|access|password|is_public)$/;

/** Operations that match the rule above but create no access outliving the caller's own session. */
const NOT_LASTING: Record<string, string> = {
  'chain.unlockMachine': 'the read token is traded for the read password: knowing the password is the proof, whoever asks',
};

/** Declared after review though no field names it: what they create is not visible in the schemas. */
const DECLARED_BY_REVIEW: Record<string, string> = {
  'auth.startSso': 'the round trip ends in a proven session for the caller uid',
};

/** Output field names of a schema, through wrappers, arrays, records and unions; secret (write-only) fields left out. */
function outputNames(schema: z.ZodType, out: string[] = [], seen = new Set<z.ZodType>()): string[] {
  if (seen.has(schema) || isSecret(schema)) return out;
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, any> & { type: string };
  if (['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch'].includes(def.type)) return outputNames(def.innerType, out, seen);
  if (def.type === 'pipe') return outputNames(def.out, out, seen);
  if (def.type === 'lazy') return outputNames(def.getter(), out, seen);
  if (def.type === 'array') return outputNames(def.element, out, seen);
  if (def.type === 'record') return outputNames(def.valueType, out, seen);
  if (def.type === 'union') for (const option of def.options) outputNames(option, out, seen);
  if (def.type === 'intersection') [def.left, def.right].forEach((s: z.ZodType) => outputNames(s, out, seen));
  if (def.type === 'object') {
    for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
      if (!isSecret(field)) out.push(key);
      outputNames(field, out, seen);
    }
  }
  return out;
}

/** The operations that create lasting access by the schema rule, with what gave them away. */
function lastingByShape(registry: Registry): Map<string, string> {
  const found = new Map<string, string>();
  for (const op of registry.operations) {
    const credential = outputNames(op.def.output).find((name) => CREDENTIAL_OUT.test(name) && !ABOUT_A_SECRET.test(name));
    const grant = Object.keys(op.def.input.shape).find((name) => GRANT_IN.test(name));
    if (credential !== undefined || grant !== undefined) found.set(op.id, credential !== undefined ? `answers ${credential}` : `takes ${grant}`);
  }
  return found;
}

/** What the check reports: operations found by shape that neither declare `lastingAccess` nor were reviewed out. */
function undeclared(registry: Registry): string[] {
  return [...lastingByShape(registry)].filter(([id]) => !(id in NOT_LASTING) && !registry.byId.get(id)!.def.lastingAccess).map(([id, why]) => `${id} (${why})`);
}

describe('operations that create lasting access', () => {
  const registry = buildRegistry(allTools);

  it('declares lastingAccess on every operation that answers a credential or grants a right', () => {
    expect(undeclared(registry)).toEqual([]);
  });

  it('declares nothing beyond what the schemas show or a review recorded, and keeps every exception current', () => {
    const byShape = lastingByShape(registry);
    const declared = registry.operations.filter((op) => op.def.lastingAccess).map((op) => op.id);
    expect(declared.filter((id) => !byShape.has(id)).sort()).toEqual(Object.keys(DECLARED_BY_REVIEW).sort());
    for (const id of Object.keys(NOT_LASTING)) expect(byShape.has(id), id).toBe(true);
    expect(declared.sort()).toEqual(
      [
        'agentDelegation.create',
        'auth.startSso',
        'chain.addAdmin',
        'chain.createApiKey',
        'chain.createMachine',
        'chain.issueSitePublishKey',
        'chain.setShareToken',
        'chain.updateAdmin',
        'chain.updateMachineSettings',
      ].sort(),
    );
  });

  it('catches a new operation that mints a credential or grants a role without declaring it', () => {
    const minted = defineAction({
      id: 'test.mintToken',
      method: 'POST',
      path: '/api/test/token',
      auth: 'bearer',
      area: 'test',
      summary: 'Mints a token.',
      input: z.object({}),
      output: z.object({ ok: z.literal(true), grant: z.object({ access_token: z.string() }) }),
      handler: async () => ({ ok: true as const, grant: { access_token: 't' } }),
    });
    const granted = defineAction({
      id: 'test.grant',
      method: 'POST',
      path: '/api/test/grant',
      auth: 'bearer',
      area: 'test',
      summary: 'Grants a role.',
      input: z.object({ uid: z.string(), role: z.string() }),
      output: z.object({ ok: z.literal(true) }),
      handler: async () => ({ ok: true as const }),
    });
    const tool = defineTool({ name: 'core_test', toolset: 'platform', title: 'Test', description: 'Test.', actions: [minted, granted] });
    expect(undeclared(buildRegistry([tool]))).toEqual(['test.mintToken (answers access_token)', 'test.grant (takes role)']);
    const declaredTool = { ...tool, actions: [minted, granted].map((a) => ({ ...a, lastingAccess: 'Testing' })) };
    expect(undeclared(buildRegistry([declaredTool]))).toEqual([]);
  });
});
