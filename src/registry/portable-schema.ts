import { firstClause } from './gist.js';
import type { JsonSchema } from './json-schema.js';
import { isObject } from '../lib/is-object.js';

/**
 * The form of a JSON Schema that every MCP client reads the same way. LangChain's adapter merges
 * `oneOf` branches (the last wins), OpenAI's strict tools refuse `propertyNames` and look-around
 * patterns, Gemini drops `anyOf`; so a tool's `inputSchema` uses none of `oneOf`, `anyOf`, `allOf`,
 * `$ref`, `$defs`, `propertyNames` or a look-around pattern. A union becomes one object whose
 * discriminator is an enum and whose other fields are optional; a nullable field gets `"null"` in
 * its `type`. The result may accept more than the zod schema does: the server parses every call with
 * the action's own zod schema, so the exact rule and its precise error come from there.
 */
export function portableSchema(schema: JsonSchema): JsonSchema {
  let node: JsonSchema = { ...schema };
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    delete node[key];
    node = { ...unionOf(list.map((s) => portableSchema(s as JsonSchema))), ...node };
  }
  if (Array.isArray(node.allOf)) {
    const parts = (node.allOf as JsonSchema[]).map(portableSchema);
    delete node.allOf;
    node = { ...parts.reduce(mergeSchemas), ...node };
  }
  delete node.propertyNames;
  delete node.$schema;
  // A standard format says it better than zod's long equivalent pattern (338 characters for date-time);
  // zod's own formats (`starts_with`, ...) mean nothing to a client, and their pattern says it.
  if (typeof node.format === 'string' && !STANDARD_FORMATS.has(node.format)) delete node.format;
  if (typeof node.pattern === 'string' && (node.format !== undefined || LOOK_AROUND.test(node.pattern))) delete node.pattern;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (isObject(node.properties)) {
    node.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, portableSchema(v as JsonSchema)]));
  }
  if (isObject(node.items)) node.items = portableSchema(node.items);
  if (isObject(node.additionalProperties)) {
    const extra = portableSchema(node.additionalProperties);
    // `{}` allows anything: said once as `true` for a free-form map (some converters strip unknown keys
    // otherwise), and left out for an object whose fields are listed.
    if (Object.keys(extra).length > 0) node.additionalProperties = extra;
    else if (isObject(node.properties)) delete node.additionalProperties;
    else node.additionalProperties = true;
  }
  return node;
}

const LOOK_AROUND = /\(\?<?[=!]/;

const STANDARD_FORMATS = new Set(['date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid']);

/** Bounds and patterns an agent rarely needs up front; the server's check names them when a call breaks one. */
const BOUNDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'pattern'] as const;

/**
 * A portable schema as a tool descriptor shows it: without size bounds and patterns. The zod
 * schema still enforces them, with an error that says which; `core_api_catalog` gives them in full.
 */
export function compactSchema(schema: JsonSchema, keepNestedNotes: ReadonlySet<string> = new Set()): JsonSchema {
  const top = compactNode(schema);
  if (!isObject(top.properties)) return top;
  // Inside a field's object (a receipt or token row handed back as received) names and types are
  // enough, and the field's own description says what it is; a shape an agent writes keeps its notes
  // and which of its fields are required.
  const properties = Object.entries(top.properties).map(([k, v]) => [
    k,
    keepNestedNotes.has(k) ? v : { ...withoutNestedNotes(v as JsonSchema), ...pick(v as JsonSchema, 'description') },
  ]);
  return { ...top, properties: Object.fromEntries(properties) };
}

function compactNode(schema: JsonSchema): JsonSchema {
  const node: JsonSchema = { ...schema };
  for (const key of BOUNDS) delete node[key];
  // Examples are for people reading the catalogue; a model gets the field's description and type.
  delete node.examples;
  // An enum's description says what each value means ("read: ...; write: ..."): kept whole.
  if (typeof node.description === 'string' && !Array.isArray(node.enum)) node.description = firstClause(node.description);
  // An array's own description says what its items are.
  if (isObject(node.items) && node.description !== undefined) node.items = dropKey(node.items, 'description');
  return withSiblingsSaidOnce(mapChildren(node, compactNode));
}

/**
 * A large field whose schema repeats an earlier sibling's (`post_actions` after `pre_actions`) points
 * to it instead; it stays an array or object that takes any member, so no client strips a field.
 */
function withSiblingsSaidOnce(node: JsonSchema): JsonSchema {
  if (!isObject(node.properties)) return node;
  const seen = new Map<string, string>();
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(node.properties as Record<string, JsonSchema>)) {
    const { description: _note, ...shape } = field;
    const key = JSON.stringify(shape);
    const first = seen.get(key);
    if (first !== undefined && key.length >= 200) properties[name] = sameAs(field, first);
    else properties[name] = field;
    if (first === undefined) seen.set(key, name);
  }
  return { ...node, properties };
}

function sameAs(field: JsonSchema, sibling: string): JsonSchema {
  const note = `${typeof field.description === 'string' ? `${field.description}; ` : ''}same shape as ${sibling}`;
  if (field.type === 'array' && isObject(field.items) && field.items.type === 'object') {
    return { type: 'array', items: { type: 'object', additionalProperties: true }, description: note };
  }
  if (field.type === 'array') return field;
  return { type: field.type, additionalProperties: true, description: note };
}

function withoutNestedNotes(schema: JsonSchema): JsonSchema {
  const { description: _note, required: _required, ...rest } = schema;
  return mapChildren(rest, withoutNestedNotes);
}

function pick(schema: JsonSchema, key: string): JsonSchema {
  return schema[key] === undefined ? {} : { [key]: schema[key] };
}

/** The node with `f` applied to each subschema (properties, items, additionalProperties). */
function mapChildren(node: JsonSchema, f: (child: JsonSchema) => JsonSchema): JsonSchema {
  const out = { ...node };
  if (isObject(out.properties)) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, f(v as JsonSchema)]));
  if (isObject(out.items)) out.items = f(out.items);
  if (isObject(out.additionalProperties)) out.additionalProperties = f(out.additionalProperties);
  return out;
}

function isNull(schema: JsonSchema): boolean {
  return schema.type === 'null' && Object.keys(schema).every((k) => k === 'type' || k === 'description');
}

/** One schema accepting what any branch accepts; object branches become one object with a discriminator enum. */
function unionOf(branches: JsonSchema[]): JsonSchema {
  const nullable = branches.some(isNull);
  const rest = branches.filter((b) => !isNull(b));
  if (rest.length === 0) return { type: 'null' };
  const discriminator = discriminatorOf(rest);
  let merged = rest.reduce(mergeSchemas);
  if (discriminator) merged = withBranchNotes(merged, rest, discriminator);
  return nullable ? withNull(merged) : merged;
}

/** A property every object branch names with a constant (or enum): `kind` of a trigger, `type` of an action. */
function discriminatorOf(branches: JsonSchema[]): string | undefined {
  if (branches.length < 2 || !branches.every((b) => isObject(b.properties))) return undefined;
  const first = branches[0]!.properties as Record<string, JsonSchema>;
  return Object.keys(first).find((name) =>
    branches.every((b) => {
      const p = (b.properties as Record<string, JsonSchema>)[name];
      return p !== undefined && (p.const !== undefined || Array.isArray(p.enum)) && ((b.required as string[] | undefined) ?? []).includes(name);
    }),
  );
}

/** The discriminator enum says what each value means, from the branches' own descriptions. */
function withBranchNotes(merged: JsonSchema, branches: JsonSchema[], name: string): JsonSchema {
  const notes = branches
    .filter((b) => typeof b.description === 'string')
    .map((b) => {
      const p = (b.properties as Record<string, JsonSchema>)[name]!;
      const values = p.const !== undefined ? [p.const] : (p.enum as unknown[]);
      return `${values.join('|')}: ${firstClause(b.description as string)}`;
    });
  const { description: _branchDescription, ...rest } = merged;
  const properties = { ...(rest.properties as Record<string, JsonSchema>) };
  const required = new Set([...((rest.required as string[] | undefined) ?? []), name]);
  if (notes.length > 0) properties[name] = { ...properties[name], description: notes.join('; ') };
  return { ...rest, properties, required: [...required] };
}

function withNull(schema: JsonSchema): JsonSchema {
  const out = { ...schema };
  if (Array.isArray(out.enum)) out.enum = [...new Set([...(out.enum as unknown[]), null])];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  return out;
}

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : []);

const withoutNotes = (s: JsonSchema): string => JSON.stringify({ ...s, description: undefined, default: undefined });

/**
 * One schema accepting what either accepts (as far as a schema without unions can say it): objects
 * merge their fields (required only where both require), enums and constants join, bounds widen,
 * and a constraint only one side has is dropped. The first description wins.
 */
export function mergeSchemas(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (withoutNotes(a) === withoutNotes(b)) return a.default === b.default ? a : dropKey(a, 'default');
  const out: JsonSchema = {};
  const description = a.description ?? b.description;
  if (description !== undefined) out.description = description;
  const types = [...new Set([...typesOf(a), ...typesOf(b)])];
  const typeless = typesOf(a).length === 0 || typesOf(b).length === 0;
  if (!typeless) out.type = types.length === 1 ? types[0] : types;
  const values = (s: JsonSchema) => (s.const !== undefined ? [s.const] : Array.isArray(s.enum) ? (s.enum as unknown[]) : undefined);
  const va = values(a);
  const vb = values(b);
  if (va && vb) out.enum = [...new Set([...va, ...vb])];
  if (a.default !== undefined && a.default === b.default) out.default = a.default;
  for (const [key, pick] of [
    ['minimum', Math.min],
    ['minLength', Math.min],
    ['minItems', Math.min],
    ['maximum', Math.max],
    ['maxLength', Math.max],
    ['maxItems', Math.max],
  ] as const) {
    if (typeof a[key] === 'number' && typeof b[key] === 'number') out[key] = pick(a[key], b[key]);
  }
  for (const key of ['pattern', 'format'] as const) if (a[key] !== undefined && a[key] === b[key]) out[key] = a[key];
  if (isObject(a.items) && isObject(b.items)) out.items = mergeSchemas(a.items, b.items);
  else if (isObject(a.items) || isObject(b.items)) out.items = (a.items ?? b.items) as JsonSchema;
  if (isObject(a.properties) || isObject(b.properties)) {
    const pa = (a.properties ?? {}) as Record<string, JsonSchema>;
    const pb = (b.properties ?? {}) as Record<string, JsonSchema>;
    const properties: Record<string, JsonSchema> = { ...pa };
    for (const [name, schema] of Object.entries(pb)) properties[name] = pa[name] ? mergeSchemas(pa[name], schema) : schema;
    out.properties = properties;
    const rb = new Set((b.required as string[] | undefined) ?? []);
    const required = ((a.required as string[] | undefined) ?? []).filter((n) => rb.has(n));
    if (required.length > 0) out.required = required;
  }
  if (a.additionalProperties === false && b.additionalProperties === false) out.additionalProperties = false;
  else if (isObject(a.additionalProperties) && isObject(b.additionalProperties))
    out.additionalProperties = mergeSchemas(a.additionalProperties, b.additionalProperties);
  else if (a.additionalProperties === true || b.additionalProperties === true) out.additionalProperties = true;
  return out;
}

function dropKey(schema: JsonSchema, key: string): JsonSchema {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}
