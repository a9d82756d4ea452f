import type { ActionDef } from '../../../src/registry/types.js';
import { describe, it, expect } from 'vitest';
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
import { describeToolset } from './toolset-checks.js';

const tools = [
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

describe('machines toolset declarations', () => {
  describeToolset('machines', tools, {
    tools: [
      'core_spin_up',
      'core_machines',
      'core_machine_settings',
      'core_admins',
      'core_api_keys',
      'core_chain_write',
      'core_chain_read',
      'core_activity',
      'core_block',
      'core_chain_verify',
      'core_anchors',
      'core_audit_decrypt',
      'core_stream',
      'core_site',
    ],
    operations: [
      'POST /api/chain/state-machines public',
      'GET /api/chain/state-machines public',
      'GET /api/chain/state-machines/{slug} public',
      'GET /api/chain/aggregate/list public',
      'GET /api/chain/active public',
      'GET /api/chain/newest public',
      'GET /api/chain/recent public',
      'GET /api/chain/fleet public',
      'POST /api/chain/{slug}/status public admin',
      'PATCH /api/chain/{slug}/settings public admin',
      'POST /api/chain/{slug}/unlock public',
      'POST /api/chain/state-machines/{slug}/share/set public admin',
      'POST /api/chain/state-machines/{slug}/share/disable public admin',
      'GET /api/chain/{slug}/admins public viewer',
      'POST /api/chain/{slug}/admins public admin',
      'PATCH /api/chain/{slug}/admins/{uid} public admin',
      'DELETE /api/chain/{slug}/admins/{uid} public admin',
      'GET /api/chain/{slug}/api-keys public admin',
      'POST /api/chain/{slug}/api-keys public admin',
      'DELETE /api/chain/{slug}/api-keys/{id} public admin',
      'POST /api/chain/{slug}/event bearer operator',
      'POST /api/chain/{slug}/state bearer operator',
      'POST /api/chain/{slug}/file bearer operator',
      'POST /api/chain/{slug}/connection bearer operator',
      'POST /api/chain/{slug}/app-event bearer owner',
      'POST /api/chain/{slug}/tx/submit bearer',
      'POST /api/chain/rejection-log public',
      'GET /api/chain/{slug}/state public',
      'GET /api/chain/{slug}/stats public',
      'GET /api/chain/{slug}/coverage public',
      'GET /api/chain/{slug}/sources public',
      'GET /api/chain/{slug}/awareness/status public',
      'GET /api/chain/{slug}/analytics public',
      'GET /api/chain/{slug}/activity public',
      'GET /api/chain/{slug}/explore public',
      'GET /api/chain/{slug}/block public',
      'GET /api/chain/{slug}/at public',
      'GET /api/chain/{slug}/pohc/validate public',
      'GET /api/chain/seal public',
      'POST /api/chain/{motherSlug}/anchor public',
      'GET /api/chain/{motherSlug}/anchored public',
      'GET /api/chain/{motherSlug}/anchors public',
      'GET /api/chain/state-machines/{slug}/anchor-config bearer admin',
      'PUT /api/chain/state-machines/{slug}/anchor-config bearer admin',
      'POST /api/chain/state-machines/{slug}/anchor-key/rotate bearer admin',
      'GET /api/chain/verify-anchor public',
      'POST /api/chain/{slug}/audit/decrypt public owner',
      'GET /api/chain/{slug}/explore/sse public',
      'GET /api/chain/aggregate/sse public',
      'GET /api/chain/{slug}/events/stream bearer owner',
      'GET /api/chain/{slug}/contracts/{id}/transitions/stream bearer viewer',
      'GET /api/chain/{slug}/site/file/{sha} public',
      'GET /api/chain/{slug}/site/list public',
      'POST /api/chain/{slug}/site/upload public',
      'GET /api/chain/{slug}/site/publish-key public',
      'POST /api/chain/{slug}/site/publish-key bearer admin',
      'DELETE /api/chain/{slug}/site/publish-key bearer admin',
    ],
    area: 'chain',
    idPattern: /^chain\.[a-z][A-Za-z0-9]*$/,
    describedInputs: true,
  });

  it('marks the SSE endpoints, and only them, as streams', () => {
    const streams = tools
      .flatMap((tool): ActionDef[] => tool.actions)
      .filter((action) => action.response?.kind === 'stream')
      .map((action) => action.path);
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
