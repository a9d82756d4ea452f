/** A JSON Schema node, as much of it as sample inputs look at. */
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** Values some fields must hold to reach past validation (the smoke machine, the smoke caller). */
export type Overrides = Record<string, unknown>;

/** Tried in order for a string with a pattern: the first that matches is used. */
const PATTERN_CANDIDATES = ['smoke', 'a', 'smoke_1', 'smoke-1', 'x1', 'r1', 'KO42', '0'.repeat(64), '1', '24h', 'a@example.org', 'https://example.org/', '/'];

/**
 * A small input that satisfies a JSON Schema as far as simple rules allow: declared examples and
 * defaults first, then enums, formats and bounds; only required properties, plus overridden ones.
 */
export function sampleInput(schema: Schema, overrides: Overrides): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (name in overrides) out[name] = overrides[name];
    else if (required.has(name)) out[name] = sampleOf(prop, overrides, 0);
  }
  return out;
}

function sampleOf(schema: Schema, overrides: Overrides, depth: number): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const alt = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alt) return sampleOf(alt, overrides, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return sampleString(schema);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
      return Math.min(Math.max(min, 1), schema.maximum ?? Number.MAX_SAFE_INTEGER);
    }
    case 'boolean':
      return false;
    case 'array':
      return depth > 4 || !schema.items ? [] : Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items!, overrides, depth + 1));
    case 'object':
      return depth > 4 ? {} : sampleInput(schema, {});
    default:
      return null;
  }
}

function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'email':
      return 'smoke@example.org';
    case 'uri':
    case 'url':
      return 'https://example.org/';
    case 'date-time':
      return '2026-01-01T00:00:00Z';
  }
  const fits = (s: string) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity);
  if (schema.pattern) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {
      re = undefined;
    }
    const found = re && PATTERN_CANDIDATES.find((c) => fits(c) && re!.test(c));
    if (found) return found;
  }
  const base = 'smoke-check-value';
  const min = schema.minLength ?? 0;
  const text = base.length >= min ? base : base.padEnd(min, 'x');
  return text.slice(0, schema.maxLength ?? text.length);
}
