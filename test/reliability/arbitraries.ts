import fc from 'fast-check';

type Schema = Record<string, unknown>;

/** Stands for the fixture machine's slug; the sender substitutes the live one. */
export const FIXTURE_SLUG = '$fixture-slug';
const SLUG_FIELDS = new Set(['slug', 'motherSlug']);

/** Keys that try to reach an object's prototype. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const unicode = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }), // lone surrogates included
  fc.constantFrom('\u0000', '\u202e', '\ufeff', 'ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ', '../../etc/passwd', '%00', "' OR 1=1 --", '<script>', '${x}', '{{x}}'),
);

/** A value nested `depth` levels deep. */
const deep = fc.integer({ min: 50, max: 400 }).map((depth) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});

/** Hostile values of any JSON type: wrong types, huge strings, deep nesting, odd unicode, prototype keys. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, -0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, '', ' ', 'null', 'true', '0', [], {}),
  unicode,
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
  deep,
  fc.constantFrom(...PROTO_KEYS).map((k) => JSON.parse(`{"${k}": {"polluted": true, "isAdmin": true, "role": "owner"}}`)),
  fc.jsonValue({ maxDepth: 3 }),
);

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace(/^#\/(\$defs|definitions)\//, '');
  const defs = (root.$defs ?? root.definitions ?? {}) as Record<string, Schema>;
  return ref === '#' ? root : (defs[name] ?? {});
}

/** Arbitrary of values that a JSON Schema accepts (best effort: patterns and formats are approximated, boundaries hit). */
export function fromSchema(schema: Schema, root: Schema = schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, root);
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = s[key];
    if (Array.isArray(list) && list.length > 0) return fc.oneof(...(list as Schema[]).map((x) => fromSchema(x, root, depth + 1)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return fromSchema(s.allOf[0] as Schema, root, depth + 1);
  const type = Array.isArray(s.type) ? ((s.type as string[]).find((t) => t !== 'null') ?? 'null') : s.type;
  switch (type) {
    case 'string':
      return stringOf(s);
    case 'integer':
    case 'number':
      return numberOf(s, type === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = s.items && typeof s.items === 'object' ? fromSchema(s.items as Schema, root, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxLength = Math.min(typeof s.maxItems === 'number' ? s.maxItems : 4, minLength + 4);
      return fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectOf(s, root, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(s: Schema, root: Schema, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const names = Object.keys(props);
  if (names.length === 0 && s.additionalProperties === false) return fc.constant({});
  if (names.length === 0) {
    const extra =
      s.additionalProperties && typeof s.additionalProperties === 'object'
        ? fromSchema(s.additionalProperties as Schema, root, depth + 1)
        : fc.jsonValue({ maxDepth: 1 });
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), extra, { maxKeys: 3 });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    const generic = fromSchema(props[name]!, root, depth + 1);
    // Mostly the fixture machine, so calls get past the machine lookup into the handlers.
    record[name] =
      depth === 0 && SLUG_FIELDS.has(name) ? fc.oneof({ arbitrary: fc.constant(FIXTURE_SLUG), weight: 3 }, { arbitrary: generic, weight: 1 }) : generic;
  }
  return fc.record(record, { requiredKeys: names.filter((n) => required.has(n)) });
}

function stringOf(s: Schema): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Math.max(min, 40);
  const boundaries = [min, Math.min(max, min + 1), max].filter((n) => n <= 5000);
  const shaped: fc.Arbitrary<string>[] = [
    fc.string({ minLength: min, maxLength: Math.min(max, min + 30) }),
    fc.constantFrom(...boundaries).map((n) => 'a'.repeat(n)),
    fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/),
  ];
  if (typeof s.pattern === 'string') {
    try {
      // Map, never filter: a filter that cannot be met spins for ever.
      shaped.push(fc.stringMatching(new RegExp(s.pattern)).map((x) => (typeof s.maxLength === 'number' ? x.slice(0, s.maxLength) : x)));
    } catch {
      /* pattern fast-check cannot generate from */
    }
  }
  if (s.format === 'email') shaped.push(fc.emailAddress());
  if (s.format === 'uri' || s.format === 'url') shaped.push(fc.webUrl());
  if (s.format === 'date-time') shaped.push(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString()));
  shaped.push(fc.constantFrom('0'.repeat(64), 'f'.repeat(64)));
  return fc.oneof(...shaped);
}

function numberOf(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : -1e6;
  const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : 1e6;
  const edges = [lo, hi, lo - 1, hi + 1, 0].filter((n) => Number.isFinite(n));
  const inRange = integer
    ? fc.integer({ min: Math.max(Math.ceil(lo), Number.MIN_SAFE_INTEGER), max: Math.min(Math.floor(hi), Number.MAX_SAFE_INTEGER) })
    : fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
  return fc.oneof(inRange, fc.constantFrom(...edges));
}

/**
 * Inputs for one operation: mostly schema-shaped values, some with one field swapped for a hostile
 * value, some with prototype keys added, some hostile as a whole.
 */
export function inputsFor(inputSchema: Schema): fc.Arbitrary<unknown> {
  const valid = fromSchema(inputSchema) as fc.Arbitrary<Record<string, unknown>>;
  const names = Object.keys((inputSchema.properties ?? {}) as object);
  const field = names.length > 0 ? fc.constantFrom(...names) : fc.constant('x');
  const mutated = fc.tuple(valid, field, hostile).map(([v, k, h]) => ({ ...(v ?? {}), [k]: h }));
  const proto = fc.tuple(valid, fc.constantFrom(...PROTO_KEYS)).map(([v, k]) => {
    const o = JSON.parse(JSON.stringify(v ?? {})) as Record<string, unknown>;
    Object.defineProperty(o, k, { value: { polluted: true, slug: 'x', role: 'owner' }, enumerable: true, configurable: true, writable: true });
    return o;
  });
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: mutated, weight: 3 }, { arbitrary: proto, weight: 1 }, { arbitrary: hostile, weight: 1 });
}
