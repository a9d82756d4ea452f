import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { coerce, restInput } from '../../../src/registry/rest-input.js';
import { CoreError } from '../../../src/errors.js';

const registry = buildRegistry(allTools);

describe('REST input assembly', () => {
  it('coerces query strings to the JSON types the schema declares', () => {
    expect(coerce('42', 'integer')).toBe(42);
    expect(coerce('1e3', 'number')).toBe(1000);
    expect(coerce('forty', 'integer')).toBe('forty');
    expect(coerce('true', 'boolean')).toBe(true);
    expect(coerce('0', 'boolean')).toBe(false);
    expect(coerce('a,b', 'array')).toEqual(['a', 'b']);
    expect(coerce('{"a":1}', 'object')).toEqual({ a: 1 });
    expect(coerce('07', 'string')).toBe('07');
  });

  it('merges body, query and path params, path params last', () => {
    const op = registry.byId.get('chain.listActivity')!;
    expect(restInput(op, { slug: 'demo' }, { limit: '5', type: 'event' }, undefined)).toEqual({ slug: 'demo', limit: 5, type: 'event' });
    const write = registry.byId.get('chain.appendEvent')!;
    expect(restInput(write, { slug: 'demo' }, {}, { slug: 'other', type: 'x' })).toEqual({ slug: 'demo', type: 'x' });
  });

  it('refuses a body that is not a JSON object', () => {
    const op = registry.byId.get('chain.appendEvent')!;
    expect(restInput(op, { slug: 'demo' }, {}, [1, 2])).toBeInstanceOf(CoreError);
    expect(restInput(op, { slug: 'demo' }, {}, 'text')).toBeInstanceOf(CoreError);
  });

  it('keeps transport-level query keys out of the input', () => {
    const op = registry.byId.get('chain.listActivity')!;
    expect(restInput(op, { slug: 'demo' }, { share_token: 'abc' }, undefined)).toEqual({ slug: 'demo' });
  });
});
