import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../../src/domain/agents/merge-patch.js';
import { normalizeFilePath, normalizePrefix } from '../../../src/domain/agents/file-path.js';
import { normalizePlan, parsePlanId } from '../../../src/domain/agents/plan-records.js';
import { parseFrontMatter } from '../../../src/domain/agents/skill-catalogue.js';

describe('JSON merge patch (RFC 7386)', () => {
  it('follows the examples of the RFC', () => {
    const cases: Array<[unknown, unknown, unknown]> = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases) expect(mergePatch(target, patch)).toEqual(result);
  });

  it('keeps a member named __proto__ as data and leaves its inputs unchanged', () => {
    const target = { a: { b: 1 } };
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": {"c": 2}}');
    const result = mergePatch(target, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"a":{"b":1,"c":2},"__proto__":{"polluted":true}}');
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('file paths', () => {
  it('normalises separators, dot segments and Unicode', () => {
    expect(normalizeFilePath('notes//a/./b.md')).toBe('notes/a/b.md');
    expect(normalizeFilePath('./x')).toBe('x');
    expect(normalizeFilePath('caf\u0065\u0301.txt')).toBe('caf\u00e9.txt');
    expect(normalizePrefix('notes/')).toBe('notes/');
    expect(normalizePrefix(undefined)).toBe('');
  });

  it('refuses traversal, absolute paths, folders and control characters', () => {
    for (const bad of ['..', '../a', 'a/../b', 'a/..', '/abs', 'a\\b', 'a\u0000b', 'a\nb', 'a\u0085b', 'dir/', '.', './', '//']) {
      expect(() => normalizeFilePath(bad), JSON.stringify(bad)).toThrow(/Invalid path/);
    }
    expect(() => normalizePrefix('../')).toThrow(/Invalid path/);
  });
});

describe('plans', () => {
  it('numbers steps without ids and parses plan ids of one machine only', () => {
    expect(normalizePlan({ title: 't', goal: 'g', steps: [{ action: 'a' }, { id: 'x', action: 'b' }] }).steps.map((s) => s.id)).toEqual(['s1', 'x']);
    expect(parsePlanId('lab', 'lab@v12')).toBe(12);
    expect(parsePlanId('lab', 'lab@draft')).toBe('draft');
    expect(parsePlanId('lab', 'other@v1')).toBeUndefined();
    expect(parsePlanId('lab', 'lab@v0')).toBeUndefined();
  });
});

describe('skill front matter', () => {
  it('reads name and description and refuses a file without them', () => {
    expect(parseFrontMatter('---\nname: a-b\ndescription: "Does x"\n---\nbody', 'a-b.md')).toEqual({ name: 'a-b', description: 'Does x' });
    expect(() => parseFrontMatter('# no front matter', 'x.md')).toThrow(/front matter/);
    expect(() => parseFrontMatter('---\nname: x\n---\n', 'x.md')).toThrow(/description/);
  });
});
