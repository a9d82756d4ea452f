import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, JsonObject, Limit } from '../../src/registry/common-schemas.js';
import { ContractDefinition, EventName, TemplateId, asOutput } from './contracts.schemas.js';
import type { TemplateSummary as TemplateSummaryView } from '../../src/domain/templates/template-catalogue.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const CategoryId = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a category id is kebab-case')
  .max(64)
  .describe('Category id, e.g. "mechanics"');

const TemplateSummary = wireShape<TemplateSummaryView>()(
  z.object({
    id: TemplateId,
    title: z.string(),
    category: CategoryId,
    category_name: z.string().describe('Display name of the category, e.g. "Thermo & Information"'),
    description: z.string(),
    definition_name: z.string().describe('`name` of the definition it deploys'),
    states_count: z.number().int().min(1),
    transitions_count: z.number().int().min(0),
    operators: z.array(z.string()).describe('Operator ids the template composes'),
    trigger_kinds: z.array(z.string()).describe('Trigger kinds used; empty when every transition is driven by a caller'),
  }),
);

export const contractTemplatesTool = defineTool({
  name: 'core_contract_templates',
  toolset: 'contracts',
  title: 'Contract templates',
  description:
    'Ready-made state-contract templates: heartbeats, threshold monitors, approvals, timelocks, physics watches, in 12 categories. Use it to find a template, read its definition, parameters and a worked example, then deploy it with core_contract_deploy.',
  actions: [
    defineAction({
      id: 'contracts.listTemplates',
      action: 'list',
      method: 'GET',
      path: '/api/contracts/templates',
      auth: 'public',
      area: 'contracts',
      summary: 'Lists contract templates; optionally filtered by category or text, with their states, operators and trigger kinds.',
      input: z.object({
        category: CategoryId.optional(),
        q: z
          .string()
          .max(200)
          .optional()
          .describe('Words that must all match, any case. Searched: id, title, description, uses, keywords, states, events and operators'),
        limit: Limit.max(200).default(50),
        cursor: Cursor.optional(),
      }),
      output: z.object({
        ok: z.literal(true),
        total: z.number().int().min(0).describe('Templates matching the filters'),
        templates: z.array(TemplateSummary),
        next_cursor: z.string().nullable(),
      }),
      idempotent: true,
      handler: async (query, { services }) => ({ ok: true as const, ...services.templates.list(query) }),
    }),
    defineAction({
      id: 'contracts.listTemplateCategories',
      action: 'categories',
      method: 'GET',
      path: '/api/contracts/templates/categories',
      auth: 'public',
      area: 'contracts',
      summary: 'Lists the template categories. With display names and template counts.',
      input: z.object({}),
      output: z.object({
        ok: z.literal(true),
        categories: z.array(
          z.object({ id: CategoryId, name: z.string(), description: z.string(), count: z.number().int().min(0).describe('Templates in the category') }),
        ),
      }),
      idempotent: true,
      handler: async (_input, { services }) => ({ ok: true as const, categories: services.templates.categories() }),
    }),
    defineAction({
      id: 'contracts.getTemplate',
      action: 'get',
      method: 'GET',
      path: '/api/contracts/templates/{id}',
      auth: 'public',
      area: 'contracts',
      summary: 'Reads one template with its definition.',
      input: z.object({ id: TemplateId }),
      output: z.object({
        ok: z.literal(true),
        template: TemplateSummary.extend({
          uses: z.array(z.string()).describe('What the template is for, in short sentences'),
          keywords: z.array(z.string()),
          params: z
            .array(
              z.object({
                name: z.string(),
                description: z.string(),
                default: z.unknown().describe('Value the definition holds unless the deploy sets another'),
                unit: z.string().nullable().describe('"ticks", "cron", "unix_s", "event" (an event name), "count", a physical unit, or "" for a ratio'),
                sets: z.array(z.string()).describe('Definition members it sets, e.g. "transitions[0].trigger.every_ticks" or "defaults.force_limit_n"'),
              }),
            )
            .describe('Parameters accepted by the deploy call (body "params")'),
          events: z.object({ listens: z.array(EventName), emits: z.array(EventName) }),
          example: z
            .object({
              params: JsonObject.optional().describe('Deploy parameters the example uses'),
              steps: z
                .array(JsonObject)
                .describe('Steps in order: {transition, input, expect}, {event, payload, expect} (post to /api/chain/{slug}/event) or {fire_now, expect}'),
            })
            .describe('A worked run from a fresh deployment to a terminal or steady state'),
          definition: ContractDefinition,
        }),
      }),
      idempotent: true,
      handler: async ({ id }, { services }) => asOutput({ ok: true as const, template: services.templates.get(id) }),
    }),
  ],
});
