import { describe, it, expect } from 'vitest';
import { tallyTool } from '../../../tools/economy/tally.tool.js';
import { creditsTool } from '../../../tools/economy/credits.tool.js';
import { contributeTool } from '../../../tools/economy/contribute.tool.js';
import { describeToolset, findAction } from './toolset-checks.js';

const tools = [tallyTool, creditsTool, contributeTool];

describe('economy toolset declarations', () => {
  describeToolset('economy', tools, {
    tools: ['core_tally', 'core_credits', 'core_contribute'],
    // The spec operations of the area; the token owner operations need the owner role.
    operations: [
      'GET /api/chain/{slug}/tally/mint-rate public',
      'POST /api/chain/{slug}/tally/mint-rate bearer owner',
      'GET /api/chain/{slug}/tally/supply public',
      'GET /api/chain/{slug}/tally/token public',
      'GET /api/chain/{slug}/tally/token/{tokenId} public',
      'GET /api/chain/{slug}/tally/token/avatar public',
      'POST /api/chain/{slug}/tally/token/avatar public owner',
      'POST /api/chain/{slug}/tally/token/genesis public owner',
      'GET /api/chain/{slug}/tally/tokens public',
      'POST /api/chain/{slug}/tally/verify public',
      'POST /api/credits/claim bearer',
      'GET /api/credits/conversion bearer',
      'POST /api/credits/convert bearer',
      'POST /api/credits/peer/conversion public',
      'POST /api/credits/peer/convert public',
      'GET /api/credits/status bearer',
      'POST /api/contribute/bond bearer',
      'GET /api/contribute/census public',
      'POST /api/contribute/heartbeat bearer',
      'POST /api/contribute/mode bearer',
      'GET /api/contribute/policy public',
      'POST /api/contribute/release bearer',
      'GET /api/contribute/status bearer',
    ],
    area: 'economy',
  });

  it('refuses a conversion without an idempotency key and accepts one with it', () => {
    const input = findAction(tools, 'credits.convert').input;
    expect(input.safeParse({ credits: 10 }).success).toBe(false);
    expect(input.safeParse({ credits: 10, idempotency_key: 'convert-0001' }).success).toBe(true);
    expect(input.safeParse({ credits: -1, idempotency_key: 'convert-0001' }).success).toBe(false);
  });
});
