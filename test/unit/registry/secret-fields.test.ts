import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildRegistry } from '../../../src/registry/registry.js';
import { isSecret, Secret, secretStripper } from '../../../src/registry/secret-fields.js';
import { allTools } from '../../../tools/index.js';

/**
 * The output rule for secret fields, checked on the registry: a field whose name says it holds a
 * secret is declared `Secret` (and so stripped from every answer by the pipeline), unless it is one
 * of the few answers that hand a new credential to its creator once.
 */
const SECRET_NAME = /secret|password|passphrase|private_key|api_key|publish_key|share_token|session_token|access_token|refresh_token|plaintext/i;
/** About a secret, not the secret: a flag, an id, a prefix or a digest of it. */
const ABOUT_A_SECRET = /^has_|_ids?$|_prefix$|_hash$|_expires_at$/;

/**
 * Answers that show a raw credential exactly once, to whoever just created it (never again afterwards).
 * (`identity.mintDemoKey.key` is one too; a bare `key` names too many other things to check by name.)
 */
const SHOWN_ONCE: Record<string, string> = {
  'chain.createMachine.api_key': "the new machine's owner key",
  'chain.createApiKey.api_key': 'the new developer key',
  'chain.issueSitePublishKey.publish_key': 'the new site publish key',
  'chain.setShareToken.share_token': 'the new share token, for its owner to hand out',
  'chain.unlockMachine.share_token': 'the read token bought with the password',
};

/** Every object field of a schema with its path (`a.b[].c`), through wrappers, arrays, records and unions. */
function fields(schema: z.ZodType, path: string, out: Array<[string, string, z.ZodType]>, seen = new Set<z.ZodType>()) {
  if (seen.has(schema)) return out;
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, any> & { type: string };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return fields(def.innerType, path, out, seen);
    case 'pipe':
      return fields(def.out, path, out, seen);
    case 'lazy':
      return fields(def.getter(), path, out, seen);
    case 'object':
      for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        out.push([`${path}.${key}`, key, field]);
        fields(field, `${path}.${key}`, out, seen);
      }
      return out;
    case 'array':
      return fields(def.element, `${path}[]`, out, seen);
    case 'record':
      return fields(def.valueType, `${path}{}`, out, seen);
    case 'union':
      for (const option of def.options) fields(option, path, out, seen);
      return out;
    case 'intersection':
      fields(def.left, path, out, seen);
      return fields(def.right, path, out, seen);
    default:
      return out;
  }
}

describe('secret fields', () => {
  const registry = buildRegistry(allTools);

  it('declares every output field whose name says it holds a secret as Secret, except credentials shown once at creation', () => {
    const unmarked: string[] = [];
    const shownOnce = new Set<string>();
    for (const op of registry.operations) {
      for (const [path, key, field] of fields(op.def.output, op.id, [])) {
        if (!SECRET_NAME.test(key) || ABOUT_A_SECRET.test(key) || isSecret(field)) continue;
        if (path in SHOWN_ONCE) shownOnce.add(path);
        else unmarked.push(path);
      }
    }
    expect(unmarked).toEqual([]);
    // Every exception still exists: a stale one would hide a new field of the same name.
    expect([...shownOnce].sort()).toEqual(Object.keys(SHOWN_ONCE).sort());
  });

  it('marks definition.secrets of every contract answer, and the pipeline strips it from each of them', () => {
    const carrying = registry.operations.filter((op) => fields(op.def.output, op.id, []).some(([, key]) => key === 'secrets'));
    expect(carrying.map((op) => op.id)).toEqual(
      expect.arrayContaining(['contracts.getPublic', 'contracts.getContract', 'contracts.getVersion', 'contracts.listContracts', 'contracts.exportContract']),
    );
    for (const op of carrying) expect(op.stripSecrets, op.id).toBeTypeOf('function');
    // Operations without a secret field pay nothing on output.
    expect(registry.byId.get('chain.getMachine')!.stripSecrets).toBeUndefined();
  });

  it('shows Secret fields as writeOnly in the JSON Schema clients read', () => {
    const schema = registry.byId.get('contracts.getPublic')!.outputSchema as any;
    expect(JSON.stringify(schema)).toContain('"writeOnly":true');
  });

  it('strips secrets through objects, arrays, records and unions, without changing the value it is given', () => {
    const Inner = z.object({ name: z.string(), pin: Secret(z.string()).optional() }).loose();
    const Schema = z.object({
      one: Inner,
      many: z.array(Inner),
      byName: z.record(z.string(), Inner),
      either: z.union([z.object({ kind: z.literal('a'), token: Secret(z.string()) }), z.object({ kind: z.literal('b'), note: z.string() })]),
    });
    const value = {
      one: { name: 'x', pin: '1', extra: true },
      many: [{ name: 'y', pin: '2' }, { name: 'z' }],
      byName: { k: { name: 'w', pin: '3' } },
      either: { kind: 'a', token: '4' },
    };
    const before = structuredClone(value);
    const strip = secretStripper(Schema)!;
    expect(strip(value)).toEqual({
      one: { name: 'x', extra: true },
      many: [{ name: 'y' }, { name: 'z' }],
      byName: { k: { name: 'w' } },
      either: { kind: 'a' },
    });
    expect(value).toEqual(before);
    expect(secretStripper(z.object({ a: z.string() }))).toBeUndefined();
  });
});
