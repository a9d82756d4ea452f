import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ActionDef, ToolDef } from '../../../src/registry/types.js';
import { tallyTool } from '../../../tools/economy/tally.tool.js';
import { creditsTool } from '../../../tools/economy/credits.tool.js';
import { contributeTool } from '../../../tools/economy/contribute.tool.js';

const tools: ToolDef[] = [tallyTool, creditsTool, contributeTool];
const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

type JsonSchema = { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };

/** The operations of the spec this toolset covers, with their auth column. */
const EXPECTED = [
  'GET /api/chain/{slug}/tally/mint-rate public',
  'POST /api/chain/{slug}/tally/mint-rate bearer',
  'GET /api/chain/{slug}/tally/supply public',
  'GET /api/chain/{slug}/tally/token public',
  'GET /api/chain/{slug}/tally/token/{tokenId} public',
  'GET /api/chain/{slug}/tally/token/avatar public',
  'POST /api/chain/{slug}/tally/token/avatar public',
  'POST /api/chain/{slug}/tally/token/genesis public',
  'GET /api/chain/{slug}/tally/tokens public',
  'POST /api/chain/{slug}/tally/verify public',
  'POST /api/credits/claim bearer',
  'GET /api/credits/conversion bearer',
  'POST /api/credits/convert bearer',
  'POST /api/credits/peer/conversion public',
  'POST /api/credits/peer/convert public',
  'GET /api/credits/status bearer',
  'POST /api/contribute/bond bearer',
  'GET /api/contribute/census public',
  'POST /api/contribute/heartbeat bearer',
  'POST /api/contribute/mode bearer',
  'GET /api/contribute/policy public',
  'POST /api/contribute/release bearer',
  'GET /api/contribute/status bearer',
];

const find = (id: string): ActionDef => {
  const found = actions.find(({ action }) => action.id === id);
  if (!found) throw new Error(`no action ${id}`);
  return found.action;
};

describe('economy toolset declarations', () => {
  it('declares core_tally, core_credits and core_contribute in the economy toolset', () => {
    expect(tools.map((t) => t.name)).toEqual(['core_tally', 'core_credits', 'core_contribute']);
    for (const tool of tools) {
      expect(tool.toolset).toBe('economy');
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
    }
  });

  it('covers exactly the spec operations of the area, with their auth rule', () => {
    const declared = actions.map(({ action }) => `${action.method} ${action.path} ${action.auth}`);
    expect([...declared].sort()).toEqual([...EXPECTED].sort());
  });

  it('gives every action a unique area.verbNoun id, a unique action name, the economy area', () => {
    const ids = actions.map(({ action }) => action.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const tool of tools) {
      const names = tool.actions.map((a) => a.action);
      expect(names.every((n) => typeof n === 'string' && /^[a-z][a-z0-9_]*$/.test(n))).toBe(true);
      expect(new Set(names).size).toBe(names.length);
    }
    for (const { action } of actions) {
      expect(action.id).toMatch(/^[a-z]+\.[a-z][A-Za-z0-9]*$/);
      expect(action.area).toBe('economy');
    }
  });

  it('gates the token owner operations on the owner role', () => {
    for (const id of ['tally.setMintRate', 'tally.createGenesis', 'tally.uploadAvatar']) {
      expect(find(id).role).toBe('owner');
    }
  });

  it('refuses a conversion without an idempotency key and accepts one with it', () => {
    const input = find('credits.convert').input;
    expect(input.safeParse({ credits: 10 }).success).toBe(false);
    expect(input.safeParse({ credits: 10, idempotency_key: 'convert-0001' }).success).toBe(true);
    expect(input.safeParse({ credits: -1, idempotency_key: 'convert-0001' }).success).toBe(false);
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
