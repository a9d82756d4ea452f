import { describe, it, expect } from 'vitest';
import type { z } from 'zod';
import { solversTool } from '../../../tools/compute/solvers.tool.js';
import { solveTool } from '../../../tools/compute/solve.tool.js';
import { computeTool } from '../../../tools/compute/compute.tool.js';
import { verifyTool } from '../../../tools/compute/verify.tool.js';
import { operatorsTool } from '../../../tools/compute/operators.tool.js';
import { compressTool } from '../../../tools/compute/compress.tool.js';
import { communityOperatorsTool } from '../../../tools/compute/community-operators.tool.js';
import { communityOperatorProposeTool } from '../../../tools/compute/community-operator-propose.tool.js';
import { communityOperatorVoteTool } from '../../../tools/compute/community-operator-vote.tool.js';
import { describeToolset, findAction } from './toolset-checks.js';

const tools = [
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

describe('compute toolset declarations', () => {
  describeToolset('compute', tools, {
    tools: [
      'core_solvers',
      'core_solve',
      'core_compute',
      'core_verify',
      'core_operators',
      'core_compress',
      'core_community_operators',
      'core_community_operator_propose',
      'core_community_operator_vote',
    ],
    operations: [
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
    ],
    // Community operator actions belong to the economy area, the rest to compute.
    area: (action) => (action.path.startsWith('/api/community-operators') ? 'economy' : 'compute'),
    idPattern: /^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/,
  });

  it('requires confirm true to promote a community operator and marks it human-only', () => {
    const promote = findAction([communityOperatorProposeTool], 'communityOperator.promote');
    expect(promote.input.safeParse({ id: 'p1' }).success).toBe(false);
    expect(promote.input.safeParse({ id: 'p1', confirm: false }).success).toBe(false);
    expect(promote.input.safeParse({ id: 'p1', confirm: true }).success).toBe(true);
    expect(promote.tags).toContain('human-session');
  });

  it('accepts 1 to 3 operators for a compute and refuses 4', () => {
    const run = findAction([computeTool], 'compute.run');
    expect(run.input.safeParse({ operators: ['NM19'], inputs: { mass_kg: 2 } }).success).toBe(true);
    expect(run.input.safeParse({ operators: [], inputs: {} }).success).toBe(false);
    expect(run.input.safeParse({ operators: ['NM19', 'NM21', 'GR37', 'QM10'], inputs: {} }).success).toBe(false);
  });

  it('reuses one receipt schema across solve, compute and verify', () => {
    const solve = solveTool.actions[0]!.output as z.ZodObject;
    const run = findAction([computeTool], 'compute.run').output as z.ZodObject;
    const verify = findAction([verifyTool], 'proof.verifyReceipt').input;
    expect(solve.shape.receipt).toBe(run.shape.receipt);
    expect(verify.shape.receipt).toBe(run.shape.receipt);
  });
});
