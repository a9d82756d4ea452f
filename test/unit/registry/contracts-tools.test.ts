import { describe, it, expect } from 'vitest';
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
import { describeToolset } from './toolset-checks.js';

const tools = [
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

describe('contracts toolset declarations', () => {
  describeToolset('contracts', tools, {
    tools: [
      'core_contract_templates',
      'core_contract_deploy',
      'core_contract_generate',
      'core_contracts',
      'core_contract_update',
      'core_contract_control',
      'core_contract_transition',
      'core_contract_simulate',
      'core_contract_schedule',
      'core_contract_audit',
      'core_contract_transfer',
      'core_contract_events',
      'core_contracts_public',
    ],
    // Owner-only: update, rollback, next fires, preview, export and the contract kill (public route, owner role).
    operations: [
      'GET /api/contracts/templates public',
      'GET /api/contracts/templates/categories public',
      'GET /api/contracts/templates/{id} public',
      'POST /api/contracts/templates/{id}/deploy bearer operator',
      'POST /api/chain/{slug}/contracts bearer operator',
      'POST /api/chain/{slug}/contracts/custom bearer operator',
      'POST /api/contracts/generate bearer',
      'GET /api/chain/{slug}/contracts bearer viewer',
      'GET /api/chain/{slug}/contracts/{id} bearer viewer',
      'GET /api/chain/{slug}/contracts/{id}/integrity public',
      'GET /api/chain/{slug}/oracles bearer viewer',
      'PATCH /api/chain/{slug}/contracts/{id} bearer owner',
      'POST /api/chain/{slug}/contracts/{id}/rollback bearer owner',
      'GET /api/chain/{slug}/contracts/{id}/versions bearer viewer',
      'GET /api/chain/{slug}/contracts/{id}/versions/{n} bearer viewer',
      'POST /api/chain/{slug}/contracts/{id}/pause bearer operator',
      'POST /api/chain/{slug}/contracts/{id}/resume bearer operator',
      'POST /api/chain/{slug}/contracts/{id}/freeze bearer operator',
      'POST /api/chain/{slug}/contracts/{id}/skip-next bearer operator',
      'POST /api/chain/{slug}/contracts/{id}/fire-now bearer operator',
      'POST /api/core/agent/kill/{id} public owner',
      'POST /api/chain/{slug}/contracts/{id}/transition bearer operator',
      'POST /api/chain/{slug}/contracts/{id}/dry-run bearer operator',
      'POST /api/contracts/simulate bearer',
      'GET /api/chain/{slug}/contracts/{id}/next-fires bearer owner',
      'GET /api/chain/{slug}/contracts/{id}/preview bearer owner',
      'GET /api/chain/{slug}/contracts/{id}/audit bearer viewer',
      'POST /api/chain/{slug}/contracts/{id}/verify bearer viewer',
      'GET /api/chain/{slug}/contracts/{id}/export bearer owner',
      'POST /api/chain/{slug}/contracts/import bearer operator',
      'GET /api/chain/{slug}/events bearer viewer',
      'GET /api/contracts/public public',
      'GET /api/contracts/public/{id} public',
      'GET /api/contracts/public/{id}/audit public',
      'GET /api/contracts/public/{id}/next-fires public',
      'GET /api/contracts/public/{id}/subscribers public',
      'GET /api/contracts/public/{id}/superposition public',
    ],
    area: 'contracts',
    idPattern: /^contracts\.[a-z][A-Za-z]+$/,
    okAlwaysTrue: true,
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
