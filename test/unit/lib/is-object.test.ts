import { describe, expect, it } from 'vitest';
import { isObject } from '../../../src/lib/is-object.js';

describe('isObject', () => {
  it('holds for objects only: not null, arrays or other values', () => {
    expect([{}, { a: 1 }, Object.create(null)].every((v) => isObject(v))).toBe(true);
    expect([null, undefined, [], [1], 'x', 1, true].some((v) => isObject(v))).toBe(false);
  });
});
