import type { z } from 'zod';
import { errors, type CoreError } from '../errors.js';
import type { JsonSchema } from '../registry/json-schema.js';
import type { Operation } from '../registry/registry.js';
import { suggestField, type KnownField } from '../lib/did-you-mean.js';

/** One refused field as `details.issues` lists it; `did_you_mean` when an unknown key is close to a known one. */
export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
  did_you_mean?: string;
}

/**
 * VALIDATION_FAILED for an input the operation's schema refused, the same on every surface. Each
 * unrecognized key is its own issue and names the known field it most likely meant (`did-you-mean.ts`),
 * found in the operation's JSON Schema at that key's place, so nested objects get it too.
 * `name` is how the operation is named to the caller (the surface decides).
 */
export function validationError(op: Operation, error: z.ZodError, input: unknown, name: string): CoreError {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') issues.push(...unknownKeyIssues(op.inputSchema, issue.path, issue.keys, input));
    else issues.push({ path: pathText(issue.path), message: issue.message, code: issue.code });
  }
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  const where = first.code === 'unrecognized_keys' && !first.path.includes('.') ? '' : `${first.path}: `;
  return errors.validation(`Invalid input for ${name}: ${where}${first.message}${more}`, { issues });
}

const pathText = (path: readonly PropertyKey[]): string => path.map(String).join('.') || '(input)';

function unknownKeyIssues(schema: JsonSchema, at: readonly PropertyKey[], keys: readonly string[], input: unknown): ValidationIssue[] {
  const object = valueAt(input, at);
  const given = new Set(object ? Object.keys(object) : []);
  const fields = fieldsAt(schema, at);
  return keys.map((key) => {
    const meant = suggestField(key, object?.[key], fields, given, keys.length === 1);
    const message = meant === undefined ? `Unrecognized key "${key}"` : `Unrecognized key "${key}"; did you mean "${meant}"?`;
    const issue: ValidationIssue = { path: pathText([...at, key]), message, code: 'unrecognized_keys' };
    if (meant !== undefined) issue.did_you_mean = meant;
    return issue;
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): Record<string, unknown> | undefined {
  let here = input;
  for (const step of path) here = typeof here === 'object' && here !== null ? (here as Record<PropertyKey, unknown>)[step] : undefined;
  return typeof here === 'object' && here !== null && !Array.isArray(here) ? (here as Record<string, unknown>) : undefined;
}

/** The object schema at `path` (through properties, array items and unions) and the fields it declares. */
function fieldsAt(schema: JsonSchema, path: readonly PropertyKey[]): KnownField[] {
  let here: JsonSchema | undefined = schema;
  for (const step of path) {
    if (!here) return [];
    here = typeof step === 'number' ? (here.items as JsonSchema | undefined) : objectBranch(here)?.[String(step)];
  }
  const props = here ? objectBranch(here) : undefined;
  return props ? Object.entries(props).map(([name, prop]) => ({ name, types: typesOf(prop) })) : [];
}

function objectBranch(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  if (schema.properties) return schema.properties as Record<string, JsonSchema>;
  for (const branch of (schema.anyOf ?? schema.oneOf ?? []) as JsonSchema[]) {
    const props = objectBranch(branch);
    if (props) return props;
  }
  return undefined;
}

/** The JSON types a field's schema accepts; undefined when it accepts any value. */
function typesOf(prop: JsonSchema): string[] | undefined {
  if (typeof prop.type === 'string') return [prop.type];
  if (Array.isArray(prop.type)) return prop.type as string[];
  if (prop.const !== undefined) return [literalType(prop.const)];
  if (Array.isArray(prop.enum)) return [...new Set(prop.enum.map(literalType))];
  const branches = (prop.anyOf ?? prop.oneOf) as JsonSchema[] | undefined;
  if (!branches) return undefined;
  const types: string[] = [];
  for (const branch of branches) {
    const t = typesOf(branch);
    if (t === undefined) return undefined;
    types.push(...t);
  }
  return types;
}

const literalType = (value: unknown): string => (value === null ? 'null' : typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value);
