import { describe, expect, it } from 'vitest';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { MALFORMED_KEY_MESSAGE, NO_KEY_MESSAGE, UNAUTHENTICATED_MESSAGE, UNKNOWN_KEY_MESSAGE } from '../../src/errors.js';
import { MALFORMED_KEY_WARNING } from '../../src/pipeline/invoke.js';
import { storedDocText } from '../helpers/stored-docs.js';

// The 401 sweep sends three refused requests for each of 100-odd operations from one address, past the
// anonymous rate limit: that limit is tested elsewhere (`test/reliability/limits.test.ts`).
const server = useServer({ CORE_RATE_LIMIT: 'off' });

/** A concrete path for a template, with placeholder values for its params. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'x1');
}

describe('identity', () => {
  it('mints a core_ key once and stores only its hash', async () => {
    const res = await server.call('POST', '/api/demo-key/mint', { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.key).toMatch(/^core_[a-z2-7]{40}$/);
    expect(res.body.uid).toMatch(/^u[a-z2-7]{15}$/);
    const stored = await storedDocText(server.dataDir, 'keys');
    expect(stored).not.toContain(res.body.key);
  });

  it('answers 401 on every bearer operation without a valid key, its message beginning "Missing or invalid key" and saying why', async () => {
    const bearer = server.core.registry.operations.filter((op) => op.def.auth === 'bearer');
    expect(bearer.length).toBeGreaterThan(50);
    const cases: Array<[Record<string, string>, string]> = [
      [{}, NO_KEY_MESSAGE],
      [{ authorization: 'Bearer core_notarealkeynotarealkeynotarealkey12' }, UNKNOWN_KEY_MESSAGE],
      [{ authorization: 'hello world' }, MALFORMED_KEY_MESSAGE],
    ];
    for (const op of bearer) {
      for (const [headers, message] of cases) {
        const res = await server.call(op.method, concrete(op.path), { headers, ...(op.method === 'GET' ? {} : { body: {} }) });
        expect(res.status, `${op.method} ${op.path}`).toBe(401);
        expect(res.body.error).toMatchObject({ code: 'UNAUTHENTICATED', message });
        expect(res.body.error.message.startsWith(`${UNAUTHENTICATED_MESSAGE}: `)).toBe(true);
      }
    }
  });

  it('answers a public operation sent a malformed Authorization header as for an unknown key: anonymously, with a warning', async () => {
    const res = await server.call('GET', '/api/pulse', { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-core-key-warning')).toBe(MALFORMED_KEY_WARNING);
  });
});

describe('machines and the chain', () => {
  it('creates a machine with a genesis row, appends an event and reads it back newest first', async () => {
    const { key, uid } = await mintKey(server);
    const created = await server.call('POST', '/api/chain/state-machines', { key, body: { slug: 'spine-demo', is_public: false } });
    expect(created.status).toBe(200);
    expect(created.body.machine).toMatchObject({ slug: 'spine-demo', owner_uid: uid, is_public: false, status: 'active', row_count: 1 });
    expect(created.body.api_key).toMatch(/^core_/);

    const event = await server.call('POST', '/api/chain/spine-demo/event', { key, body: { type: 'ping', payload: { n: 1 } } });
    expect(event.status).toBe(200);
    expect(event.body.seq).toBe(1);

    const activity = await server.call('GET', '/api/chain/spine-demo/activity', { key });
    expect(activity.status).toBe(200);
    expect(activity.body.rows.map((r: { type: string }) => r.type)).toEqual(['ping', 'machine.created']);
    expect(activity.body.rows[0].prev_hash).toBe(activity.body.rows[1].state_hash);

    const filtered = await server.call('GET', '/api/chain/spine-demo/activity?type=ping&limit=1', { key });
    expect(filtered.body.rows).toHaveLength(1);
  });

  it('hides a private machine from strangers as not found, on reads and on writes', async () => {
    const owner = await mintKey(server);
    const stranger = await mintKey(server);
    await createMachine(server, owner.key, { slug: 'hidden-one' });
    for (const key of [undefined, stranger.key]) {
      const get = await server.call('GET', '/api/chain/state-machines/hidden-one', key ? { key } : {});
      expect(get.status).toBe(404);
      const activity = await server.call('GET', '/api/chain/hidden-one/activity', key ? { key } : {});
      expect(activity.status).toBe(404);
    }
    const write = await server.call('POST', '/api/chain/hidden-one/event', { key: stranger.key, body: { type: 'x' } });
    expect(write.status).toBe(404);
    const list = await server.call('GET', '/api/chain/state-machines', { key: stranger.key });
    expect(list.body.machines.map((m: { slug: string }) => m.slug)).not.toContain('hidden-one');
    const mine = await server.call('GET', '/api/chain/state-machines', { key: owner.key });
    expect(mine.body.machines.map((m: { slug: string }) => m.slug)).toContain('hidden-one');
  });

  it('lets anyone read a public machine but only members write to it', async () => {
    const owner = await mintKey(server);
    const stranger = await mintKey(server);
    await createMachine(server, owner.key, { slug: 'open-one', isPublic: true });
    expect((await server.call('GET', '/api/chain/open-one/activity')).status).toBe(200);
    const write = await server.call('POST', '/api/chain/open-one/event', { key: stranger.key, body: { type: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('FORBIDDEN');
  });

  it('answers 409 for a slug that is taken and 400 for an invalid or reserved one', async () => {
    const { key } = await mintKey(server);
    await createMachine(server, key, { slug: 'taken-slug' });
    const again = await server.call('POST', '/api/chain/state-machines', { key, body: { slug: 'taken-slug' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect((await server.call('POST', '/api/chain/state-machines', { key, body: { slug: 'Bad Slug' } })).status).toBe(400);
    expect((await server.call('POST', '/api/chain/state-machines', { key, body: { slug: 'recent' } })).status).toBe(400);
  });

  it('keeps the chain linear when many events are appended in parallel', async () => {
    const { key } = await mintKey(server);
    await createMachine(server, key, { slug: 'parallel' });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => server.call('POST', '/api/chain/parallel/event', { key, body: { payload: { i } } })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.seq)).size).toBe(40);
    const rows = (await server.call('GET', '/api/chain/parallel/activity?limit=100', { key })).body.rows;
    expect(rows).toHaveLength(41);
    for (let i = 0; i < rows.length - 1; i++) expect(rows[i].prev_hash).toBe(rows[i + 1].state_hash);
  });

  it('pages activity with an opaque cursor and rejects a forged one', async () => {
    const { key } = await mintKey(server);
    await createMachine(server, key, { slug: 'paged' });
    for (let i = 0; i < 5; i++) await server.call('POST', '/api/chain/paged/event', { key, body: { payload: { i } } });
    const first = await server.call('GET', '/api/chain/paged/activity?limit=4', { key });
    expect(first.body.rows).toHaveLength(4);
    const second = await server.call('GET', `/api/chain/paged/activity?limit=4&cursor=${first.body.next_cursor}`, { key });
    expect(second.body.rows.map((r: { seq: number }) => r.seq)).toEqual([1, 0]);
    expect(second.body.next_cursor).toBeNull();
    expect((await server.call('GET', '/api/chain/paged/activity?cursor=zzz', { key })).status).toBe(400);
  });
});

describe('platform reads', () => {
  it('serves the pulse, constants, health and status', async () => {
    const pulse = await server.call('GET', '/api/pulse');
    expect(pulse.body.tick).toBe(Math.floor(pulse.body.unix_ms / 777));
    const h = await server.call('GET', '/api/constants/h');
    expect(h.body.constant).toMatchObject({ value: 6.62607015e-34, exact: true, unit: 'J Hz^-1' });
    const g = await server.call('GET', '/api/constants/newtonian_constant_of_gravitation');
    expect(g.body.constant.uncertainty).toBeCloseTo(1.5e-15, 20);
    const list = await server.call('GET', '/api/constants?limit=1000');
    expect(list.body.total).toBeGreaterThanOrEqual(60);
    expect((await server.call('GET', '/api/constants/not-a-constant')).status).toBe(404);
    expect((await server.call('GET', '/api/health')).body.status).toBe('ok');
    const status = await server.call('GET', '/api/status');
    expect(status.body).toMatchObject({ backend: 'lowdb', version: '1.287.0' });
  });

  it('exposes request metrics in the Prometheus text format', async () => {
    await server.call('GET', '/api/pulse');
    const res = await fetch(`${server.url}/api/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/core_requests_total\{op="platform.getPulse",status="200",surface="rest"\} \d+/);
  });
});

describe('bad input', () => {
  it('answers 400 with the zod issues, naming the field', async () => {
    const res = await server.call('GET', '/api/constants?limit=abc');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toBe('limit');
  });

  it('refuses unknown fields instead of ignoring them', async () => {
    const res = await server.call('POST', '/api/demo-key/mint', { body: { lable: 'typo' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/lable/);
  });

  it('answers 404 JSON for unknown paths and 405 with Allow for a wrong method', async () => {
    const missing = await server.call('GET', '/api/does/not/exist');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const wrong = await server.call('PUT', '/api/pulse', { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('answers 400 for malformed JSON, 415 for a non-JSON body and 413 above 1 MiB', async () => {
    const broken = await server.call('POST', '/api/demo-key/mint', { body: '{"a":' });
    expect(broken.status).toBe(400);
    const text = await server.call('POST', '/api/demo-key/mint', { body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const big = await server.call('POST', '/api/demo-key/mint', { body: { label: 'x'.repeat(1_100_000) } });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const array = await server.call('POST', '/api/demo-key/mint', { body: [1, 2] });
    expect(array.status).toBe(400);
  });

  it('never answers 500 to any operation, whatever the input', async () => {
    const { key } = await mintKey(server);
    const bodies: unknown[] = [{}, { slug: 42, limit: -1, id: null }, { payload: 'x'.repeat(10) }, 'null'];
    for (const op of server.core.registry.operations) {
      // A stream that opens stays open (its refusals are covered by each area's stream tests).
      if (op.response.kind === 'stream') continue;
      for (const body of bodies) {
        const res = await server.call(op.method, concrete(op.path), { key, ...(op.method === 'GET' ? {} : { body }) });
        expect(res.status, `${op.method} ${op.path}`).not.toBe(500);
        expect(res.body?.error?.code ?? 'ok', `${op.method} ${op.path}`).not.toBe('INTERNAL');
      }
    }
  });
});
