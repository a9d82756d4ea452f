import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ActionDef, ToolDef } from '../../../src/registry/types.js';
import { threatFeedTool } from '../../../tools/edge/threat-feed.tool.js';
import { cdnSitesTool } from '../../../tools/edge/cdn-sites.tool.js';
import { chatTool } from '../../../tools/edge/chat.tool.js';

const tools: ToolDef[] = [threatFeedTool, cdnSitesTool, chatTool];

const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

type JsonSchema = { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };

/** The operations this toolset covers, with their auth rule. */
const EXPECTED = [
  'POST /api/av/claim bearer',
  'GET /api/av/devices bearer',
  'POST /api/av/devices bearer',
  'GET /api/av/mesh-feed public',
  'GET /api/av/threats public',
  'GET /api/cf/sites public',
  'POST /api/cf/sites public',
  'GET /api/cf/sites/{id} public',
  'GET /api/cf/sites/{id}/analytics public',
  'POST /api/cf/sites/{id}/purge public',
  'POST /api/cf/sites/{id}/rules public',
  'DELETE /api/cf/sites/{id}/rules/{rule_id} public',
  'POST /api/chat/free bearer',
  'GET /api/chat/free/quota bearer',
];

const find = (id: string): ActionDef => {
  const found = actions.find(({ action }) => action.id === id);
  if (!found) throw new Error(`no action ${id}`);
  return found.action;
};

describe('edge toolset declarations', () => {
  it('declares core_threat_feed, core_cdn_sites, core_chat in the edge toolset', () => {
    expect(tools.map((t) => t.name)).toEqual(['core_threat_feed', 'core_cdn_sites', 'core_chat']);
    for (const tool of tools) {
      expect(tool.toolset).toBe('edge');
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
    expect(actions.every(({ action }) => action.area === 'edge')).toBe(true);
  });

  it('makes every site write name the machine slug and need admin on it', () => {
    for (const id of ['cdn.registerSite', 'cdn.upsertRule', 'cdn.deleteRule', 'cdn.purge']) {
      const action = find(id);
      expect(action.role).toBe('admin');
      const input = z.toJSONSchema(action.input, { io: 'input' }) as JsonSchema;
      expect(input.required ?? []).toContain('slug');
    }
  });

  it('accepts only the three analytics windows and a threat window like 24h', () => {
    const analytics = find('cdn.getAnalytics').input;
    expect(analytics.safeParse({ id: 's1', window: '7d' }).success).toBe(true);
    expect(analytics.safeParse({ id: 's1', window: '30d' }).success).toBe(false);
    const threats = find('threat.listThreats').input;
    expect(threats.safeParse({ slug: 'lab', window: '24h' }).success).toBe(true);
    expect(threats.safeParse({ slug: 'lab', window: 'yesterday' }).success).toBe(false);
  });

  it('refuses a streaming chat request, which this tool cannot deliver', () => {
    const input = find('chat.complete').input;
    const messages = [{ role: 'user', content: 'How do I deploy a contract?' }];
    expect(input.safeParse({ messages }).success).toBe(true);
    expect(input.safeParse({ messages, stream: true }).success).toBe(false);
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
