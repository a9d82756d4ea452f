import { z } from 'zod';
import { defineAction, defineTool, SOLVERS_TAG } from '../../src/registry/types.js';
import { Solver, SolverId, SolverSummary } from './compute.schemas.js';

export const solversTool = defineTool({
  name: 'core_solvers',
  toolset: 'compute',
  title: 'Solver catalogue',
  description:
    'Catalogue of the 32 sealed numerical solvers (ODEs, root finding, quadrature, linear algebra, PDEs, orbital mechanics, quantum, fluids and more). Use `list` to find a solver by domain or text, then `get` to read its inputs with units and bounds and an example before calling core_solve.',
  actions: [
    defineAction({
      id: 'solver.list',
      action: 'list',
      method: 'GET',
      path: '/api/solvers',
      tags: [SOLVERS_TAG],
      auth: 'public',
      area: 'compute',
      summary: 'Lists the sealed solvers: domain, numerical method, operator chain, unit and version, optionally filtered.',
      input: z.object({
        domain: z.string().max(64).optional().describe('Only solvers of this domain, e.g. "ode"'),
        q: z.string().max(200).optional().describe('Search text. Matched in any case against id, name, method and domain'),
      }),
      output: z.object({
        ok: z.literal(true),
        total: z.number().int().min(0),
        solvers: z.array(SolverSummary),
      }),
      idempotent: true,
      handler: async (input, { services }) => services.solvers.list(input),
    }),
    defineAction({
      id: 'solver.get',
      action: 'get',
      method: 'GET',
      path: '/api/solvers/{id}',
      tags: [SOLVERS_TAG],
      auth: 'public',
      area: 'compute',
      summary: 'Reads one solver: its method, operator chain, inputs with units and bounds, options and an example input.',
      input: z.object({ id: SolverId }),
      output: z.object({ ok: z.literal(true), solver: Solver }),
      idempotent: true,
      handler: async (input, { services }) => services.solvers.get(input.id),
    }),
  ],
});
