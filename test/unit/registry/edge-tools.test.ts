import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { threatFeedTool } from '../../../tools/edge/threat-feed.tool.js';
import { cdnSitesTool } from '../../../tools/edge/cdn-sites.tool.js';
import { chatTool } from '../../../tools/edge/chat.tool.js';
import { describeToolset, findAction } from './toolset-checks.js';

const tools = [threatFeedTool, cdnSitesTool, chatTool];
const find = (id: string) => findAction(tools, id);

describe('edge toolset declarations', () => {
  describeToolset('edge', tools, {
    tools: ['core_threat_feed', 'core_cdn_sites', 'core_chat'],
    operations: [
      'POST /api/av/claim bearer operator',
      'GET /api/av/devices bearer viewer',
      'POST /api/av/devices bearer admin',
      'GET /api/av/mesh-feed public',
      'GET /api/av/threats public',
      'GET /api/cf/sites public',
      'POST /api/cf/sites public admin',
      'GET /api/cf/sites/{id} public',
      'GET /api/cf/sites/{id}/analytics public',
      'POST /api/cf/sites/{id}/purge public admin',
      'POST /api/cf/sites/{id}/rules public admin',
      'DELETE /api/cf/sites/{id}/rules/{rule_id} public admin',
      'POST /api/chat/free bearer',
      'GET /api/chat/free/quota bearer',
    ],
    area: 'edge',
  });

  it('makes every site write name the machine slug and need admin on it', () => {
    for (const id of ['cdn.registerSite', 'cdn.upsertRule', 'cdn.deleteRule', 'cdn.purge']) {
      const action = find(id);
      expect(action.role).toBe('admin');
      const input = z.toJSONSchema(action.input, { io: 'input' }) as { required?: string[] };
      expect(input.required ?? []).toContain('slug');
    }
  });

  it('accepts only the three analytics windows and a threat window like 24h', () => {
    const analytics = find('cdn.getAnalytics').input;
    expect(analytics.safeParse({ id: 's1', window: '7d' }).success).toBe(true);
    expect(analytics.safeParse({ id: 's1', window: '30d' }).success).toBe(false);
    const threats = find('threat.listThreats').input;
    expect(threats.safeParse({ slug: 'lab', window: '24h' }).success).toBe(true);
    expect(threats.safeParse({ slug: 'lab', window: 'yesterday' }).success).toBe(false);
  });

  it('refuses a streaming chat request, which this tool cannot deliver', () => {
    const input = find('chat.complete').input;
    const messages = [{ role: 'user', content: 'How do I deploy a contract?' }];
    expect(input.safeParse({ messages }).success).toBe(true);
    expect(input.safeParse({ messages, stream: true }).success).toBe(false);
  });
});
