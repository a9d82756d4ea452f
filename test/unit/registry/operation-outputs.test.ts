import { describe, expect, expectTypeOf, it } from 'vitest';
import type { OutputOf, TypedOperationId } from '../../helpers/operation-outputs.js';
import { allTools } from '../../../tools/index.js';

// Checked by the type checker (`npm run typecheck`, run by CI): callOp's answers have each operation's own output type.
describe('the answer types callOp gives', () => {
  it("are each operation's output type, read off its declaration", () => {
    expectTypeOf<OutputOf<'chain.createMachine'>>().toHaveProperty('api_key').toEqualTypeOf<string>();
    expectTypeOf<OutputOf<'chain.getState'>>().toHaveProperty('row_count').toEqualTypeOf<number>();
    expectTypeOf<OutputOf<'identity.mintDemoKey'>['ok']>().toEqualTypeOf<true>();
    expectTypeOf<OutputOf<'contracts.pauseContract'>>().toHaveProperty('ok');
    expectTypeOf<OutputOf<'no.suchOperation'>>().toBeUnknown();
  });

  it('cover every operation: each action declares its id as a literal', () => {
    const ids = allTools.flatMap((tool) => tool.actions.map((action) => action.id));
    expect(ids.length).toBeGreaterThan(190);
    // An id typed `string` would make `TypedOperationId` the whole of `string`.
    expectTypeOf<string>().not.toExtend<TypedOperationId>();
  });
});
