import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import type { ToolDef } from '../../../src/registry/types.js';
import { solversTool } from '../../../tools/compute/solvers.tool.js';
import { solveTool } from '../../../tools/compute/solve.tool.js';
import { computeTool } from '../../../tools/compute/compute.tool.js';
import { verifyTool } from '../../../tools/compute/verify.tool.js';
import { operatorsTool } from '../../../tools/compute/operators.tool.js';
import { compressTool } from '../../../tools/compute/compress.tool.js';
import { communityOperatorsTool } from '../../../tools/compute/community-operators.tool.js';
import { communityOperatorProposeTool } from '../../../tools/compute/community-operator-propose.tool.js';
import { communityOperatorVoteTool } from '../../../tools/compute/community-operator-vote.tool.js';

const tools: ToolDef[] = [
  solversTool,
  solveTool,
  computeTool,
  verifyTool,
  operatorsTool,
  compressTool,
  communityOperatorsTool,
  communityOperatorProposeTool,
  communityOperatorVoteTool,
];
const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

const expectedOperations = [
  'GET /api/solvers public',
  'GET /api/solvers/{id} public',
  'POST /api/solvers/{id}/solve public',
  'POST /api/compute public',
  'GET /api/compute/usage bearer',
  'POST /api/proof/verify public',
  'POST /api/attest public',
  'GET /api/operators public',
  'GET /api/operators/categories public',
  'GET /api/operators/{id} public',
  'POST /api/compress public',
  'POST /api/decompress public',
  'POST /api/analyze public',
  'GET /api/community-operators public',
  'GET /api/community-operators/{id} public',
  'POST /api/community-operators/propose bearer',
  'POST /api/community-operators/{id}/open-vote bearer',
  'POST /api/community-operators/{id}/promote bearer',
  'POST /api/community-operators/{id}/stake bearer',
  'POST /api/community-operators/{id}/resolve bearer',
];

type JsonSchema = { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };

describe('compute toolset declarations', () => {
  it('declares the nine compute tools with core_ names in the compute toolset', () => {
    expect(tools).toHaveLength(9);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
      expect(tool.toolset).toBe('compute');
    }
  });

  it('covers exactly the compute operations with their auth rules', () => {
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

  it('puts community operator actions in the economy area and the rest in compute', () => {
    for (const { action } of actions) {
      expect(action.area).toBe(action.path.startsWith('/api/community-operators') ? 'economy' : 'compute');
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

  it('requires confirm true to promote a community operator and marks it human-only', () => {
    const promote = communityOperatorProposeTool.actions.find((action) => action.id === 'communityOperator.promote')!;
    expect(promote.input.safeParse({ id: 'p1' }).success).toBe(false);
    expect(promote.input.safeParse({ id: 'p1', confirm: false }).success).toBe(false);
    expect(promote.input.safeParse({ id: 'p1', confirm: true }).success).toBe(true);
    expect(promote.tags).toContain('human-session');
  });

  it('accepts 1 to 3 operators for a compute and refuses 4', () => {
    const run = computeTool.actions.find((action) => action.id === 'compute.run')!;
    expect(run.input.safeParse({ operators: ['NM19'], inputs: { mass_kg: 2 } }).success).toBe(true);
    expect(run.input.safeParse({ operators: [], inputs: {} }).success).toBe(false);
    expect(run.input.safeParse({ operators: ['NM19', 'NM21', 'GR37', 'QM10'], inputs: {} }).success).toBe(false);
  });

  it('reuses one receipt schema across solve, compute and verify', () => {
    const solve = solveTool.actions[0]!.output as z.ZodObject;
    const run = computeTool.actions.find((action) => action.id === 'compute.run')!.output as z.ZodObject;
    const verify = verifyTool.actions.find((action) => action.id === 'proof.verifyReceipt')!.input;
    expect(solve.shape.receipt).toBe(run.shape.receipt);
    expect(verify.shape.receipt).toBe(run.shape.receipt);
  });
});
