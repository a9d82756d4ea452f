import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { toJsonSchema, type JsonSchema } from '../../../src/registry/json-schema.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { operationOutputs } from '../../helpers/operation-outputs.js';

const registry = buildRegistry(allTools);

/** The schema without its descriptions: the copies type answers, they do not document them. */
function shapeOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shapeOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema as JsonSchema)
      .filter(([key]) => key !== 'description')
      .map(([key, value]) => [key, shapeOf(value)]),
  );
}

describe("the test helpers' copies of output schemas", () => {
  it.each(Object.keys(operationOutputs) as (keyof typeof operationOutputs)[])('%s has the output shape the registry declares', (id) => {
    const op = registry.byId.get(id);
    expect(op, `no operation ${id}`).toBeDefined();
    expect(shapeOf(toJsonSchema(operationOutputs[id], 'output'))).toEqual(shapeOf(op!.outputSchema));
  });
});
