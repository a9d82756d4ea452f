import type { JsonSchema } from './json-schema.js';
import { isObject } from '../lib/is-object.js';

/**
 * The last step of a tool descriptor's input schema: no `type` list and no schema without a
 * validation keyword, the two forms the MCP Inspector CLI reports as unportable (some clients read only
 * a string `type`, and a bare `{}` gives a form or a converter nothing to go on). A value of several
 * types becomes `anyOf` with one single-typed branch per type, each keeping the keywords of its type
 * (`items` with the array, `properties` with the object, `format` with the string); the description and
 * default stay on the field. A nullable enum needs no type: the enum lists `null`. A value of any type
 * says so with one branch per JSON type. These are the only `anyOf`s a descriptor has: unions of objects
 * are flattened before (`portable-schema.ts`), since LangChain merges object branches and Gemini drops them;
 * a scalar branch list costs those clients nothing (LangChain keeps the object branch, Gemini the field).
 */
export function withTypedBranches(schema: JsonSchema): JsonSchema {
  const node: JsonSchema = { ...schema };
  if (isObject(node.properties)) {
    node.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, withTypedBranches(v as JsonSchema)]));
  }
  if (isObject(node.items)) node.items = withTypedBranches(node.items);
  if (isObject(node.additionalProperties)) node.additionalProperties = withTypedBranches(node.additionalProperties);
  if (Array.isArray(node.type)) {
    if (Array.isArray(node.enum)) {
      delete node.type;
      return node;
    }
    return branched(node, node.type as string[]);
  }
  if (!VALIDATION_KEYWORDS.some((k) => k in node)) return { ...node, anyOf: ANY_VALUE.map((b) => ({ ...b })) };
  return node;
}

/** What makes a schema say something about the value (JSON Schema's assertions and applicators). */
export const VALIDATION_KEYWORDS = ['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', '$ref', 'properties', 'items'] as const;

/** Any JSON value, one branch per type. */
const ANY_VALUE: readonly JsonSchema[] = [
  { type: 'object', additionalProperties: true },
  { type: 'array' },
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'null' },
];

/** Keywords that belong to one type's branch. */
const KEYWORDS_OF: Record<string, readonly string[]> = {
  object: ['properties', 'required', 'additionalProperties'],
  array: ['items', 'minItems', 'maxItems'],
  string: ['format', 'pattern', 'minLength', 'maxLength'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
};

function branched(node: JsonSchema, types: string[]): JsonSchema {
  const top: JsonSchema = {};
  const moved = new Set<string>(types.flatMap((t) => KEYWORDS_OF[t] ?? []));
  for (const [key, value] of Object.entries(node)) if (key !== 'type' && !moved.has(key)) top[key] = value;
  top.anyOf = types.map((type) => {
    const branch: JsonSchema = { type };
    for (const key of KEYWORDS_OF[type] ?? []) if (node[key] !== undefined) branch[key] = node[key];
    return branch;
  });
  return top;
}
