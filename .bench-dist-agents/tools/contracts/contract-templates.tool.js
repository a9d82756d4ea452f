import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Cursor, Limit } from '../../src/registry/common-schemas.js';
import { ContractDefinition, TemplateId } from './contracts.schemas.js';
const CategoryId = z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a category id is kebab-case')
    .max(64)
    .describe('Category id, e.g. "foundations", "mechanics", "thermo-and-information"');
const TemplateSummary = z.object({
    id: TemplateId,
    title: z.string(),
    category: CategoryId,
    description: z.string(),
    definition_name: z.string().describe('`name` of the definition it deploys'),
    states_count: z.number().int().min(1),
    transitions_count: z.number().int().min(0),
    operators: z.array(z.string()).describe('Operator ids the template composes'),
    trigger_kinds: z.array(z.string()).describe('Trigger kinds used; empty when every transition is driven by a caller'),
});
export const contractTemplatesTool = defineTool({
    name: 'core_contract_templates',
    toolset: 'contracts',
    title: 'Contract templates',
    description: 'Browses the catalogue of ready-made state-contract templates (heartbeats, threshold monitors, approvals, timelocks, physics watches). Use it to find a template and read its full definition before deploying it with core_contract_deploy. Actions: list, categories, get.',
    actions: [
        defineAction({
            id: 'contracts.listTemplates',
            action: 'list',
            method: 'GET',
            path: '/api/contracts/templates',
            auth: 'public',
            area: 'contracts',
            summary: 'Lists contract templates, optionally filtered by category or text, with their states, operators and trigger kinds.',
            input: z.object({
                category: CategoryId.optional(),
                q: z.string().max(200).optional().describe('Case-insensitive text to match in id, title or description'),
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
        }),
        defineAction({
            id: 'contracts.listTemplateCategories',
            action: 'categories',
            method: 'GET',
            path: '/api/contracts/templates/categories',
            auth: 'public',
            area: 'contracts',
            summary: 'Lists the template categories with their display names and template counts.',
            input: z.object({}),
            output: z.object({
                ok: z.literal(true),
                categories: z.array(z.object({ id: CategoryId, name: z.string(), count: z.number().int().min(0) })),
            }),
            idempotent: true,
        }),
        defineAction({
            id: 'contracts.getTemplate',
            action: 'get',
            method: 'GET',
            path: '/api/contracts/templates/{id}',
            auth: 'public',
            area: 'contracts',
            summary: 'Reads one template with its full contract definition and what it is for.',
            input: z.object({ id: TemplateId }),
            output: z.object({
                ok: z.literal(true),
                template: TemplateSummary.extend({
                    uses: z.array(z.string()).describe('What the template is for, in short sentences'),
                    definition: ContractDefinition,
                }),
            }),
            idempotent: true,
        }),
    ],
});
//# sourceMappingURL=contract-templates.tool.js.map