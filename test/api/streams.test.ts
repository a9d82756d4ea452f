import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMachine, mintKey, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';
import { openSse as openStream } from '../helpers/sse.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup() {
  const server = await serverForTest();
  const owner = await mintKey(server);
  const make = async (slug: string, isPublic: boolean) => {
    await createMachine(server, owner.key, { slug, isPublic });
  };
  const write = async (slug: string, n = 1) => {
    for (let i = 0; i < n; i++) {
      const res = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'tick', payload: { i } } });
      expect(res.status).toBe(200);
    }
  };
  return { server, owner, make, write };
}

const openSse = (server: TestServer, path: string, headers: Record<string, string> = {}) => openStream(`${server.url}${path}`, headers);

describe('explore/sse', () => {
  it('pushes each new row of a public machine to an anonymous reader, with the row seq as id', async () => {
    const t = await setup();
    await t.make('live-pub', true);
    const sse = await openSse(t.server, '/api/chain/live-pub/explore/sse');
    expect(sse.res.status).toBe(200);
    expect(sse.res.headers.get('content-type')).toMatch(/text\/event-stream/);
    await t.write('live-pub', 3);
    await sse.until(3);
    expect(sse.events.map((e) => e.id)).toEqual(['1', '2', '3']);
    expect(sse.events.every((e) => e.event === 'audit.appended')).toBe(true);
    const row = JSON.parse(sse.events[0]!.data);
    expect(row).toMatchObject({ seq: 1, type: 'tick', id: 'live-pub:1' });
    expect(sse.comments).toContain('connected');
  });

  it('replays what a client missed after Last-Event-ID, then continues live without gaps or duplicates', async () => {
    const t = await setup();
    await t.make('resume-me', true);
    await t.write('resume-me', 4);
    const sse = await openSse(t.server, '/api/chain/resume-me/explore/sse', { 'Last-Event-ID': '1' });
    await sse.until(3);
    await t.write('resume-me', 2);
    await sse.until(5);
    await sse.settle();
    expect(sse.events.map((e) => e.id)).toEqual(['2', '3', '4', '5', '6']);
  });

  it('keeps order across the replay/live boundary while rows are being written', async () => {
    const t = await setup();
    await t.make('busy', true);
    await t.write('busy', 3);
    const writing = Promise.all(
      Array.from({ length: 20 }, (_, i) => t.server.call('POST', '/api/chain/busy/event', { key: t.owner.key, body: { type: 'burst', payload: { i } } })),
    );
    const sse = await openSse(t.server, '/api/chain/busy/explore/sse', { 'Last-Event-ID': 'busy:0' });
    await writing;
    await sse.until(23);
    await sse.settle();
    expect(sse.events.map((e) => Number(e.id))).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
  });

  it('answers 404 to a stranger on a private machine and streams it to its owner', async () => {
    const t = await setup();
    await t.make('private-feed', false);
    const stranger = await mintKey(t.server);
    expect((await t.server.call('GET', '/api/chain/private-feed/explore/sse')).status).toBe(404);
    expect((await t.server.call('GET', '/api/chain/private-feed/explore/sse', { key: stranger.key })).status).toBe(404);
    const sse = await openSse(t.server, '/api/chain/private-feed/explore/sse', { authorization: `Bearer ${t.owner.key}` });
    await t.write('private-feed');
    await sse.until(1);
    expect(sse.events[0]!.id).toBe('1');
  });
});

describe('visibility changes', () => {
  it('stops both feeds for a machine that turns private while anonymous readers are connected', async () => {
    const t = await setup();
    await t.make('turns-private', true);
    const explore = await openSse(t.server, '/api/chain/turns-private/explore/sse');
    const aggregate = await openSse(t.server, '/api/chain/aggregate/sse');
    await t.write('turns-private');
    await explore.until(1);
    await aggregate.until(1);
    const res = await t.server.call('PATCH', '/api/chain/turns-private/settings', { key: t.owner.key, body: { is_public: false } });
    expect(res.status).toBe(200);
    await t.write('turns-private', 2);
    await explore.settle();
    const ids = (events: Array<{ id?: string | undefined }>) => events.map((e) => e.id);
    // The settings row was written while the machine was public; the rows after it are not delivered,
    // and the explore stream ends with the reason (the aggregate feed just stops carrying the machine).
    await explore.ended;
    expect(explore.events[explore.events.length - 1]?.event).toBe('access.revoked');
    expect(ids(explore.events.slice(0, -1)).every((id) => Number(id) <= 2)).toBe(true);
    expect(ids(aggregate.events).every((id) => Number(id!.split(':')[1]) <= 2)).toBe(true);
  });
});

describe('aggregate/sse', () => {
  it('streams rows of public machines only, ids slug:seq, and resumes after Last-Event-ID', async () => {
    const t = await setup();
    await t.make('agg-pub', true);
    await t.make('agg-priv', false);
    const sse = await openSse(t.server, '/api/chain/aggregate/sse');
    await t.write('agg-priv', 2);
    await t.write('agg-pub', 2);
    await t.write('agg-priv', 1);
    await sse.until(2);
    await sse.settle();
    expect(sse.events.map((e) => e.id)).toEqual(['agg-pub:1', 'agg-pub:2']);
    expect(sse.events.map((e) => JSON.parse(e.data).slug)).toEqual(['agg-pub', 'agg-pub']);
    sse.close();

    await t.write('agg-pub', 1);
    const resumed = await openSse(t.server, '/api/chain/aggregate/sse', { 'Last-Event-ID': 'agg-pub:1' });
    await resumed.until(2);
    await t.write('agg-pub', 1);
    await resumed.until(3);
    await resumed.settle();
    expect(resumed.events.map((e) => e.id)).toEqual(['agg-pub:2', 'agg-pub:3', 'agg-pub:4']);
  });
});

describe('core_stream over MCP', () => {
  it('collects up to max_events rows and resumes from last_event_id', async () => {
    const t = await setup();
    await t.make('mcp-feed', true);
    await t.write('mcp-feed', 5);
    const transport = new StreamableHTTPClientTransport(new URL(`${t.server.url}/api/mcp`));
    const client = new Client({ name: 'streams-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const first = await client.callTool({
      name: 'core_stream',
      arguments: { action: 'explore', slug: 'mcp-feed', last_event_id: '0', max_events: 3, max_ms: 60_000 },
    });
    const got = first.structuredContent as { ok: boolean; complete: boolean; events: Array<{ id: string; event: string }> };
    expect(got).toMatchObject({ ok: true, complete: true });
    expect(got.events.map((e) => e.id)).toEqual(['1', '2', '3']);
    const next = await client.callTool({
      name: 'core_stream',
      // Fewer events than asked for: the call ends at max_ms, which must leave room for the replay on a
      // loaded machine (it is the only wait in this call).
      arguments: { action: 'explore', slug: 'mcp-feed', last_event_id: '3', max_events: 10, max_ms: 5000 },
    });
    const rest = next.structuredContent as { complete: boolean; events: Array<{ id: string }> };
    expect(rest.complete).toBe(false);
    expect(rest.events.map((e) => e.id)).toEqual(['4', '5']);
    const hidden = await client.callTool({ name: 'core_stream', arguments: { action: 'aggregate', max_events: 1, max_ms: 200 } });
    expect(hidden.isError).toBeFalsy();
  });
});
