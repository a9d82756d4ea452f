import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sampleInput } from '../../../src/application/sample-input.js';
import { createRateWindow } from '../../../src/domain/general/rate-window.js';

describe('self-check sample inputs', () => {
  it('builds an input that passes a typical operation schema, with the overrides applied', () => {
    const schema = z.object({
      slug: z.string().regex(/^[a-z0-9-]+$/),
      email: z.email(),
      kind: z.enum(['a', 'b']),
      count: z.number().int().min(3),
      tags: z.array(z.string().min(2)).min(1),
      code: z.string().regex(/^[0-9a-f]{64}$/),
      note: z.string().optional(),
      nested: z.object({ on: z.boolean() }),
    });
    const input = sampleInput(z.toJSONSchema(schema, { io: 'input' }) as never, { slug: 'self-check' });
    expect(schema.safeParse(input).success).toBe(true);
    expect(input.slug).toBe('self-check');
    expect(input).not.toHaveProperty('note');
  });
});

describe('rate window', () => {
  it('allows the limit within the window and again once the oldest hit has left it', () => {
    const w = createRateWindow({ limit: 2, windowMs: 1000 });
    expect(w.hit('a', 0)).toBe(true);
    expect(w.hit('a', 100)).toBe(true);
    expect(w.hit('a', 200)).toBe(false);
    expect(w.retryAfterMs('a', 200)).toBe(800);
    expect(w.hit('b', 200)).toBe(true);
    expect(w.hit('a', 1001)).toBe(true);
  });
});
