export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface UpstreamConfig {
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1`. */
  url: string;
  key?: string | undefined;
  /** Model sent when the caller names none; omitted when unset (single-model servers accept that). */
  model?: string | undefined;
  timeoutMs?: number;
}

export interface UpstreamAnswer {
  content: string;
  model: string;
  finish_reason: 'stop' | 'length';
  usage: { prompt_tokens: number; completion_tokens: number } | undefined;
}

interface WireAnswer {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

/**
 * One non-streaming `POST <url>/chat/completions`. Throws on a transport error, a non-2xx status or an
 * answer without a text message; the caller decides what to do then.
 */
export async function askUpstream(
  cfg: UpstreamConfig,
  req: { messages: ChatMessage[]; model?: string | undefined; temperature: number; max_tokens: number },
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const model = req.model ?? cfg.model;
  const res = await fetch(`${cfg.url.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cfg.key ? { authorization: `Bearer ${cfg.key}` } : {}) },
    body: JSON.stringify({ ...(model ? { model } : {}), messages: req.messages, temperature: req.temperature, max_tokens: req.max_tokens, stream: false }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(cfg.timeoutMs ?? 30_000)]),
  });
  if (!res.ok) throw new Error(`chat upstream answered ${res.status}`);
  const body = (await res.json()) as WireAnswer;
  const choice = body.choices?.[0];
  if (typeof choice?.message?.content !== 'string') throw new Error('chat upstream answered without a message');
  const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
  const prompt = num(body.usage?.prompt_tokens);
  const completion = num(body.usage?.completion_tokens);
  return {
    content: choice.message.content,
    model: typeof body.model === 'string' ? body.model : (model ?? 'upstream'),
    finish_reason: choice.finish_reason === 'length' ? 'length' : 'stop',
    usage: prompt !== undefined && completion !== undefined ? { prompt_tokens: prompt, completion_tokens: completion } : undefined,
  };
}
