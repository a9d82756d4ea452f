import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { wireShape, type Same } from '../../../src/registry/wire-shape.js';

interface Row {
  id: string;
  digest: string | null;
  tags: string[];
  nested: { at: number; note?: string };
  mark?: true;
}

const same = <T extends true>(): T | undefined => undefined;

describe('wireShape', () => {
  it('accepts a schema that parses to exactly the domain type, and returns it unchanged', () => {
    const schema = z.object({
      id: z.string().min(1),
      digest: z.string().nullable(),
      tags: z.array(z.string()),
      nested: z.object({ at: z.number().int(), note: z.string().optional() }),
      mark: z.literal(true).optional(),
    });
    expect(wireShape<Row>()(schema)).toBe(schema);
    expect(wireShape<'a' | 'b'>()(z.enum(['a', 'b']))).toBeDefined();
  });

  it('refuses a schema that differs in any direction', () => {
    const base = {
      id: z.string(),
      tags: z.array(z.string()),
      nested: z.object({ at: z.number(), note: z.string().optional() }),
      mark: z.literal(true).optional(),
    };
    // @ts-expect-error nullable in the domain, not on the wire
    wireShape<Row>()(z.object({ ...base, digest: z.string() }));
    // @ts-expect-error nullable on the wire, not in the domain
    wireShape<Omit<Row, 'digest'> & { digest: string }>()(z.object({ ...base, digest: z.string().nullable() }));
    // @ts-expect-error a member the domain does not have
    wireShape<Row>()(z.object({ ...base, digest: z.string().nullable(), extra: z.string().optional() }));
    // @ts-expect-error an optional member missing from the schema
    wireShape<Row>()(
      z.object({ id: z.string(), digest: z.string().nullable(), tags: z.array(z.string()), nested: z.object({ at: z.number(), note: z.string().optional() }) }),
    );
    // @ts-expect-error a nested member that is optional on one side only
    wireShape<Row>()(z.object({ ...base, digest: z.string().nullable(), nested: z.object({ at: z.number(), note: z.string() }) }));
    // @ts-expect-error an enum with a value the domain does not name
    wireShape<'a' | 'b'>()(z.enum(['a', 'b', 'c']));
    // @ts-expect-error unknown against a precise type
    wireShape<{ value: string }>()(z.object({ value: z.unknown() }));
    expect(true).toBe(true);
  });

  it('treats an interface and the same members written as an intersection as one shape', () => {
    same<Same<{ a: string } & { b?: number[] }, { a: string; b?: number[] }>>();
    // @ts-expect-error arrays of different items
    same<Same<{ a: string[] }, { a: number[] }>>();
    expect(true).toBe(true);
  });
});
