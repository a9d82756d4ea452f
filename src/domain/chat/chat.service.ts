import { randomUUID } from 'node:crypto';
import { CoreError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { composeAnswer, retrieve, type ChatSources, type Grounding } from './chat-retrieval.js';
import { askUpstream, type ChatMessage, type UpstreamConfig } from './chat-upstream.js';
import type { ChatQuotaRepository } from './chat-quota-repository.js';

/** Chats per caller per UTC day. */
export const DAILY_CHATS = 10;
/** Only the last messages of a conversation are used, as the public endpoint does. */
const MAX_MESSAGES = 20;
export const LOCAL_MODEL = 'core-local';

export interface ChatRequest {
  messages: ChatMessage[];
  model?: string | undefined;
  temperature: number;
  max_tokens: number;
}

export interface ChatDeps {
  chatQuotas: ChatQuotaRepository;
  clock: Clock;
  sources: ChatSources;
  upstream?: UpstreamConfig | undefined;
  dailyLimit?: number;
  onUpstreamError?: (err: unknown) => void;
}

export type ChatService = ReturnType<typeof createChatService>;

/** Rough token count (about 4 characters a token), enough for usage figures and the max_tokens cut. */
const tokensOf = (text: string) => Math.ceil(text.length / 4);

/**
 * Free chat. The local assistant is deterministic: it retrieves operations, operators, templates and
 * kernel-prompt passages matching the last user message and answers with them, so the same question
 * gets the same answer and every claim points at something the server really has. With an upstream
 * configured (`CORE_CHAT_UPSTREAM`), the upstream answers instead, given the kernel prompt and the same
 * retrieved context as a system message; if it fails, the local assistant answers (model `core-local`).
 * Each caller has `DAILY_CHATS` answers per UTC day; a refused or failed call costs nothing.
 */
export function createChatService(deps: ChatDeps) {
  const { clock, sources } = deps;
  const { chatQuotas } = deps;
  const limit = deps.dailyLimit ?? DAILY_CHATS;

  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const resetsAt = (ms: number) => new Date(Date.parse(`${dayOf(ms)}T00:00:00.000Z`) + 86_400_000).toISOString();
  const quotaView = (used: number, ms: number) => ({ used, limit, remaining: Math.max(0, limit - used), resets_at: resetsAt(ms) });

  async function take(uid: string, ms: number): Promise<number> {
    const used = await chatQuotas.take(uid, dayOf(ms), limit);
    if (used === undefined) {
      throw new CoreError('QUOTA_EXCEEDED', `The free chat allows ${limit} answers a day; the quota resets at ${resetsAt(ms)}`, quotaView(limit, ms));
    }
    return used;
  }

  function local(question: string, g: Grounding, maxTokens: number) {
    const full = composeAnswer(question, g);
    const cut = full.length > maxTokens * 4;
    return {
      content: cut ? full.slice(0, maxTokens * 4) : full,
      model: LOCAL_MODEL,
      finish_reason: cut ? ('length' as const) : ('stop' as const),
      usage: undefined,
    };
  }

  function groundingMessage(g: Grounding): ChatMessage {
    const kernel = (sources.kernelPrompt() ?? '').slice(0, 8000);
    return {
      role: 'system',
      content: `${kernel}\n\nAnswer from what this server offers. Retrieved for this question:\n\n${composeAnswer('this question', g)}`,
    };
  }

  return {
    async quota(uid: string) {
      const ms = clock.now();
      return { ok: true as const, ...quotaView(await chatQuotas.usedOn(uid, dayOf(ms)), ms) };
    },

    async complete(uid: string, req: ChatRequest, signal: AbortSignal) {
      const ms = clock.now();
      const used = await take(uid, ms);
      const messages = req.messages.slice(-MAX_MESSAGES);
      const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? messages[messages.length - 1]!.content;
      let answer;
      try {
        const g = retrieve(sources, question);
        answer = local(question, g, req.max_tokens);
        if (deps.upstream) {
          try {
            answer = await askUpstream(deps.upstream, { ...req, messages: [groundingMessage(g), ...messages] }, signal);
          } catch (err) {
            deps.onUpstreamError?.(err);
          }
        }
      } catch (err) {
        await chatQuotas.giveBack(uid, dayOf(ms));
        throw err;
      }
      const prompt = answer.usage?.prompt_tokens ?? messages.reduce((n, m) => n + tokensOf(m.content), 0);
      const completion = answer.usage?.completion_tokens ?? tokensOf(answer.content);
      return {
        ok: true as const,
        id: `chatcmpl-${randomUUID()}`,
        object: 'chat.completion' as const,
        created: Math.floor(ms / 1000),
        model: answer.model,
        choices: [{ index: 0, message: { role: 'assistant' as const, content: answer.content }, finish_reason: answer.finish_reason }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        quota: quotaView(used, ms),
      };
    },
  };
}
