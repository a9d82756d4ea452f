import { describe, expect, it } from 'vitest';
import { editDistance, nearestName, suggestField, type KnownField } from '../../../src/lib/did-you-mean.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and an adjacent swap as one edit each', () => {
    expect(editDistance('count', 'count')).toBe(0);
    expect(editDistance('cont', 'count')).toBe(1);
    expect(editDistance('counts', 'count')).toBe(1);
    expect(editDistance('covnt', 'count')).toBe(1);
    expect(editDistance('cuont', 'count')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('nearestName', () => {
  const keys = ['slug', 'type', 'payload', 'max_events', 'description'];

  it('finds the name that differs only by case or separators', () => {
    expect(nearestName('maxEvents', keys)).toBe('max_events');
    expect(nearestName('MAX-EVENTS', keys)).toBe('max_events');
  });

  it('finds a typo within one edit per three letters', () => {
    expect(nearestName('typ', keys)).toBe('type');
    expect(nearestName('paylod', keys)).toBe('payload');
    expect(nearestName('slgu', keys)).toBe('slug');
  });

  it('finds the one name a short word begins', () => {
    expect(nearestName('desc', keys)).toBe('description');
  });

  it('gives nothing for a far name, a tie or a two-letter prefix', () => {
    expect(nearestName('colour', keys)).toBeUndefined();
    expect(nearestName('ab', ['ac', 'ad'])).toBeUndefined();
    expect(nearestName('ma', keys)).toBeUndefined();
    expect(nearestName('x', [])).toBeUndefined();
  });

  it('suggests the nearest action of a multi-action tool', () => {
    expect(nearestName('apend_event', ['append_event', 'append_batch', 'set_state'])).toBe('append_event');
  });
});

describe('suggestField', () => {
  const predict: KnownField[] = [
    { name: 'slug', types: ['string'] },
    { name: 'id', types: ['string'] },
    { name: 'count', types: ['integer'] },
  ];

  it('points {n: 5} at count: the one field left out whose type takes the value', () => {
    expect(suggestField('n', 5, predict, new Set(['slug', 'id', 'n']))).toBe('count');
    // With id left out too, only count takes a number.
    expect(suggestField('n', 5, predict, new Set(['slug', 'n']))).toBe('count');
  });

  it('never suggests a field the caller already gave', () => {
    expect(suggestField('cuont', 5, predict, new Set(['slug', 'id', 'count', 'cuont']))).toBeUndefined();
  });

  it('prefers the name over the type, and gives nothing when two fields take the value', () => {
    const fields: KnownField[] = [
      { name: 'limit', types: ['integer'] },
      { name: 'offset', types: ['integer'] },
      { name: 'q', types: ['string'] },
    ];
    expect(suggestField('limt', 'ten', fields, new Set(['limt']))).toBe('limit');
    expect(suggestField('n', 5, fields, new Set(['n']))).toBeUndefined();
    expect(suggestField('n', 'text', fields, new Set(['n']))).toBe('q');
  });

  it('does not count a field that takes any value as a type match', () => {
    expect(suggestField('blob', 5, [{ name: 'payload', types: undefined }], new Set(['blob']))).toBeUndefined();
  });
});

describe('suggestField with query-string values', () => {
  it('reads text that looks like a number as one, as REST query values arrive', () => {
    const fields: KnownField[] = [
      { name: 'slug', types: ['string'] },
      { name: 'count', types: ['integer'] },
    ];
    expect(suggestField('n', '5', fields, new Set(['n']))).toBeUndefined();
    expect(suggestField('n', '5', fields, new Set(['n', 'slug']))).toBe('count');
  });
});

describe('suggestField with several unknown keys', () => {
  it('goes by name only, since any of them might be the one meant', () => {
    const fields: KnownField[] = [{ name: 'hash', types: ['string'] }];
    expect(suggestField('colour', 'red', fields, new Set(['colour']))).toBe('hash');
    expect(suggestField('colour', 'red', fields, new Set(['colour']), false)).toBeUndefined();
    expect(suggestField('hsah', 'red', fields, new Set(['hsah']), false)).toBe('hash');
  });
});
