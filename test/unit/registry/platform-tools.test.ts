import { describe, it, expect } from 'vitest';
import { pulseTool } from '../../../tools/platform/pulse.tool.js';
import { kernelTool } from '../../../tools/platform/kernel.tool.js';
import { accountTool } from '../../../tools/platform/account.tool.js';
import { authTool } from '../../../tools/platform/auth.tool.js';
import { describeToolset, findAction } from './toolset-checks.js';

const tools = [pulseTool, kernelTool, accountTool, authTool];
const find = (id: string) => findAction(tools, id);

describe('platform toolset declarations', () => {
  describeToolset('platform', tools, {
    tools: ['core_pulse', 'core_kernel', 'core_account', 'core_auth'],
    operations: [
      'GET /api/pulse public',
      'GET /api/health public',
      'GET /api/status public',
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
  });

  it('declares the non-JSON answers with their content types', () => {
    expect(find('platform.getMetrics').produces).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(find('platform.getConformanceBadge').produces).toBe('image/svg+xml');
    expect(find('kernel.getPrompt').produces).toMatch(/^text\//);
  });

  it('refuses a login without a valid e-mail address', () => {
    const input = find('auth.login').input;
    expect(input.safeParse({ email: 'ada@example.org' }).success).toBe(true);
    expect(input.safeParse({ email: 'not-an-address' }).success).toBe(false);
    expect(input.safeParse({}).success).toBe(false);
  });
});
