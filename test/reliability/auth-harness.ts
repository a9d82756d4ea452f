import fc from 'fast-check';
import { keyRequired } from '../../src/registry/auth-rule.js';
import type { Operation } from '../../src/registry/registry.js';
import { FIXTURE_SLUG, fromSchema } from './arbitraries.js';

type Schema = Record<string, unknown>;

/** The kinds of caller the matrix tries on every operation. */
export const CALLER_KINDS = [
  'none',
  'invalid_key',
  'revoked_key',
  'expired_key',
  'share_token',
  'other_owner',
  'viewer',
  'operator',
  'admin',
  'session',
  'owner',
] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

/** What the auth layer decided, read off an answer: 401, 403, 404 for a hidden machine, or let through. */
export type AuthClass = 'unauthenticated' | 'forbidden' | 'hidden' | 'passed';

/** The role each caller kind holds on the test machines (the session user is granted operator). */
const GRANTED: Partial<Record<CallerKind, 'viewer' | 'operator' | 'admin' | 'owner'>> = {
  viewer: 'viewer',
  operator: 'operator',
  admin: 'admin',
  session: 'operator',
  owner: 'owner',
};
const RANK = { viewer: 1, operator: 2, admin: 3, owner: 4 } as const;

/** A bearer key the server's store does not know (never minted, revoked, expired). */
export function isBadKey(kind: CallerKind): boolean {
  return kind === 'invalid_key' || kind === 'revoked_key' || kind === 'expired_key';
}

/**
 * The outcome class the registry's rules promise, as the catalogue and OpenAPI state them: a bad
 * key counts as no key (public operations answer anonymously, with a warning); an operation that needs a key (`keyRequired`: bearer, a role check,
 * or a caller the operation acts for) answers 401 to an anonymous caller; a role check on a private
 * machine the caller cannot read is 404, on one it can read but lacks the role 403.
 */
export function expectedClass(op: Operation, kind: CallerKind, machine: 'private' | 'public'): AuthClass {
  const anonymous = kind === 'none' || kind === 'share_token' || isBadKey(kind);
  if (keyRequired(op.def) && anonymous) return 'unauthenticated';
  const required = op.def.role;
  if (!required) return 'passed';
  if (anonymous) return 'unauthenticated';
  const held = GRANTED[kind];
  if (!held) return machine === 'private' ? 'hidden' : 'forbidden';
  return RANK[held] >= RANK[required] ? 'passed' : 'forbidden';
}

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const defs = (root.$defs ?? root.definitions ?? {}) as Record<string, Schema>;
  return ref === '#' ? root : (defs[ref.replace(/^#\/(\$defs|definitions)\//, '')] ?? {});
}

/** A small value the schema accepts, required fields only; best effort (checked by the caller). */
function minimal(schema: Schema, root: Schema, nowMs: number, depth = 0): unknown {
  const s = resolve(schema, root);
  if (depth > 8) return null;
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[key];
    if (Array.isArray(list) && list.length > 0) return minimal(list[0] as Schema, root, nowMs, depth + 1);
  }
  const type = Array.isArray(s.type) ? ((s.type as string[]).find((t) => t !== 'null') ?? 'null') : s.type;
  switch (type) {
    case 'string': {
      if (s.format === 'email') return 'someone@example.org';
      if (s.format === 'uri' || s.format === 'url') return 'https://example.org/';
      if (s.format === 'date-time') return new Date(nowMs + 86_400_000).toISOString();
      if (typeof s.pattern === 'string') {
        try {
          const [v] = fc.sample(fc.stringMatching(new RegExp(s.pattern)), { seed: 7, numRuns: 1 });
          if (v !== undefined) return typeof s.maxLength === 'number' ? v.slice(0, s.maxLength) : v;
        } catch {
          /* fall through */
        }
      }
      return 'a'.repeat(Math.max(typeof s.minLength === 'number' ? s.minLength : 1, 1));
    }
    case 'integer':
    case 'number': {
      const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
      const hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
      return Math.min(Math.max(lo, 1), hi);
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: n }, () => minimal((s.items ?? {}) as Schema, root, nowMs, depth + 1));
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, unknown> = {};
      for (const name of (s.required ?? []) as string[]) out[name] = minimal(props[name] ?? {}, root, nowMs, depth + 1);
      return out;
    }
    default:
      return 'a';
  }
}

/**
 * An input that passes the operation's strict schema, with `slug`/`motherSlug` set to `slug`: the
 * minimal one when it validates, else the first of a few hundred generated ones that does; undefined
 * when none does.
 */
export function validInput(op: Operation, slug: string, nowMs: number): Record<string, unknown> | undefined {
  const fields = new Set(Object.keys((op.inputSchema.properties ?? {}) as object));
  const withSlug = (v: unknown) => {
    const o: Record<string, unknown> = { ...(typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) };
    for (const [k, x] of Object.entries(o)) if (x === FIXTURE_SLUG) o[k] = slug;
    for (const k of ['slug', 'motherSlug']) if (fields.has(k)) o[k] = slug;
    return o;
  };
  const first = withSlug(minimal(op.inputSchema, op.inputSchema, nowMs));
  if (op.strictInput.safeParse(first).success) return first;
  for (const v of fc.sample(fromSchema(op.inputSchema), { seed: 11, numRuns: 300 })) {
    const candidate = withSlug(v);
    if (op.strictInput.safeParse(candidate).success) return candidate;
  }
  return undefined;
}
