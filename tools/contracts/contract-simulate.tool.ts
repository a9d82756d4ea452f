import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import { ContractDefinition, ContractId, DryRunResult, StateName } from './contracts.schemas.js';
import type { Report as PlanningReport } from '../../src/domain/contracts/contract-planning.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Report = wireShape<{ ok: true } & PlanningReport>()(
  z.object({
    ok: z.literal(true),
    current_state: StateName.describe('State the evaluation started from'),
    would_fire: z.boolean().describe('True when at least one candidate would fire'),
    results: z.array(DryRunResult).describe('One entry per candidate transition'),
  }),
);

export const contractSimulateTool = defineTool({
  name: 'core_contract_simulate',
  toolset: 'contracts',
  title: 'Simulate transitions',
  description:
    'Answers "would this fire?" without side effects: no audit row, no fire, no watermark, no compute, no charge. Dry-run a deployed contract, or simulate an inline definition (or a stored contract) from a chosen state with a given input.',
  actions: [
    defineAction({
      id: 'contracts.dryRunContract',
      action: 'dry_run',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/{id}/dry-run',
      auth: 'bearer',
      evaluatesConditions: 'simulation',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Reports which transitions would fire for an input; each fires, is filtered or passes; writes and computes nothing.',
      input: z.object({
        slug: Slug,
        id: ContractId,
        to: StateName.optional().describe('Only evaluate transitions to this state'),
        input: JsonObject.default({}).describe('Input scope for the conditions'),
        at_tick: Tick.optional().describe('Clock tick to evaluate triggers at; now by default'),
      }),
      output: Report,
      idempotent: true,
      handler: async ({ slug, id, ...opts }, { services }) => ({ ok: true as const, ...(await services.contracts.planning.dryRun(slug, id, opts)) }),
    }),
    defineAction({
      id: 'contracts.simulateTransition',
      action: 'simulate',
      method: 'POST',
      path: '/api/contracts/simulate',
      auth: 'bearer',
      evaluatesConditions: 'simulation',
      area: 'contracts',
      summary: 'Reports what a definition or stored contract would fire; from a state with an input; a stored one is named by slug and contract_id.',
      input: z.object({
        definition: ContractDefinition.optional().describe('Definition to evaluate; give this or slug and contract_id'),
        slug: Slug.optional().describe('Machine of a stored contract to evaluate (membership required)'),
        contract_id: ContractId.optional().describe('Stored contract to evaluate, with slug'),
        from: StateName.optional().describe('State to start from; the initial (or current) state by default'),
        to: StateName.optional().describe('Only evaluate transitions to this state'),
        input: JsonObject.default({}).describe('Input scope for the conditions'),
      }),
      output: Report,
      idempotent: true,
      handler: async (opts, { services, caller }) => ({ ok: true as const, ...(await services.contracts.planning.simulate(caller, opts)) }),
    }),
  ],
});
