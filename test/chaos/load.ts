import { randomBytes } from 'node:crypto';
import { createParser } from 'eventsource-parser';

/** Status 0 stands for no HTTP answer at all (connection refused or reset: a killed process). */
export const NO_ANSWER = 0;

/** Answers by status; a `window` counts the same from when it was opened until it is closed. */
export class Tally {
  readonly byStatus = new Map<number, number>();
  private readonly windows = new Set<Tally>();
  add(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    for (const w of this.windows) w.add(status);
  }
  count(status: number): number {
    return this.byStatus.get(status) ?? 0;
  }
  get total(): number {
    return [...this.byStatus.values()].reduce((a, b) => a + b, 0);
  }
  get ok(): number {
    return [...this.byStatus].filter(([s]) => s >= 200 && s < 300).reduce((a, [, n]) => a + n, 0);
  }
  window(): Tally & { close(): void } {
    const w = new Tally();
    this.windows.add(w);
    return Object.assign(w, { close: () => void this.windows.delete(w) });
  }
  summary(): string {
    return [...this.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s === NO_ANSWER ? 'no answer' : s}: ${n}`)
      .join(', ');
  }
}

/** One JSON request; never throws: a transport failure is status 0. Counted in `tally`. */
export async function call(
  tally: Tally | undefined,
  url: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  let status: number;
  let parsed: any;
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(60_000),
    });
    status = res.status;
    const text = await res.text();
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
  } catch {
    status = NO_ANSWER;
  }
  tally?.add(status);
  return { status, body: parsed };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A random 64-hex event hash: the row carries it as `payload_digest`, so an acknowledged write can be found again. */
export const freshDigest = () => randomBytes(32).toString('hex');

/** Appenders: one loop per (process, machine), each appending events one after another until stopped. */
export function startAppenders(opts: { tally: Tally; urls: () => string[]; slugs: string[]; key: string; gapMs: number }) {
  /** Digests of the appends that got a 2xx, per machine: these must all be in the chain. */
  const acked = new Map<string, Set<string>>(opts.slugs.map((s) => [s, new Set<string>()]));
  /** Where each acknowledged append was said to land (process, seq, state hash), to tell what happened to a lost one. */
  const receipts = new Map<string, string>();
  /** Digests of appends answered otherwise (refused or unknown outcome). */
  const refused = new Map<string, Set<string>>(opts.slugs.map((s) => [s, new Set<string>()]));
  let stopped = false;
  const loops: Promise<void>[] = [];
  const processes = opts.urls().length;
  for (let p = 0; p < processes; p++) {
    for (const slug of opts.slugs) {
      loops.push(
        (async () => {
          while (!stopped) {
            const hash = freshDigest();
            const res = await call(opts.tally, opts.urls()[p]!, 'POST', `/api/chain/${slug}/event`, opts.key, { type: 'chaos', hash });
            (res.status >= 200 && res.status < 300 ? acked : refused).get(slug)!.add(hash);
            if (res.status >= 200 && res.status < 300) receipts.set(hash, `p${p} seq ${res.body?.seq} state_hash ${res.body?.state_hash}`);
            await pause(opts.gapMs);
          }
        })(),
      );
    }
  }
  return {
    acked,
    refused,
    receipts,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Readiness probes on every process, a few per second; each answer is kept with the phase it fell in. */
export function startProbes(urls: () => string[], gapMs = 100) {
  const answers: Array<{ process: number; status: number; phase: string }> = [];
  let phase = 'start';
  let stopped = false;
  const loops = urls().map(async (_, p) => {
    while (!stopped) {
      const res = await call(undefined, urls()[p]!, 'GET', '/api/health/ready');
      answers.push({ process: p, status: res.status, phase });
      await pause(gapMs);
    }
  });
  return {
    answers,
    setPhase: (name: string) => void (phase = name),
    /** Statuses seen in `name` per process. */
    statuses: (name: string, p: number) => answers.filter((a) => a.phase === name && a.process === p).map((a) => a.status),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * An SSE subscriber to one machine's stream on one process. Like a browser's EventSource it reconnects
 * when the stream ends (a killed process), sending the last seq it got as `Last-Event-ID`.
 */
export function subscribe(url: () => string, slug: string, key: string) {
  const seqs: number[] = [];
  let lastId: string | undefined;
  let controller = new AbortController();
  let closed = false;
  let connects = 0;
  let opened!: () => void;
  const first = new Promise<void>((resolve) => (opened = resolve));
  const loop = (async () => {
    while (!closed) {
      controller = new AbortController();
      try {
        const res = await fetch(`${url()}/api/chain/${slug}/explore/sse`, {
          headers: { authorization: `Bearer ${key}`, ...(lastId !== undefined ? { 'last-event-id': lastId } : {}) },
          signal: controller.signal,
        });
        if (res.ok && res.body) {
          connects++;
          opened();
          const parser = createParser({
            onEvent: (event) => {
              if (event.event !== 'audit.appended') return;
              seqs.push((JSON.parse(event.data) as { seq: number }).seq);
              if (event.id !== undefined) lastId = event.id;
            },
          });
          const decoder = new TextDecoder();
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
        } else {
          await res.body?.cancel();
        }
      } catch {
        /* refused, reset or aborted: try again */
      }
      if (!closed) await pause(200);
    }
  })();
  return {
    slug,
    seqs,
    connects: () => connects,
    /** Resolves once the first connection is open (the stream starts at the head then). */
    opened: first,
    async close() {
      closed = true;
      controller.abort();
      await loop;
    },
  };
}

export type Subscriber = ReturnType<typeof subscribe>;

/** How an MCP `tools/call` was answered: served, refused as unavailable (what an outage must answer), or otherwise. */
export type McpAnswer = 'ok' | 'unavailable' | 'no answer' | 'hang' | 'other';

/** A limit on one MCP call that only catches a hang: a store call fails as unavailable within its 5 s connect timeout. */
const MCP_HANG_MS = 30_000;

/** One stateless MCP `tools/call` (JSON answer), classified; `detail` says what an `other` answer was. */
export async function mcpCall(url: string, key: string, name: string, args: Record<string, unknown>): Promise<{ kind: McpAnswer; detail: string }> {
  let res: Response;
  try {
    res = await fetch(`${url}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      signal: AbortSignal.timeout(MCP_HANG_MS),
    });
  } catch (error) {
    return { kind: (error as Error).name === 'TimeoutError' ? 'hang' : 'no answer', detail: String(error) };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    return { kind: (error as Error).name === 'TimeoutError' ? 'hang' : 'no answer', detail: String(error) };
  }
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'other', detail: `${res.status} ${text.slice(0, 200)}` };
  }
  const detail = `${res.status} ${text.slice(0, 200)}`;
  // Refused before the tool ran (the key could not be read): a JSON-RPC error saying UNAVAILABLE.
  if (body?.error !== undefined)
    return { kind: typeof body.error.message === 'string' && body.error.message.startsWith('UNAVAILABLE') ? 'unavailable' : 'other', detail };
  if (res.status !== 200 || body?.result === undefined) return { kind: 'other', detail };
  if (body.result.isError !== true) return { kind: 'ok', detail };
  return { kind: body.result.structuredContent?.error?.code === 'UNAVAILABLE' ? 'unavailable' : 'other', detail };
}

/**
 * MCP probes on every process: `core_machines` `get` of one of the caller's machines (a store read on
 * every call; `fleet` is cached per tick and would answer through an outage), each answer kept with its phase.
 */
export function startMcpProbes(urls: () => string[], key: string, slug: string, gapMs = 250) {
  const answers: Array<{ process: number; kind: McpAnswer; detail: string; phase: string }> = [];
  let phase = 'start';
  let stopped = false;
  const loops = urls().map(async (_, p) => {
    while (!stopped) {
      const answer = await mcpCall(urls()[p]!, key, 'core_machines', { action: 'get', slug });
      answers.push({ process: p, ...answer, phase });
      await pause(gapMs);
    }
  });
  return {
    answers,
    setPhase: (name: string) => void (phase = name),
    /** Answers of the fault `name` (during it and after it, until the next fault). */
    of: (name: string) => answers.filter((a) => a.phase === name || a.phase === `${name}/after`),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
