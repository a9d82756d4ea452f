import { describe, expect, it } from 'vitest';
import { isLabelOf, withoutIdleNotes } from '../../../src/registry/descriptor-notes.js';

describe('isLabelOf', () => {
  it('recognises a description that only names its field', () => {
    expect(isLabelOf('id', 'Contract id')).toBe(true);
    expect(isLabelOf('uid', 'Agent uid')).toBe(true);
    expect(isLabelOf('rule_id', 'Rule id')).toBe(true);
    expect(isLabelOf('planId', 'Plan id')).toBe(true);
    expect(isLabelOf('window_ticks', 'Window length in ticks')).toBe(true);
    expect(isLabelOf('name', '')).toBe(true);
  });

  it('keeps a description that says more than the name', () => {
    expect(isLabelOf('to', 'Target state')).toBe(false);
    expect(isLabelOf('event', 'Event name, e.g. "reading"')).toBe(false);
    expect(isLabelOf('id', 'Community operator proposal id')).toBe(false);
    expect(isLabelOf('tick', 'Tick to read')).toBe(false);
    expect(isLabelOf('token_id', 'Id of a stored token; give this or `token`')).toBe(false);
  });
});

describe('withoutIdleNotes', () => {
  it('drops label-only notes, shared-field notes and off or empty defaults at every depth, and keeps the rest', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'Contract id' },
        slug: { type: 'string', description: 'Machine slug' },
        limit: { type: 'integer', default: 50, description: 'Page size' },
        dry: { type: 'boolean', default: false, description: 'Only report what would change' },
        input: { type: 'object', default: {}, additionalProperties: true },
        scope: { type: 'string', enum: ['read', 'write'], default: 'read' },
        definition: {
          type: 'object',
          properties: { to: { type: 'string', description: 'Target state' }, name: { type: 'string', description: 'Definition name' } },
        },
      },
    };
    expect(withoutIdleNotes(schema)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        slug: { type: 'string' },
        limit: { type: 'integer', default: 50 },
        dry: { type: 'boolean', description: 'Only report what would change' },
        input: { type: 'object', additionalProperties: true },
        scope: { type: 'string', enum: ['read', 'write'], default: 'read' },
        definition: { type: 'object', properties: { to: { type: 'string', description: 'Target state' }, name: { type: 'string' } } },
      },
    });
  });
});
