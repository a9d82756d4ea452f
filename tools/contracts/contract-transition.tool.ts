import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Hex64, JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import { ContractId, StateName } from './contracts.schemas.js';

export const contractTransitionTool = defineTool({
  name: 'core_contract_transition',
  toolset: 'contracts',
  title: 'Drive a transition',
  description:
    'Drives a contract to a named target state: checks the condition against your input, runs and proves the operators, writes transition and audit rows, and mints a tally token when it can. Check first with core_contract_simulate.',
  actions: [
    defineAction({
      id: 'contracts.runTransition',
      action: 'transition',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/{id}/transition',
      auth: 'bearer',
      evaluatesConditions: 'transition',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Executes the transition to state `to` with the given input scope and returns the new and previous state, proof digest and tick.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        to: StateName.describe('Target state; a transition from the current state to it must exist'),
        input: JsonObject.default({}).describe('Input scope for the condition and operators, e.g. {"mass_kg": 2}'),
      }),
      output: z.object({
        ok: z.literal(true),
        transition_id: z.string(),
        previous_state: StateName,
        new_state: StateName,
        proof_digest: Hex64.nullable().describe('Digest of the operator proof; null when the transition needs none'),
        tick_number: Tick,
        tally: z
          .object({ token_id: z.string(), remaining: z.number().int().min(0) })
          .optional()
          .describe('Present only when a tally token was minted; a failed mint does not fail the transition'),
      }),
      openWorld: true,
      handler: async ({ slug, id, to, input }, { services, caller }) => ({
        ok: true as const,
        ...(await services.contracts.control.transition(slug, id, caller, to, input)),
      }),
    }),
  ],
});
