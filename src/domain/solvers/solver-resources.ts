import type { ResourceEntry } from '../platform/mcp-content.js';
import type { SolversService } from './solvers.service.js';

/** The solver catalogue as an MCP resource: every solver with its inputs, units, bounds and example. */
export function solverResources(solvers: SolversService): ResourceEntry[] {
  return [
    {
      uri: 'core://solvers/catalog',
      name: 'solvers',
      title: 'Solver catalogue',
      description: 'The 32 sealed solvers: domain, method, operator chain, unit, version, inputs with units and bounds, options and a working example.',
      mimeType: 'application/json',
      read: async () => JSON.stringify(solvers.list().solvers.map((s) => solvers.get(s.id).solver)),
    },
  ];
}
