import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { IsoDate, NoInput } from '../../src/registry/common-schemas.js';
import type { ChatMessage as UpstreamChatMessage } from '../../src/domain/chat/chat-upstream.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const ChatMessage = wireShape<UpstreamChatMessage>()(
  z.object({
    role: z.enum(['system', 'user', 'assistant']),
    content: z.string().max(32_000),
  }),
);

const Quota = z.object({
  used: z.number().int().min(0).describe('Chats used today'),
  limit: z.number().int().min(0).describe('Chats allowed per day'),
  remaining: z.number().int().min(0),
  resets_at: IsoDate.describe('When the daily quota resets'),
});

export const chatTool = defineTool({
  name: 'core_chat',
  toolset: 'edge',
  title: 'Free chat',
  description:
    "A chat assistant that knows this service. It has a daily quota, is OpenAI-shaped and grounded in this server's catalogue, operators, contract templates and kernel prompt. Use it to ask how to do something with the service.",
  actions: [
    defineAction({
      id: 'chat.complete',
      action: 'complete',
      method: 'POST',
      path: '/api/chat/free',
      auth: 'bearer',
      area: 'edge',
      summary: 'Answers a conversation. Returns one assistant message (an OpenAI chat.completion); counts against the daily quota.',
      input: z.object({
        messages: z.array(ChatMessage).min(1).max(100).describe('OpenAI-shaped conversation, oldest first; only the last 20 are used'),
        model: z.string().max(128).optional().describe('Model name; the local assistant when absent'),
        temperature: z.number().min(0).max(2).default(0.7),
        max_tokens: z.number().int().min(1).max(4096).default(4096),
        stream: z.literal(false).optional().describe('Not offered'),
      }),
      output: z.object({
        ok: z.literal(true),
        id: z.string(),
        object: z.literal('chat.completion'),
        created: z.number().int().describe('Unix seconds'),
        model: z.string(),
        choices: z.array(
          z.object({
            index: z.number().int().min(0),
            message: z.object({ role: z.literal('assistant'), content: z.string() }),
            finish_reason: z.enum(['stop', 'length']),
          }),
        ),
        usage: z.object({
          prompt_tokens: z.number().int().min(0),
          completion_tokens: z.number().int().min(0),
          total_tokens: z.number().int().min(0),
        }),
        quota: Quota,
      }),
      handler: async (input, { services, caller, signal }) => services.chat.complete(caller.uid!, input, signal),
    }),
    defineAction({
      id: 'chat.getQuota',
      action: 'quota',
      method: 'GET',
      path: '/api/chat/free/quota',
      auth: 'bearer',
      area: 'edge',
      summary: 'Reads your chat quota for today: used, limit, remaining and reset time.',
      input: NoInput,
      output: z.object({ ok: z.literal(true), ...Quota.shape }),
      idempotent: true,
      handler: async (_input, { services, caller }) => services.chat.quota(caller.uid!),
    }),
  ],
});
