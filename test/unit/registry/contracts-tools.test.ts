import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ToolDef } from '../../../src/registry/types.js';
import { contractTemplatesTool } from '../../../tools/contracts/contract-templates.tool.js';
import { contractDeployTool } from '../../../tools/contracts/contract-deploy.tool.js';
import { contractGenerateTool } from '../../../tools/contracts/contract-generate.tool.js';
import { contractsTool } from '../../../tools/contracts/contracts.tool.js';
import { contractUpdateTool } from '../../../tools/contracts/contract-update.tool.js';
import { contractControlTool } from '../../../tools/contracts/contract-control.tool.js';
import { contractTransitionTool } from '../../../tools/contracts/contract-transition.tool.js';
import { contractSimulateTool } from '../../../tools/contracts/contract-simulate.tool.js';
import { contractScheduleTool } from '../../../tools/contracts/contract-schedule.tool.js';
import { contractAuditTool } from '../../../tools/contracts/contract-audit.tool.js';
import { contractTransferTool } from '../../../tools/contracts/contract-transfer.tool.js';
import { contractEventsTool } from '../../../tools/contracts/contract-events.tool.js';
import { contractsPublicTool } from '../../../tools/contracts/contracts-public.tool.js';
import { ContractDefinition } from '../../../tools/contracts/contracts.schemas.js';

const tools: ToolDef[] = [
  contractTemplatesTool,
  contractDeployTool,
  contractGenerateTool,
  contractsTool,
  contractUpdateTool,
  contractControlTool,
  contractTransitionTool,
  contractSimulateTool,
  contractScheduleTool,
  contractAuditTool,
  contractTransferTool,
  contractEventsTool,
  contractsPublicTool,
];
const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool: tool.name, action })));

const pathParams = (path: string): string[] => [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1] ?? '');

describe('contracts toolset declarations', () => {
  it('declares the 13 contracts tools, all in the contracts toolset with core_ names', () => {
    expect(tools).toHaveLength(13);
    for (const tool of tools) {
      expect(tool.toolset).toBe('contracts');
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
      expect(tool.actions.length).toBeGreaterThan(0);
    }
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('covers each contracts operation exactly once', () => {
    expect(actions).toHaveLength(37);
    const routes = actions.map(({ action }) => `${action.method} ${action.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('gives every action a unique contracts.verbNoun id and a unique snake_case action name inside its tool', () => {
    const ids = actions.map(({ action }) => action.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { action } of actions) {
      expect(action.id).toMatch(/^contracts\.[a-z][A-Za-z]+$/);
      expect(action.area).toBe('contracts');
    }
    for (const tool of tools) {
      const names = tool.actions.map((a) => a.action);
      for (const name of names) expect(name).toMatch(/^[a-z][a-z_]*$/);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('makes every path param a required string field of the input', () => {
    for (const { action } of actions) {
      const schema = z.toJSONSchema(action.input, { io: 'input' }) as {
        properties?: Record<string, { type?: string }>;
        required?: string[];
      };
      for (const param of pathParams(action.path)) {
        expect(schema.properties?.[param]?.type, `${action.id} ${param}`).toBe('string');
        expect(schema.required ?? [], `${action.id} ${param}`).toContain(param);
      }
    }
  });

  it('converts every input and output to JSON Schema, inputs as objects and outputs starting with ok: true', () => {
    for (const { action } of actions) {
      const input = z.toJSONSchema(action.input, { io: 'input' }) as { type?: string };
      expect(input.type, action.id).toBe('object');
      const output = z.toJSONSchema(action.output, { io: 'output' }) as { properties?: Record<string, unknown> };
      expect(output.properties?.ok, action.id).toEqual({ type: 'boolean', const: true });
    }
  });

  it('gates owner-only operations and the contract kill on the owner role', () => {
    const byId = new Map(actions.map(({ action }) => [action.id, action]));
    for (const id of ['contracts.exportContract', 'contracts.predictNextFires', 'contracts.previewContract', 'contracts.killContract']) {
      expect(byId.get(id)?.role, id).toBe('owner');
    }
    expect(byId.get('contracts.killContract')?.auth).toBe('public');
    expect(byId.get('contracts.listEvents')?.role).toBe('viewer');
    expect(byId.get('contracts.checkIntegrity')?.auth).toBe('public');
  });

  it('accepts a definition with typed triggers and actions and keeps unknown members', () => {
    const definition = {
      name: 'timelock_release',
      version: '1.0',
      states: { held: { initial: true }, released: { terminal: true }, expired: { terminal: true } },
      transitions: [
        {
          from: 'held',
          to: 'released',
          operator: 'KO42',
          trigger: { kind: 'on_aggregate', event: 'sign', within_ticks: 1000000, aggregate: { fn: 'count' }, op: '>=', threshold: 2 },
          post_actions: [{ type: 'emit', event: 'released' }],
        },
        { from: 'held', to: 'expired', operator: 'KO42', trigger: { kind: 'one_shot', at_unix: 4102444800 } },
      ],
      observers: [],
      audit_clock: true,
      tick_rate: 1,
      oracle: { api: 'feed' },
      x_extension: { kept: true },
    };
    const parsed = ContractDefinition.parse(definition);
    expect(parsed).toEqual(definition);
    expect(() => ContractDefinition.parse({ ...definition, transitions: [{ from: 'held', to: 'released', trigger: { kind: 'hourly' } }] })).toThrow();
  });
});
