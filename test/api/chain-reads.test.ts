import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { mintKey, spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const clock = createFakeClock(1_777_000_000_000 - (1_777_000_000_000 % 777));

const server = useServer({}, clock);

const machine = (slug: string, isPublic = true) => spinUp(server, slug, isPublic);

const event = (slug: string, key: string, type = 'event') => server.call('POST', `/api/chain/${slug}/event`, { key, body: { type, payload: {} } });

describe('state, stats, coverage, sources, awareness', () => {
  it('reports the latest state snapshot and the chain head, readable by anyone on a public machine', async () => {
    const { key } = await machine('r-state');
    const empty = await server.call('GET', '/api/chain/r-state/state');
    expect(empty.body).toMatchObject({ status: 'active', state_hash: null, state_tick: null, row_count: 1, head_seq: 0 });
    await server.call('POST', '/api/chain/r-state/state', { key, body: { state_hash: '1'.repeat(64) } });
    await server.call('POST', '/api/chain/r-state/state', { key, body: { state_hash: '2'.repeat(64) } });
    await event('r-state', key);
    const res = await server.call('GET', '/api/chain/r-state/state');
    expect(res.body).toMatchObject({ state_hash: '2'.repeat(64), row_count: 4, head_seq: 3 });
  });

  it('counts rows in total, by type and over the last 60 ticks, and groups the types it emitted', async () => {
    const { key, genesis } = await machine('r-stats');
    await event('r-stats', key, 'alpha');
    clock.advance(100 * 777);
    await event('r-stats', key, 'alpha');
    await event('r-stats', key, 'beta');
    await server.call('POST', '/api/chain/r-stats/file', { key, body: { name: 'f', sha256: 'a'.repeat(64), size: 3 } });
    const stats = await server.call('GET', '/api/chain/r-stats/stats');
    expect(stats.body).toMatchObject({
      genesis_tick: genesis,
      row_count: 5,
      first_tick: genesis,
      rows_last_60_ticks: 3,
      by_type: { 'machine.created': 1, alpha: 2, beta: 1, file: 1 },
      contracts: 0,
    });
    // Later reads fold only the new rows.
    await event('r-stats', key, 'beta');
    expect((await server.call('GET', '/api/chain/r-stats/stats')).body.by_type.beta).toBe(2);
    const coverage = await server.call('GET', '/api/chain/r-stats/coverage');
    const groups = Object.fromEntries(coverage.body.groups.map((g: { group: string; types: unknown[] }) => [g.group, g.types]));
    expect(groups.machine).toEqual([{ type: 'machine.created', count: 1, first_tick: genesis, last_tick: genesis }]);
    expect(groups.alpha[0]).toMatchObject({ count: 2, first_tick: genesis, last_tick: genesis + 100 });
  });

  it('counts the contracts on the machine that are not killed', async () => {
    const { key } = await machine('r-contracts');
    const definition = {
      name: 'one-shot',
      states: { idle: { initial: true }, done: { terminal: true } },
      transitions: [{ from: 'idle', to: 'done', operator: 'KO42' }],
    };
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await server.call('POST', '/api/chain/r-contracts/contracts', { key, body: { definition } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids.push(created.body.contract.id ?? created.body.id);
    }
    expect((await server.call('GET', '/api/chain/r-contracts/stats')).body.contracts).toBe(2);
    expect((await server.call('POST', `/api/core/agent/kill/${ids[0]}`, { key, body: { slug: 'r-contracts', reason: 'test' } })).status).toBe(200);
    expect((await server.call('GET', '/api/chain/r-contracts/stats')).body.contracts).toBe(1);
  });

  it('lists the sources that wrote, owner and API keys apart, with liveness', async () => {
    const { key, uid } = await machine('r-sources');
    const devKey = (await server.call('POST', '/api/chain/r-sources/api-keys', { key, body: { name: 'sensor', scope: 'write' } })).body;
    await event('r-sources', devKey.api_key);
    await event('r-sources', devKey.api_key);
    const res = await server.call('GET', '/api/chain/r-sources/sources');
    const byId = Object.fromEntries(res.body.sources.map((s: { source_id: string }) => [s.source_id, s]));
    expect(byId[uid]).toMatchObject({ source_type: 'user', events_stamped: 2, alive: true });
    expect(byId[`key:${devKey.key.id}`]).toMatchObject({ source_type: 'api_key', display_name: 'API key "sensor"', events_seen: 2 });
    clock.advance(5000 * 777);
    const later = await server.call('GET', '/api/chain/r-sources/sources');
    expect(later.body.sources.every((s: { alive: boolean }) => !s.alive)).toBe(true);
  });

  it('counts verified and broken hash links per origin', async () => {
    const { key } = await machine('r-aware');
    await event('r-aware', key);
    const res = await server.call('GET', '/api/chain/r-aware/awareness/status');
    expect(res.body.origins).toHaveLength(1);
    expect(res.body.origins[0]).toMatchObject({ rows: 2, verified: 2, broken: 0 });
    expect(res.body.origins[0].origin).toMatch(/:r-aware$/);
  });

  it('keeps every summary read of a private machine to members and share-token holders', async () => {
    const { key } = await machine('r-private', false);
    const stranger = await mintKey(server);
    const paths = [
      'state',
      'stats',
      'coverage',
      'sources',
      'awareness/status',
      'analytics',
      'explore',
      `block?tick=${clock.tick()}`,
      `at?tick=${clock.tick()}`,
    ];
    for (const path of paths) {
      expect((await server.call('GET', `/api/chain/r-private/${path}`)).status, path).toBe(404);
      expect((await server.call('GET', `/api/chain/r-private/${path}`, { key: stranger.key })).status, path).toBe(404);
      expect((await server.call('GET', `/api/chain/r-private/${path}`, { key })).status, path).toBe(200);
    }
    const share = (await server.call('POST', '/api/chain/state-machines/r-private/share/set', { key, body: {} })).body.share_token;
    expect((await server.call('GET', '/api/chain/r-private/stats', { headers: { 'x-share-token': share } })).status).toBe(200);
  });
});

describe('analytics', () => {
  it('counts audit rows in equal buckets over the window, oldest first', async () => {
    const { key } = await machine('r-spark');
    clock.advance(10 * 777);
    await event('r-spark', key);
    await event('r-spark', key);
    clock.advance(5 * 777);
    await event('r-spark', key);
    const res = await server.call('GET', '/api/chain/r-spark/analytics?buckets=4&window_ticks=20');
    expect(res.body).toMatchObject({ window_ticks: 20, buckets: 4, bucket_ticks: 5, to_tick: clock.tick(), from_tick: clock.tick() - 19 });
    expect(res.body.counts).toEqual([1, 0, 2, 1]);
    expect((await server.call('GET', '/api/chain/r-spark/analytics?buckets=0')).status).toBe(400);
  });
});

describe('explore, block and at', () => {
  it('returns the rows between two ticks in chain order with a version, continuing by cursor', async () => {
    const { key, genesis } = await machine('r-explore');
    for (let i = 0; i < 4; i++) await event('r-explore', key);
    clock.advance(3 * 777);
    await event('r-explore', key, 'later');
    const all = await server.call('GET', '/api/chain/r-explore/explore');
    expect(all.body).toMatchObject({ version: '2', from: genesis, to: clock.tick(), truncated: false, next_from: null });
    expect(all.body.rows.map((r: { seq: number }) => r.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    const first = await server.call('GET', `/api/chain/r-explore/explore?from=${genesis}&to=${genesis}&limit=2`);
    expect(first.body.rows.map((r: { seq: number }) => r.seq)).toEqual([0, 1]);
    expect(first.body).toMatchObject({ truncated: true, next_from: genesis });
    const second = await server.call('GET', `/api/chain/r-explore/explore?from=${genesis}&to=${genesis}&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.rows.map((r: { seq: number }) => r.seq)).toEqual([2, 3]);
    const third = await server.call('GET', `/api/chain/r-explore/explore?from=${genesis}&to=${genesis}&limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body.rows.map((r: { seq: number }) => r.seq)).toEqual([4]);
    expect(third.body.truncated).toBe(false);
    expect((await server.call('GET', `/api/chain/r-explore/explore?from=${genesis + 5}&to=${genesis}`)).status).toBe(400);
  });

  it('reads the block of one tick and the chain as it stood at a tick, with NO_BLOCK_AT_TICK when there is none', async () => {
    const { key, genesis } = await machine('r-block');
    await server.call('POST', '/api/chain/r-block/state', { key, body: { state_hash: '7'.repeat(64) } });
    clock.advance(2 * 777);
    await event('r-block', key);
    const block = await server.call('GET', `/api/chain/r-block/block?tick=${genesis}`);
    expect(block.status).toBe(200);
    expect(block.body.rows.map((r: { type: string }) => r.type)).toEqual(['machine.created', 'state']);
    expect(block.body.state_hash).toBe(block.body.rows[1].state_hash);
    expect(block.body.truncated).toBe(false);
    const gap = await server.call('GET', `/api/chain/r-block/block?tick=${genesis + 1}`);
    expect(gap.status).toBe(404);
    expect(gap.body.error.details.code).toBe('NO_BLOCK_AT_TICK');
    const at = await server.call('GET', `/api/chain/r-block/at?tick=${genesis + 1}`);
    expect(at.body).toMatchObject({ row_count: 2, state_hash: '7'.repeat(64), state_tick: genesis, head: { seq: 1 } });
    const now = await server.call('GET', `/api/chain/r-block/at?tick=${genesis + 2}`);
    expect(now.body).toMatchObject({ row_count: 3, head: { seq: 2, type: 'event' } });
    const before = await server.call('GET', `/api/chain/r-block/at?tick=${genesis - 1}`);
    expect(before.status).toBe(404);
    expect(before.body.error.details.code).toBe('NO_BLOCK_AT_TICK');
  });
});
