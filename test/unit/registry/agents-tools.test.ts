import { describe, it, expect } from 'vitest';
import { agentPlanReadTool } from '../../../tools/agents/agent-plan-read.tool.js';
import { agentPlanWriteTool } from '../../../tools/agents/agent-plan-write.tool.js';
import { sandboxRunTool } from '../../../tools/agents/sandbox-run.tool.js';
import { sandboxHistoryTool } from '../../../tools/agents/sandbox-history.tool.js';
import { agentSkillsTool } from '../../../tools/agents/agent-skills.tool.js';
import { agentFilesTool } from '../../../tools/agents/agent-files.tool.js';
import { agentStateTool } from '../../../tools/agents/agent-state.tool.js';
import { agentsTool } from '../../../tools/agents/agents.tool.js';
import { z } from 'zod';
import { buildRegistry } from '../../../src/registry/registry.js';
import { defineAction, defineTool } from '../../../src/registry/types.js';
import { describeToolset, findAction } from './toolset-checks.js';

const tools = [agentPlanReadTool, agentPlanWriteTool, sandboxRunTool, sandboxHistoryTool, agentSkillsTool, agentFilesTool, agentStateTool, agentsTool];

describe('agents toolset declarations', () => {
  describeToolset('agents', tools, {
    tools: [
      'core_agent_plan_read',
      'core_agent_plan_write',
      'core_sandbox_run',
      'core_sandbox_history',
      'core_agent_skills',
      'core_agent_files',
      'core_agent_state',
      'core_agents',
    ],
    operations: [
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
      'POST /api/agent/{uid}/delegations bearer',
      'GET /api/agent/{uid}/delegations bearer',
      'DELETE /api/agent/{uid}/delegations/{slug} bearer',
      'GET /api/agent/files/history bearer',
      'GET /api/agent/files/list bearer',
      'GET /api/agent/files/read bearer',
      'POST /api/agent/files/write bearer',
      'GET /api/agents public',
      'GET /api/agents/{uid} public',
      'GET /api/skills/preview public',
    ],
    area: 'agents',
    idPattern: /^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/,
  });

  it('caps the sandbox time limit at 30 s', () => {
    const run = findAction(tools, 'sandbox.run');
    expect(run.input.safeParse({ uid: 'a1', code: 'print(1)', timeout_ms: 30_000 }).success).toBe(true);
    expect(run.input.safeParse({ uid: 'a1', code: 'print(1)', timeout_ms: 30_001 }).success).toBe(false);
  });

  it('refuses absolute, parent-directory and control-character file paths', () => {
    const read = findAction(tools, 'agentFile.read');
    for (const path of ['notes/plan.md', 'a..b/c.txt', 'x/.hidden']) {
      expect(read.input.safeParse({ path }).success, path).toBe(true);
    }
    for (const path of ['/etc/shadow', '..', '../x', 'a/../b', 'a/..', 'a\u0000b', 'a\\b']) {
      expect(read.input.safeParse({ path }).success, JSON.stringify(path)).toBe(false);
    }
  });

  it('declares every operation under /api/agent/ as an agent-store operation, and refuses a registry where one is not', () => {
    for (const tool of tools) {
      for (const action of tool.actions) {
        if (action.path.startsWith('/api/agent/')) expect(action.agentStore, action.id).toMatch(/^(read|write|self)$/);
        if (action.agentStore && action.method === 'GET') expect(action.agentStore, action.id).not.toBe('write');
      }
    }
    const route = {
      id: 'agentX.read',
      method: 'GET',
      path: '/api/agent/{uid}/x',
      auth: 'bearer',
      area: 'agents',
      summary: 'Reads x of an agent for the test.',
      output: z.object({}),
      handler: async () => ({}),
    } as const;
    const bare = defineTool({
      name: 'core_x',
      toolset: 'agents',
      title: 'X',
      description: 'x',
      actions: [defineAction({ ...route, input: z.object({ uid: z.string() }) })],
    });
    expect(() => buildRegistry([bare])).toThrow('must declare agentStore');
    const noUid = defineTool({ ...bare, actions: [defineAction({ ...route, path: '/api/agent/x', agentStore: 'read', input: z.object({}) })] });
    expect(() => buildRegistry([noUid])).toThrow('no uid input');
  });
});
