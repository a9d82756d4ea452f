import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ToolDef } from '../../../src/registry/types.js';
import { spinUpTool } from '../../../tools/machines/spin-up.tool.js';
import { machinesTool } from '../../../tools/machines/machines.tool.js';
import { machineSettingsTool } from '../../../tools/machines/machine-settings.tool.js';
import { adminsTool } from '../../../tools/machines/admins.tool.js';
import { apiKeysTool } from '../../../tools/machines/api-keys.tool.js';
import { chainWriteTool } from '../../../tools/machines/chain-write.tool.js';
import { chainReadTool } from '../../../tools/machines/chain-read.tool.js';
import { activityTool } from '../../../tools/machines/activity.tool.js';
import { blockTool } from '../../../tools/machines/block.tool.js';
import { chainVerifyTool } from '../../../tools/machines/chain-verify.tool.js';
import { anchorsTool } from '../../../tools/machines/anchors.tool.js';
import { auditDecryptTool } from '../../../tools/machines/audit-decrypt.tool.js';
import { streamTool } from '../../../tools/machines/stream.tool.js';
import { siteTool } from '../../../tools/machines/site.tool.js';

const tools: ToolDef[] = [
  spinUpTool,
  machinesTool,
  machineSettingsTool,
  adminsTool,
  apiKeysTool,
  chainWriteTool,
  chainReadTool,
  activityTool,
  blockTool,
  chainVerifyTool,
  anchorsTool,
  auditDecryptTool,
  streamTool,
  siteTool,
];
const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

type JsonSchema = { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };

describe('machines toolset declarations', () => {
  it('declares the 14 machines tools, each in the machines toolset with a core_ name', () => {
    expect(tools).toHaveLength(14);
    expect(new Set(tools.map((t) => t.name)).size).toBe(14);
    for (const tool of tools) {
      expect(tool.toolset).toBe('machines');
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
    }
  });

  it('gives every action a unique id and a unique action name inside its tool', () => {
    const ids = actions.map(({ action }) => action.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const tool of tools) {
      const names = tool.actions.map((a) => a.action);
      expect(names.every((n) => typeof n === 'string' && /^[a-z][a-z0-9_]*$/.test(n))).toBe(true);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('declares every operation once, with an area.verbNoun id in the chain area', () => {
    const operations = actions.map(({ action }) => `${action.method} ${action.path}`);
    expect(new Set(operations).size).toBe(operations.length);
    for (const { action } of actions) {
      expect(action.id).toMatch(/^chain\.[a-z][A-Za-z0-9]*$/);
      expect(action.area).toBe('chain');
    }
  });

  it.each(actions.map(({ tool, action }) => [`${tool.name} ${action.action}`, action] as const))(
    '%s: path params are required string fields and schemas convert to JSON Schema',
    (_name, action) => {
      const input = z.toJSONSchema(action.input, { io: 'input' }) as JsonSchema;
      expect(input.type).toBe('object');
      const params = [...action.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1] as string);
      for (const param of params) {
        expect(input.properties?.[param]?.type).toBe('string');
        expect(input.required ?? []).toContain(param);
      }
      for (const [field, schema] of Object.entries(input.properties ?? {})) {
        expect((schema as { description?: string }).description, `${field} has a description`).toBeTruthy();
      }
      const output = z.toJSONSchema(action.output, { io: 'output' }) as JsonSchema;
      expect(output.type).toBe('object');
      if (action.stream) {
        expect(Object.keys(output.properties ?? {})).toEqual(expect.arrayContaining(['id', 'event', 'data']));
        expect(Object.keys(input.properties ?? {})).toEqual(expect.arrayContaining(['max_events', 'max_ms', 'last_event_id']));
      } else {
        expect(output.properties?.ok).toBeDefined();
      }
    },
  );

  it('marks the SSE endpoints, and only them, as streams', () => {
    const streams = actions.filter(({ action }) => action.stream).map(({ action }) => action.path);
    expect(streams.sort()).toEqual(
      [
        '/api/chain/aggregate/sse',
        '/api/chain/{slug}/contracts/{id}/transitions/stream',
        '/api/chain/{slug}/events/stream',
        '/api/chain/{slug}/explore/sse',
      ].sort(),
    );
  });
});
