import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ActionDef, ToolDef } from '../../../src/registry/types.js';
import { pulseTool } from '../../../tools/platform/pulse.tool.js';
import { kernelTool } from '../../../tools/platform/kernel.tool.js';
import { accountTool } from '../../../tools/platform/account.tool.js';
import { authTool } from '../../../tools/platform/auth.tool.js';

const tools: ToolDef[] = [pulseTool, kernelTool, accountTool, authTool];

const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

type JsonSchema = { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };

/** The operations this toolset covers, with their auth rule. */
const EXPECTED = [
  'GET /api/pulse public',
  'GET /api/health public',
  'GET /api/status public',
  'GET /api/metrics public',
  'GET /api/kernel public',
  'GET /api/kernel/prompt public',
  'POST /api/demo-key/mint public',
  'GET /api/updates/manifest bearer',
  'POST /api/apps/track bearer',
  'POST /api/contact public',
  'GET /api/conformance/badge.svg public',
  'POST /api/auth/login public',
  'GET /api/auth/callback public',
  'GET /api/auth/sso-start public',
  'GET /api/.well-known/jwks.json public',
  'GET /api/.well-known/openid-configuration public',
];

const find = (id: string): ActionDef => {
  const found = actions.find(({ action }) => action.id === id);
  if (!found) throw new Error(`no action ${id}`);
  return found.action;
};

describe('platform toolset declarations', () => {
  it('declares core_pulse, core_kernel, core_account, core_auth in the platform toolset', () => {
    expect(tools.map((t) => t.name)).toEqual(['core_pulse', 'core_kernel', 'core_account', 'core_auth']);
    for (const tool of tools) {
      expect(tool.toolset).toBe('platform');
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
    }
  });

  it('covers exactly the operations of its tools, with their auth rule', () => {
    const declared = actions.map(({ action }) => `${action.method} ${action.path} ${action.auth}`);
    expect([...declared].sort()).toEqual([...EXPECTED].sort());
  });

  it('gives every action a unique area.verbNoun id, a unique action name, its area', () => {
    const ids = actions.map(({ action }) => action.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const tool of tools) {
      const names = tool.actions.map((a) => a.action);
      expect(names.every((n) => typeof n === 'string' && /^[a-z][a-z0-9_]*$/.test(n))).toBe(true);
      expect(new Set(names).size).toBe(names.length);
    }
    for (const { action } of actions) {
      expect(action.id).toMatch(/^[a-z]+\.[a-z][A-Za-z0-9]*$/);
    }
    const areas = Object.fromEntries(actions.map(({ action }) => [action.id, action.area]));
    expect(areas['kernel.get']).toBe('compute');
    expect(areas['kernel.getPrompt']).toBe('compute');
    expect(areas['identity.mintDemoKey']).toBe('identity');
    expect(areas['identity.getUpdateManifest']).toBe('identity');
    for (const { tool, action } of actions) {
      if (tool.name === 'core_auth') expect(action.area).toBe('identity');
      if (tool.name === 'core_pulse') expect(action.area).toBe('platform');
    }
  });

  it('declares the non-JSON answers with their content types', () => {
    expect(find('platform.getMetrics').produces).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(find('platform.getConformanceBadge').produces).toBe('image/svg+xml');
    expect(find('kernel.getPrompt').produces).toMatch(/^text\//);
  });

  it('refuses a login without a valid e-mail address', () => {
    const input = find('auth.login').input;
    expect(input.safeParse({ email: 'ada@example.org' }).success).toBe(true);
    expect(input.safeParse({ email: 'not-an-address' }).success).toBe(false);
    expect(input.safeParse({}).success).toBe(false);
  });


  it('uses only the neutral words of the spec', () => {
    const text = JSON.stringify(
      actions.map(({ tool, action }) => [
        tool.description,
        action.summary,
        z.toJSONSchema(action.input, { io: 'input' }),
        z.toJSONSchema(action.output, { io: 'output' }),
      ]),
    );
    expect(text).not.toMatch(/zeq|zid|hulya/i);
  });

  it.each(actions.map(({ tool, action }) => [`${tool.name} ${action.action}`, action] as const))(
    '%s: path params are required string fields and schemas convert to JSON Schema',
    (_name, action) => {
      const input = z.toJSONSchema(action.input, { io: 'input' }) as JsonSchema;
      expect(input.type).toBe('object');
      const params = [...action.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1] as string);
      for (const param of params) {
        expect(input.properties?.[param]?.type).toBe('string');
        expect(input.required ?? []).toContain(param);
      }
      const output = z.toJSONSchema(action.output, { io: 'output' }) as JsonSchema;
      if (action.produces) {
        expect(output.type).toBe('string');
      } else {
        expect(output.type).toBe('object');
        expect(Object.keys(output.properties ?? {})[0]).toBe('ok');
      }
      expect(action.summary.length).toBeGreaterThan(20);
    },
  );
});
