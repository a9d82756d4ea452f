import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { mintKey, type TestServer } from '../helpers/server.js';
import { serverForTest, useServer } from '../helpers/use-server.js';

const NOON = Date.parse('2026-04-24T12:00:00.000Z');
const clock = createFakeClock(NOON);

const server = useServer({}, clock);

const ask = (s: TestServer, key: string | undefined, content: string, extra: Record<string, unknown> = {}) =>
  s.call('POST', '/api/chat/free', { ...(key ? { key } : {}), body: { messages: [{ role: 'user', content }], ...extra } });

describe('free chat with the local assistant (chat.complete)', () => {
  it('answers in the OpenAI chat.completion shape with the quota after the call', async () => {
    const { key } = await mintKey(server);
    const res = await ask(server, key, 'How do I deploy a contract to my machine?');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'chat.completion', model: 'core-local', created: Math.floor(NOON / 1000) });
    expect(res.body.id).toMatch(/^chatcmpl-/);
    expect(res.body.choices).toHaveLength(1);
    expect(res.body.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant' } });
    const u = res.body.usage;
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
    expect(res.body.quota).toMatchObject({ used: 1, limit: 10, remaining: 9, resets_at: '2026-04-25T00:00:00.000Z' });
  });

  it('grounds its answer in the catalogue, the operators and the kernel prompt, the same way every time', async () => {
    const { key } = await mintKey(server);
    const contracts = (await ask(server, key, 'How do I deploy a contract to my machine?')).body.choices[0].message.content as string;
    expect(contracts).toMatch(/`POST \/api\/chain\/\{slug\}\/contracts[^`]*`/);
    const physics = (await ask(server, key, "Which operator gives force from mass and acceleration, Newton's second law? Is NM19 it?")).body.choices[0].message
      .content as string;
    expect(physics).toContain('NM19');
    expect(physics).toContain('POST /api/compute');
    const receipts = (await ask(server, key, 'Should I report the receipt and the error estimate with computed numbers?')).body.choices[0].message
      .content as string;
    expect(receipts).toContain('From the kernel prompt');
    expect(
      (await ask(server, key, "Which operator gives force from mass and acceleration, Newton's second law? Is NM19 it?")).body.choices[0].message.content,
    ).toBe(physics);
  });

  it('says plainly when nothing on the server matches', async () => {
    const { key } = await mintKey(server);
    const res = await ask(server, key, 'qwxz plokm');
    expect(res.body.choices[0].message.content).toContain('I found nothing');
  });

  it('cuts the answer at max_tokens and says so with finish_reason length', async () => {
    const { key } = await mintKey(server);
    const res = await ask(server, key, 'How do I deploy a contract to my machine?', { max_tokens: 5 });
    expect(res.body.choices[0].finish_reason).toBe('length');
    expect(res.body.choices[0].message.content.length).toBeLessThanOrEqual(20);
  });

  it('refuses a streaming request and an empty conversation with 400, and a call without a key with 401', async () => {
    const { key } = await mintKey(server);
    expect((await ask(server, key, 'hi', { stream: true })).status).toBe(400);
    expect((await server.call('POST', '/api/chat/free', { key, body: { messages: [] } })).status).toBe(400);
    expect((await ask(server, undefined, 'hi')).status).toBe(401);
  });
});

describe('free chat quota (chat.getQuota)', () => {
  it('allows 10 answers per caller per UTC day, refuses the 11th with 429 and resets at midnight', async () => {
    const { key } = await mintKey(server);
    const other = await mintKey(server);
    expect((await server.call('GET', '/api/chat/free/quota', { key })).body).toMatchObject({ used: 0, limit: 10, remaining: 10 });
    for (let i = 0; i < 10; i++) expect((await ask(server, key, `question ${i} about machines`)).status).toBe(200);
    const over = await ask(server, key, 'one more about machines');
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('QUOTA_EXCEEDED');
    expect((await server.call('GET', '/api/chat/free/quota', { key })).body).toMatchObject({ used: 10, remaining: 0 });
    expect((await ask(server, other.key, 'machines?')).status).toBe(200);
    clock.set(Date.parse('2026-04-25T00:00:01.000Z'));
    expect((await server.call('GET', '/api/chat/free/quota', { key })).body).toMatchObject({ used: 0, remaining: 10, resets_at: '2026-04-26T00:00:00.000Z' });
    expect((await ask(server, key, 'machines again')).status).toBe(200);
    clock.set(NOON);
    expect((await server.call('GET', '/api/chat/free/quota')).status).toBe(401);
  });
});

describe('free chat through an OpenAI-compatible upstream (CORE_CHAT_UPSTREAM)', () => {
  let upstream: Server;
  let url: string;
  const seen: Array<{ auth: string | undefined; body: any }> = [];
  let failNext = false;

  beforeAll(async () => {
    upstream = createServer((req: IncomingMessage, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization, body: JSON.parse(data) });
        if (req.url !== '/v1/chat/completions' || failNext) {
          failNext = false;
          res.writeHead(500).end('{}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            model: 'tiny-upstream',
            choices: [{ message: { role: 'assistant', content: 'Use POST /api/compute.' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 42, completion_tokens: 6 },
          }),
        );
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((r) => upstream.close(r));
  });

  it('sends the conversation with the kernel prompt and the retrieved context, and returns the upstream answer', async () => {
    const s = await serverForTest({ CORE_CHAT_UPSTREAM: url, CORE_CHAT_UPSTREAM_KEY: 'upstream-secret' }, createFakeClock(NOON));
    const { key } = await mintKey(s);
    const res = await ask(s, key, 'How do I evaluate NM19?', { model: 'tiny' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: 'tiny-upstream', usage: { prompt_tokens: 42, completion_tokens: 6, total_tokens: 48 }, quota: { used: 1 } });
    expect(res.body.choices[0].message.content).toBe('Use POST /api/compute.');
    const sent = seen.at(-1)!;
    expect(sent.auth).toBe('Bearer upstream-secret');
    expect(sent.body).toMatchObject({ model: 'tiny', stream: false, temperature: 0.7, max_tokens: 4096 });
    expect(sent.body.messages[0].role).toBe('system');
    expect(sent.body.messages[0].content).toContain('Kernel prompt');
    expect(sent.body.messages[0].content).toContain('NM19');
    expect(sent.body.messages.at(-1)).toEqual({ role: 'user', content: 'How do I evaluate NM19?' });

    failNext = true;
    const fallback = await ask(s, key, 'How do I evaluate NM19?');
    expect(fallback.status).toBe(200);
    expect(fallback.body.model).toBe('core-local');
    expect(fallback.body.choices[0].message.content).toContain('NM19');
  });
});
