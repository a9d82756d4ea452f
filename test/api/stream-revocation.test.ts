import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, type Clock } from '../../src/lib/clock.js';
import { mintKey, type TestServer } from '../helpers/server.js';
import { serverForTest } from '../helpers/use-server.js';
import { openSse, type OpenSse } from '../helpers/sse.js';

/**
 * Authorization follows the data: a stream opened while its receiver could read the machine ends, with
 * a final `access.revoked` event, once that right is gone, and nothing written afterwards reaches it.
 * No sleeps: each test waits for the final event (or the end of the call) the revocation causes.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(clock?: Clock) {
  const server = await serverForTest({}, clock);
  const owner = await mintKey(server);
  const make = async (slug: string, isPublic: boolean) => {
    const res = await server.call('POST', '/api/chain/state-machines', { key: owner.key, body: { slug, is_public: isPublic } });
    expect(res.status).toBe(200);
    return res.body as { api_key: string; api_key_id: string };
  };
  const write = async (slug: string, n = 1) => {
    for (let i = 0; i < n; i++) {
      const res = await server.call('POST', `/api/chain/${slug}/event`, { key: owner.key, body: { type: 'tick', payload: { i } } });
      expect(res.status).toBe(200);
    }
  };
  const sse = (path: string, headers: Record<string, string> = {}) => openSse(`${server.url}${path}`, headers);
  return { server, owner, make, write, sse };
}

/** Waits for the server to end the stream; asserts it ended with `access.revoked` and only rows before it. */
async function revokedEnd(stream: OpenSse, code: string): Promise<number[]> {
  await hangGuard(stream.ended, 'the stream was not ended');
  const last = stream.events[stream.events.length - 1];
  expect(last?.event).toBe('access.revoked');
  expect(JSON.parse(last!.data)).toMatchObject({ code });
  const rows = stream.events.slice(0, -1);
  expect(rows.every((e) => e.event === 'audit.appended')).toBe(true);
  return rows.map((e) => Number(e.id));
}

/** Fails after 60 s: only to catch a hang, never to wait for something to happen. */
function hangGuard<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within 60 s`)), 60_000);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** Resolves once the next stream the pipeline hands out has been opened by its transport. */
function nextStreamOpened(server: TestServer): Promise<void> {
  const guard = server.core.services.deliveryGuard;
  const original = guard.guard;
  return new Promise((resolve) => {
    guard.guard = (source, target) => {
      guard.guard = original;
      const wrapped = original(source, target);
      return {
        open(push, lastEventId, end) {
          const stop = wrapped.open(push, lastEventId, end);
          resolve();
          return stop;
        },
      };
    };
  });
}

const rowTypes = (server: TestServer, slug: string, key: string) =>
  server.call('GET', `/api/chain/${slug}/activity?limit=100`, { key }).then((r) => r.body.rows as Array<{ seq: number; type: string }>);

describe('explore/sse across revocation', () => {
  it('ends the stream of a share-token holder when the share token is disabled', async () => {
    const t = await setup();
    await t.make('shared-feed', false);
    const share = await t.server.call('POST', '/api/chain/state-machines/shared-feed/share/set', { key: t.owner.key, body: {} });
    expect(share.status).toBe(200);
    const stream = await t.sse('/api/chain/shared-feed/explore/sse', { 'X-Share-Token': share.body.share_token });
    expect(stream.res.status).toBe(200);
    await t.write('shared-feed');
    await stream.until(1);
    expect((await t.server.call('POST', '/api/chain/state-machines/shared-feed/share/disable', { key: t.owner.key, body: {} })).status).toBe(200);
    await t.write('shared-feed', 2);
    const seqs = await revokedEnd(stream, 'NOT_FOUND');
    const disabledAt = (await rowTypes(t.server, 'shared-feed', t.owner.key)).find((r) => r.type === 'machine.share_disabled')!.seq;
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs.every((seq) => seq < disabledAt)).toBe(true);
    expect((await t.server.call('GET', '/api/chain/shared-feed/explore/sse', { headers: { 'X-Share-Token': share.body.share_token } })).status).toBe(404);
  });

  it('ends the stream of a member when the member is removed', async () => {
    const t = await setup();
    await t.make('crew-feed', false);
    const member = await mintKey(t.server);
    expect((await t.server.call('POST', '/api/chain/crew-feed/admins', { key: t.owner.key, body: { uid: member.uid, role: 'viewer' } })).status).toBe(200);
    const stream = await t.sse('/api/chain/crew-feed/explore/sse', { authorization: `Bearer ${member.key}` });
    await t.write('crew-feed');
    await stream.until(1);
    expect((await t.server.call('DELETE', `/api/chain/crew-feed/admins/${member.uid}`, { key: t.owner.key })).status).toBe(200);
    await t.write('crew-feed', 2);
    const seqs = await revokedEnd(stream, 'NOT_FOUND');
    const removedAt = (await rowTypes(t.server, 'crew-feed', t.owner.key)).find((r) => r.type === 'admin.revoked')!.seq;
    expect(seqs.every((seq) => seq < removedAt)).toBe(true);
  });

  it('ends the stream of a public reader when the machine is made private', async () => {
    const t = await setup();
    await t.make('goes-dark', true);
    const stream = await t.sse('/api/chain/goes-dark/explore/sse');
    await t.write('goes-dark');
    await stream.until(1);
    expect((await t.server.call('PATCH', '/api/chain/goes-dark/settings', { key: t.owner.key, body: { is_public: false } })).status).toBe(200);
    await t.write('goes-dark', 2);
    const seqs = await revokedEnd(stream, 'NOT_FOUND');
    expect(seqs).toEqual([1]);
  });

  it('ends the stream opened with a developer key when that key is revoked', async () => {
    const t = await setup();
    await t.make('key-feed', false);
    const created = await t.server.call('POST', '/api/chain/key-feed/api-keys', { key: t.owner.key, body: { name: 'reader', scope: 'read' } });
    expect(created.status).toBe(200);
    const stream = await t.sse('/api/chain/key-feed/explore/sse', { authorization: `Bearer ${created.body.api_key}` });
    await t.write('key-feed');
    await stream.until(1);
    expect((await t.server.call('DELETE', `/api/chain/key-feed/api-keys/${created.body.key.id}`, { key: t.owner.key })).status).toBe(200);
    await t.write('key-feed', 2);
    // seq 1 is the key's own api_key.created row; 2 the write before the revocation.
    expect(await revokedEnd(stream, 'UNAUTHENTICATED')).toEqual([2]);
  });

  it('keeps delivering to readers whose right is unchanged when another member is removed', async () => {
    const t = await setup();
    await t.make('stays-open', false);
    const a = await mintKey(t.server);
    const b = await mintKey(t.server);
    for (const m of [a, b]) {
      expect((await t.server.call('POST', '/api/chain/stays-open/admins', { key: t.owner.key, body: { uid: m.uid, role: 'viewer' } })).status).toBe(200);
    }
    const kept = await t.sse('/api/chain/stays-open/explore/sse', { authorization: `Bearer ${a.key}` });
    const cut = await t.sse('/api/chain/stays-open/explore/sse', { authorization: `Bearer ${b.key}` });
    expect((await t.server.call('DELETE', `/api/chain/stays-open/admins/${b.uid}`, { key: t.owner.key })).status).toBe(200);
    await revokedEnd(cut, 'NOT_FOUND');
    await t.write('stays-open', 2);
    await kept.until(3);
    expect(kept.events.map((e) => e.event)).toEqual(['audit.appended', 'audit.appended', 'audit.appended']);
  });

  it('ends a share-token stream at the first delivery after the token expires', async () => {
    const clock = createFakeClock();
    const t = await setup(clock);
    await t.make('expiring', false);
    const expires = new Date(clock.now() + 60_000).toISOString();
    const share = await t.server.call('POST', '/api/chain/state-machines/expiring/share/set', { key: t.owner.key, body: { expires_at: expires } });
    expect(share.status).toBe(200);
    const stream = await t.sse('/api/chain/expiring/explore/sse', { 'X-Share-Token': share.body.share_token });
    await t.write('expiring');
    await stream.until(1);
    clock.advance(61_000);
    await t.write('expiring');
    const seqs = await revokedEnd(stream, 'NOT_FOUND');
    expect(seqs.length).toBe(1);
  });
});

describe('other streams across revocation', () => {
  it('ends the owner-only contract events stream when the machine key it was opened with is revoked', async () => {
    const t = await setup();
    const made = await t.make('events-owner', false);
    const stream = await t.sse('/api/chain/events-owner/events/stream', { authorization: `Bearer ${made.api_key}` });
    expect(stream.res.status).toBe(200);
    expect((await t.server.call('DELETE', `/api/chain/events-owner/api-keys/${made.api_key_id}`, { key: t.owner.key })).status).toBe(200);
    await revokedEnd(stream, 'UNAUTHENTICATED');
  });

  it('ends a stream read through the site proxy when the machine is made private', async () => {
    const t = await setup();
    await t.make('site-feed', true);
    const stream = await t.sse('/s/site-feed/sdk/core/chain.streamExplore');
    expect(stream.res.status).toBe(200);
    await t.write('site-feed');
    await stream.until(1);
    expect((await t.server.call('PATCH', '/api/chain/site-feed/settings', { key: t.owner.key, body: { is_public: false } })).status).toBe(200);
    expect(await revokedEnd(stream, 'NOT_FOUND')).toEqual([1]);
  });
});

describe('core_stream and core_http across revocation', () => {
  type Collected = { ok: boolean; complete: boolean; events: Array<{ id?: string; event: string; data: { code?: string; seq?: number } }> };

  it('ends a core_stream call over MCP when the caller is removed, with the revocation as its last event', async () => {
    const t = await setup();
    await t.make('mcp-crew', false);
    const member = await mintKey(t.server);
    expect((await t.server.call('POST', '/api/chain/mcp-crew/admins', { key: t.owner.key, body: { uid: member.uid, role: 'viewer' } })).status).toBe(200);
    const transport = new StreamableHTTPClientTransport(new URL(`${t.server.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${member.key}` } },
    });
    const client = new Client({ name: 'revocation-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const opened = nextStreamOpened(t.server);
    const call = client.callTool(
      { name: 'core_stream', arguments: { action: 'explore', slug: 'mcp-crew', last_event_id: '0', max_events: 1000, max_ms: 60_000 } },
      undefined,
      { timeout: 30_000 },
    );
    await hangGuard(opened, 'the stream was not opened');
    expect((await t.server.call('DELETE', `/api/chain/mcp-crew/admins/${member.uid}`, { key: t.owner.key })).status).toBe(200);
    await t.write('mcp-crew', 2);
    const result = (await hangGuard(call, 'the call did not end')).structuredContent as Collected;
    expect(result.complete).toBe(true);
    const last = result.events[result.events.length - 1]!;
    expect(last).toMatchObject({ event: 'access.revoked', data: { code: 'NOT_FOUND' } });
    const removedAt = (await rowTypes(t.server, 'mcp-crew', t.owner.key)).find((r) => r.type === 'admin.revoked')!.seq;
    expect(result.events.slice(0, -1).every((e) => e.event === 'audit.appended' && Number(e.id) < removedAt)).toBe(true);
  });

  it('ends a core_http read of a stream path when the share token is disabled', async () => {
    const t = await setup();
    await t.make('http-shared', false);
    const share = await t.server.call('POST', '/api/chain/state-machines/http-shared/share/set', { key: t.owner.key, body: {} });
    const reader = await mintKey(t.server);
    const opened = nextStreamOpened(t.server);
    const call = t.server.call('POST', '/api/http', {
      key: reader.key,
      headers: { 'X-Share-Token': share.body.share_token },
      body: { method: 'GET', path: '/api/chain/http-shared/explore/sse', max_events: 1000, max_ms: 60_000 },
    });
    await hangGuard(opened, 'the stream was not opened');
    expect((await t.server.call('POST', '/api/chain/state-machines/http-shared/share/disable', { key: t.owner.key, body: {} })).status).toBe(200);
    await t.write('http-shared', 2);
    const res = await hangGuard(call, 'the call did not end');
    expect(res.status).toBe(200);
    const result = res.body as Collected;
    expect(result.complete).toBe(true);
    expect(result.events[result.events.length - 1]).toMatchObject({ event: 'access.revoked', data: { code: 'NOT_FOUND' } });
    expect(result.events.filter((e) => e.event === 'audit.appended' && e.data.seq !== undefined && e.data.seq >= 2)).toEqual([]);
  });
});
