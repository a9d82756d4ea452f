import type { z } from 'zod';

/**
 * A large input shape several tools take. `tools/list` spells it out once and points there from
 * everywhere else, so an agent pays for it once; every tool still parses it with the full zod schema,
 * so the server's check and its errors are the same everywhere. Two kinds:
 * - a shape an agent writes (the contract definition) has a home tool whose input spells it out;
 * - a shape the server issued and the agent hands back as it was (a receipt, a token row, an export
 *   envelope) is named by the answer that returns it, and spelled out nowhere in `tools/list`.
 */
export type SharedShape = { name: string; home: string; field: string } | { name: string; returnedBy: string };

/** Marks a shape's JSON Schema while descriptors are generated; never left in a descriptor. */
export const SHAPE_MARK = 'x-core-shape';

// Keyed by the zod definition: `.describe()` and `.optional()` of the schema share it, so every use is found.
const shapes = new WeakMap<object, SharedShape>();

/** Declares `schema` a shared shape; returns it unchanged. */
export function sharedShape<T extends z.ZodType>(schema: T, shape: SharedShape): T {
  shapes.set(schema._zod.def, shape);
  return schema;
}

export function sharedShapeOf(schema: z.ZodType): SharedShape | undefined {
  return shapes.get(schema._zod.def);
}

/** Whether `tool` is where the shape is spelled out. */
export function isHomeOf(shape: SharedShape, tool: string): boolean {
  return 'home' in shape && shape.home === tool;
}

/** The short form shown in place of the shape: an object that takes any member, and where its fields are. */
export function shapePointer(shape: SharedShape, description: unknown): Record<string, unknown> {
  const own = typeof description === 'string' ? description.replace(/\.$/, '') : `The ${shape.name}`;
  const where = 'home' in shape ? `full schema: the "${shape.field}" input of ${shape.home}` : `pass it as ${shape.returnedBy} returned it`;
  return { type: 'object', additionalProperties: true, description: `${own}; ${where}` };
}
