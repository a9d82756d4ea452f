import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ToolDef } from '../../../src/registry/types.js';
import { agentPlanReadTool } from '../../../tools/agents/agent-plan-read.tool.js';
import { agentPlanWriteTool } from '../../../tools/agents/agent-plan-write.tool.js';
import { sandboxRunTool } from '../../../tools/agents/sandbox-run.tool.js';
import { sandboxHistoryTool } from '../../../tools/agents/sandbox-history.tool.js';
import { agentSkillsTool } from '../../../tools/agents/agent-skills.tool.js';
import { agentFilesTool } from '../../../tools/agents/agent-files.tool.js';
import { agentStateTool } from '../../../tools/agents/agent-state.tool.js';
import { agentsTool } from '../../../tools/agents/agents.tool.js';

const tools: ToolDef[] = [
  agentPlanReadTool,
  agentPlanWriteTool,
  sandboxRunTool,
  sandboxHistoryTool,
  agentSkillsTool,
  agentFilesTool,
  agentStateTool,
  agentsTool,
];
const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

const expectedOperations = [
  'GET /api/agent/{uid}/plans/{planId} bearer',
  'GET /api/agent/{uid}/plans/current bearer',
  'GET /api/agent/{uid}/plans/draft bearer',
  'POST /api/agent/{uid}/plans/draft bearer',
  'GET /api/agent/{uid}/plans/history bearer',
  'POST /api/agent/{uid}/plans/lock bearer',
  'GET /api/agent/{uid}/sandbox/quota bearer',
  'POST /api/agent/{uid}/sandbox/run bearer',
  'GET /api/agent/{uid}/sandbox/runs bearer',
  'GET /api/agent/{uid}/skills bearer',
  'POST /api/agent/{uid}/skills/attach bearer',
  'POST /api/agent/{uid}/skills/detach bearer',
  'GET /api/agent/{uid}/state bearer',
  'PATCH /api/agent/{uid}/state bearer',
  'GET /api/agent/files/history bearer',
  'GET /api/agent/files/list bearer',
  'GET /api/agent/files/read bearer',
  'POST /api/agent/files/write bearer',
  'GET /api/agents public',
  'GET /api/agents/{uid} public',
  'GET /api/skills/preview public',
];

type JsonSchema = { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };

describe('agents toolset declarations', () => {
  it('declares the eight agents tools with core_ names in the agents toolset', () => {
    expect(tools).toHaveLength(8);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
      expect(tool.toolset).toBe('agents');
    }
  });

  it('covers exactly the agent operations with their auth rules', () => {
    const declared = actions.map(({ action }) => `${action.method} ${action.path} ${action.auth}`).sort();
    expect(declared).toEqual([...expectedOperations].sort());
  });

  it('keeps operation ids unique and action names unique inside each tool', () => {
    const ids = actions.map(({ action }) => action.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/);
    for (const tool of tools) {
      const names = tool.actions.map((action) => action.action);
      expect(names.every((name) => typeof name === 'string' && /^[a-z][a-z_]*$/.test(name))).toBe(true);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('leaves every action unbuilt in the agents area', () => {
    for (const { action } of actions) {
      expect(action.area).toBe('agents');
    }
  });

  it('makes every path parameter a required string field of the input', () => {
    for (const { action } of actions) {
      const schema = z.toJSONSchema(action.input, { io: 'input' }) as JsonSchema;
      for (const [, param] of action.path.matchAll(/\{([^}]+)\}/g)) {
        expect(schema.required, `${action.id} requires ${param}`).toContain(param);
        expect(schema.properties?.[param!]?.type, `${action.id} ${param} is a string`).toBe('string');
      }
    }
  });

  it('converts every input and output schema to JSON Schema, inputs as objects', () => {
    for (const { action } of actions) {
      const input = z.toJSONSchema(action.input, { io: 'input' }) as JsonSchema;
      expect(input.type, action.id).toBe('object');
      const output = z.toJSONSchema(action.output, { io: 'output' }) as JsonSchema;
      expect(output.type, action.id).toBe('object');
      expect(output.properties?.ok, action.id).toBeDefined();
    }
  });

  it('caps the sandbox time limit at 30 s', () => {
    const run = sandboxRunTool.actions[0]!;
    expect(run.input.safeParse({ uid: 'a1', code: 'print(1)', timeout_ms: 30_000 }).success).toBe(true);
    expect(run.input.safeParse({ uid: 'a1', code: 'print(1)', timeout_ms: 30_001 }).success).toBe(false);
  });

  it('refuses absolute, parent-directory and control-character file paths', () => {
    const read = agentFilesTool.actions.find((action) => action.id === 'agentFile.read')!;
    for (const path of ['notes/plan.md', 'a..b/c.txt', 'x/.hidden']) {
      expect(read.input.safeParse({ path }).success, path).toBe(true);
    }
    for (const path of ['/etc/shadow', '..', '../x', 'a/../b', 'a/..', 'a\u0000b', 'a\\b']) {
      expect(read.input.safeParse({ path }).success, JSON.stringify(path)).toBe(false);
    }
  });
});
