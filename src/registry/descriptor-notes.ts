import { Cursor, Limit, Slug, Uid } from './common-schemas.js';
import type { JsonSchema } from './json-schema.js';
import { isObject } from '../lib/is-object.js';

/**
 * Notes a tool descriptor leaves out because they tell an agent nothing its name, type and the server
 * instructions do not: every agent session pays for each one. `core_api_catalog` and OpenAPI keep them.
 */

/** Descriptions of the shared fields, which the server instructions explain once (a `uid` names an identity). */
const SHARED_NOTES = new Set([Slug.description, Limit.description, Cursor.description, Uid.description]);

const FILLER = new Set(['a', 'an', 'the', 'of', 'to', 'for', 'in', 'on', 'by']);

const wordsOf = (text: string): string[] =>
  text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !FILLER.has(w));

/**
 * Whether a description is only a label of its field: at most one word beside the field's own name,
 * ending in a word of the name ("Contract id" for `id`, "Agent uid" for `uid`, "Rule id" for `rule_id`).
 */
export function isLabelOf(field: string, description: string): boolean {
  const name = new Set(wordsOf(field));
  const words = wordsOf(description);
  if (words.length === 0) return true;
  return name.has(words[words.length - 1]!) && words.filter((w) => !name.has(w)).length <= 1;
}

/** A default that says no more than leaving the field out: an off flag, an empty object. */
function isIdleDefault(field: JsonSchema): boolean {
  const value = field.default;
  return value === false || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
}

/** The schema without shared-field notes, label-only descriptions and idle defaults, at every depth. */
export function withoutIdleNotes(schema: JsonSchema, top = true): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (isObject(out.properties)) {
    const kept = Object.entries(out.properties as Record<string, JsonSchema>).map(([name, field]) => {
      const { description, default: _idle, ...rest } = withoutIdleNotes(field, false);
      const note = typeof description === 'string' && !(top && SHARED_NOTES.has(description)) && !isLabelOf(name, description) ? { description } : {};
      const value = field.default === undefined || isIdleDefault(field) ? {} : { default: field.default };
      return [name, { ...value, ...rest, ...note }];
    });
    out.properties = Object.fromEntries(kept);
  }
  if (isObject(out.items)) out.items = withoutIdleNotes(out.items, false);
  if (isObject(out.additionalProperties)) out.additionalProperties = withoutIdleNotes(out.additionalProperties, false);
  return out;
}
