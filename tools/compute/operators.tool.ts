import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit } from '../../src/registry/common-schemas.js';
import { Operator, OperatorId, OperatorSummary } from './compute.schemas.js';

export const operatorsTool = defineTool({
  name: 'core_operators',
  toolset: 'compute',
  title: 'Operator registry',
  description:
    "The 1,597 operators core_compute evaluates. They cover physics and applied science. Use `list` to search by text or category (paginated), `categories` for the category keys with counts, and `get` for one operator's formula, inputs and output with units.",
  actions: [
    defineAction({
      id: 'operator.list',
      action: 'list',
      method: 'GET',
      path: '/api/operators',
      auth: 'public',
      area: 'compute',
      summary: 'Searches operators by text, id and category; returns id, name, category, formula and tier, one page at a time.',
      input: z.object({
        q: z.string().max(200).optional().describe('Search text. Matched in any case against id, name, formula and description'),
        category: z.string().max(64).optional().describe('Category key, from `categories`'),
        id: z.string().max(1000).optional().describe('Exact operator ids, comma-separated, any case (e.g. "NM19,KO42"); returns those that exist'),
        limit: Limit.default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        total: z.number().int().min(0).describe('Number of operators matching the filters'),
        operators: z.array(OperatorSummary),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async (input, ctx) => ctx.services.operators.list(input),
    }),
    defineAction({
      id: 'operator.listCategories',
      action: 'categories',
      method: 'GET',
      path: '/api/operators/categories',
      auth: 'public',
      area: 'compute',
      summary: 'Lists the operator categories with counts.',
      input: z.object({}),
      output: z.object({
        ok: z.literal(true),
        total: z.number().int().min(0).describe('Number of operators in the registry'),
        categories: z.array(
          z.object({
            category: z.string().describe('Category key, snake_case'),
            name: z.string().describe('Display name'),
            group: z.string().describe('Meta-group of the category, e.g. "core_physics" or "industry"'),
            count: z.number().int().min(0),
          }),
        ),
      }),
      idempotent: true,
      handler: async (_input, ctx) => ctx.services.operators.categories(),
    }),
    defineAction({
      id: 'operator.get',
      action: 'get',
      method: 'GET',
      path: '/api/operators/{id}',
      auth: 'public',
      area: 'compute',
      summary: 'Reads one operator: formula, machine-evaluable expression, inputs and output with units, tier and an example.',
      input: z.object({ id: OperatorId }),
      output: z.object({ ok: z.literal(true), operator: Operator }),
      idempotent: true,
      handler: async ({ id }, ctx) => ctx.services.operators.describe(id),
    }),
  ],
});
