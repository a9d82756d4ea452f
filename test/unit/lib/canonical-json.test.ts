import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/lib/canonical-json.js';
import { digestOf } from '../../../src/lib/hash.js';

describe('canonical JSON', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('gives the same digest whatever the key order', () => {
    expect(digestOf({ x: 1, y: 'two' })).toBe(digestOf({ y: 'two', x: 1 }));
    expect(digestOf({ x: 1 })).not.toBe(digestOf({ x: 2 }));
  });

  it('escapes strings as JSON does and keeps array order', () => {
    expect(canonicalJson(['b', 'a', 'é\n"'])).toBe('["b","a","é\\n\\""]');
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
  });
});
