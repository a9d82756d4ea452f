import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit } from '../../src/registry/common-schemas.js';
import type { PhysicalConstant } from '../../src/domain/constants/constants.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Constant = wireShape<PhysicalConstant>()(
  z.object({
    key: z.string().describe('Stable key, snake_case'),
    name: z.string().describe('Name as CODATA writes it'),
    symbol: z.string().nullable(),
    value: z.number(),
    uncertainty: z.number().describe('Standard uncertainty, in the same unit; 0 when exact'),
    relative_uncertainty: z.number(),
    unit: z.string().describe('SI unit, empty for dimensionless'),
    exact: z.boolean(),
    aliases: z.array(z.string()),
  }),
);

export const constantsTool = defineTool({
  name: 'core_constants',
  toolset: 'platform',
  title: 'Physical constants',
  description:
    'CODATA 2018 physical constants. With SI units and standard uncertainties. List or search them, or read one by key or alias (for example "c", "h", "G", "electron_mass").',
  actions: [
    defineAction({
      id: 'constants.list',
      action: 'list',
      method: 'GET',
      path: '/api/constants',
      auth: 'public',
      area: 'platform',
      summary: 'Lists the CODATA 2018 physical constants; optionally filtered by text, with units and uncertainties.',
      input: z.object({
        q: z.string().max(200).optional().describe('Search text. Matched in any case against key, name, symbol and alias'),
        limit: Limit.optional(),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        source: z.string(),
        total: z.number().int(),
        constants: z.array(Constant),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async (input, { services }) => services.constants.list(input),
    }),
    defineAction({
      id: 'constants.get',
      action: 'get',
      method: 'GET',
      path: '/api/constants/{key}',
      auth: 'public',
      area: 'platform',
      summary: 'Reads one constant by key, symbol or alias; with value, unit and standard uncertainty.',
      input: z.object({ key: z.string().min(1).max(200).describe('Key, symbol or alias, e.g. "c"') }),
      output: z.object({ ok: z.literal(true), source: z.string(), constant: Constant }),
      idempotent: true,
      handler: async ({ key }, { services }) => services.constants.get(key),
    }),
  ],
});
