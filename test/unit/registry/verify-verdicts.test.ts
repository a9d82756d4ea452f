import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../../src/registry/registry.js';
import { allTools } from '../../../tools/index.js';

// Every verify operation answers a well-formed artifact with a verdict of the same shape: `valid` and
// `reason` (null when valid). Errors are kept for input that is not the artifact at all.
const registry = buildRegistry(allTools);
const VERIFIERS = ['proof.verifyReceipt', 'chain.validateChain', 'chain.verifyAnchor', 'contracts.verifyProofChain', 'tally.verifyToken'];

describe('verify operations answer alike', () => {
  it('finds every verify operation of the registry in the list below', () => {
    const found = registry.operations.filter((op) => /\.(verify|validate)[A-Z]/.test(op.id)).map((op) => op.id);
    expect(found.sort()).toEqual([...VERIFIERS].sort());
  });

  it.each(VERIFIERS)('%s answers valid (boolean) and reason (string or null)', (id) => {
    const props = registry.byId.get(id)!.outputSchema.properties as Record<string, { type?: unknown; anyOf?: unknown }>;
    expect(props.valid).toMatchObject({ type: 'boolean' });
    expect(JSON.stringify(props.reason)).toMatch(/"string"/);
    expect(JSON.stringify(props.reason)).toMatch(/"null"/);
  });
});
