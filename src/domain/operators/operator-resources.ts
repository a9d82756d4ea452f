import type { ResourceEntry } from '../platform/mcp-content.js';
import type { OperatorsService } from './operators.service.js';

/**
 * The operator registry as MCP resources: the categories with counts, and one document per category
 * with every operator's formula, inputs and output (a client reads only the categories it needs).
 */
export function operatorResources(operators: OperatorsService): ResourceEntry[] {
  const { categories } = operators.categories();
  return [
    {
      uri: 'core://operators/categories',
      name: 'operator-categories',
      title: 'Operator categories',
      description: `The ${categories.length} categories of the operator registry with their groups and operator counts, and the registry version.`,
      mimeType: 'application/json',
      read: async () => JSON.stringify({ registry_version: operators.registryVersion(), categories: operators.categories().categories }),
    },
    ...categories.map((c) => ({
      uri: `core://operators/${c.category}`,
      name: `operators-${c.category}`,
      title: `Operators: ${c.name}`,
      description: `The ${c.count} operators of ${c.name}: id, name, formula, inputs with units and examples, output unit.`,
      mimeType: 'application/json',
      read: async () => {
        const { operators: list } = operators.list({ category: c.category, limit: 1000 });
        return JSON.stringify(list.map((o) => operators.describe(o.id).operator));
      },
    })),
  ];
}
