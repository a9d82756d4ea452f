import { describe, it, expect } from 'vitest';
import { pulseTool } from '../../../tools/platform/pulse.tool.js';
import { kernelTool } from '../../../tools/platform/kernel.tool.js';
import { accountTool } from '../../../tools/platform/account.tool.js';
import { authTool } from '../../../tools/platform/auth.tool.js';
import { apiCatalogTool } from '../../../tools/platform/api-catalog.tool.js';
import { httpTool } from '../../../tools/platform/http.tool.js';
import { constantsTool } from '../../../tools/platform/constants.tool.js';
import { describeToolset, findAction } from './toolset-checks.js';

const tools = [apiCatalogTool, httpTool, pulseTool, kernelTool, constantsTool, accountTool, authTool];
const find = (id: string) => findAction(tools, id);

describe('platform toolset declarations', () => {
  describeToolset('platform', tools, {
    tools: ['core_api_catalog', 'core_http', 'core_pulse', 'core_kernel', 'core_constants', 'core_account', 'core_auth'],
    operations: [
      'GET /api/endpoints/map public',
      'GET /api/endpoints public',
      'GET /api/openapi.json public',
      'POST /api/http public',
      'GET /api/constants public',
      'GET /api/constants/{key} public',
      'GET /api/pulse public',
      'GET /api/health public',
      'GET /api/health/ready public',
      'GET /api/status public',
      'GET /api/whoami public',
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
    ],
    // The kernel is served by compute, accounts and sign-in by identity, the rest by the platform.
    area: ({ id }) => (id.startsWith('kernel.') ? 'compute' : /^(identity|auth)\./.test(id) ? 'identity' : 'platform'),
    idPattern: /^[a-z]+\.[a-z][A-Za-z]*$/,
    passThroughOutputs: ['catalog.getOpenapi', 'http.call'],
  });

  it('declares the non-JSON answers with their content types', () => {
    expect(find('platform.getMetrics').response).toEqual({ kind: 'raw', contentType: 'text/plain; version=0.0.4; charset=utf-8' });
    expect(find('platform.getConformanceBadge').response).toEqual({ kind: 'raw', contentType: 'image/svg+xml' });
    expect(find('kernel.getPrompt').response).toMatchObject({ kind: 'raw', contentType: expect.stringMatching(/^text\//) });
  });

  it('refuses a login without a valid e-mail address', () => {
    const input = find('auth.login').input;
    expect(input.safeParse({ email: 'ada@example.org' }).success).toBe(true);
    expect(input.safeParse({ email: 'not-an-address' }).success).toBe(false);
    expect(input.safeParse({}).success).toBe(false);
  });
});
