import { z } from 'zod';
import { SHAPE_MARK, sharedShapeOf } from './shared-shapes.js';

export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema of a zod schema, from zod 4's own converter. `io: 'input'` describes what a caller
 * may send (defaults optional); `io: 'output'` what the server returns.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', opts: { markSharedShapes?: boolean } = {}): JsonSchema {
  const out = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    ...(opts.markSharedShapes ? { override: markShape } : {}),
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** Tags the JSON Schema of a shared shape with its name, for the tool descriptors (see `shared-shapes.ts`). */
function markShape(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const shape = sharedShapeOf(ctx.zodSchema as z.ZodType);
  if (shape) ctx.jsonSchema[SHAPE_MARK] = shape;
}

/** The JSON type a top-level property of an object schema expects, for query-string coercion. */
export function propertyTypes(schema: JsonSchema): Record<string, string> {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const types: Record<string, string> = {};
  for (const [name, prop] of Object.entries(props)) types[name] = primaryType(prop);
  return types;
}

function primaryType(prop: JsonSchema): string {
  if (typeof prop.type === 'string') return prop.type;
  if (Array.isArray(prop.type)) return (prop.type.find((t) => t !== 'null') as string | undefined) ?? 'string';
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = prop[key];
    if (Array.isArray(list)) {
      for (const item of list as JsonSchema[]) {
        const t = primaryType(item);
        if (t !== 'null' && t !== 'unknown') return t;
      }
    }
  }
  if (prop.const !== undefined) return typeof prop.const;
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return typeof prop.enum[0];
  return 'unknown';
}
