import { describe, expect, it } from 'vitest';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { digestOf } from '../../src/lib/hash.js';
import { mintKey, spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

const machine = (slug: string, isPublic = false) => spinUp(server, slug, isPublic);

async function newest(slug: string, key: string) {
  return (await server.call('GET', `/api/chain/${slug}/activity?limit=1`, { key })).body.rows[0];
}

describe('typed appends', () => {
  it('records a state snapshot whose hash becomes the row digest and the latest state', async () => {
    const { key } = await machine('w-state');
    const hash = 'AB'.repeat(32);
    const res = await server.call('POST', '/api/chain/w-state/state', { key, body: { state_hash: hash } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, seq: 1 });
    const row = await newest('w-state', key);
    expect(row).toMatchObject({ type: 'state', payload_digest: hash.toLowerCase() });
    const state = await server.call('GET', '/api/chain/w-state/state', { key });
    expect(state.body).toMatchObject({ state_hash: hash.toLowerCase(), state_tick: row.tick, head_seq: 1 });
  });

  it('records file and connection rows carrying only the digest of what was sent', async () => {
    const { key } = await machine('w-file');
    const file = { name: 'report.pdf', sha256: 'c'.repeat(64), size: 1234, content_type: 'application/pdf' };
    expect((await server.call('POST', '/api/chain/w-file/file', { key, body: file })).status).toBe(200);
    const fileRow = await newest('w-file', key);
    expect(fileRow.type).toBe('file');
    expect(fileRow.payload_digest).toBe(digestOf(file));
    expect(JSON.stringify(fileRow)).not.toContain('report.pdf');
    const conn = { direction: 'outbound', peer_hash: 'peer-1', protocol: 'mqtt', state: 'open' };
    expect((await server.call('POST', '/api/chain/w-file/connection', { key, body: conn })).status).toBe(200);
    expect((await newest('w-file', key)).payload_digest).toBe(digestOf(conn));
    const bad = await server.call('POST', '/api/chain/w-file/connection', { key, body: { ...conn, direction: 'sideways' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('direction');
  });

  it('keeps app events to the owner: an admin gets 403 and the row is tagged with the app', async () => {
    const { key } = await machine('w-app');
    const admin = await mintKey(server);
    await server.call('POST', '/api/chain/w-app/admins', { key, body: { uid: admin.uid, role: 'admin' } });
    const denied = await server.call('POST', '/api/chain/w-app/app-event', { key: admin.key, body: { app: 'notes', payload: { a: 1 } } });
    expect(denied.status).toBe(403);
    const ok = await server.call('POST', '/api/chain/w-app/app-event', { key, body: { app: 'notes', type: 'saved', payload: { a: 1 } } });
    expect(ok.status).toBe(200);
    expect((await newest('w-app', key)).type).toBe('app.notes.saved');
    expect((await server.call('POST', '/api/chain/w-app/app-event', { body: { app: 'notes' } })).status).toBe(401);
  });

  it('answers tx/submit with the contract path and writes nothing', async () => {
    const { key } = await machine('w-tx');
    const res = await server.call('POST', '/api/chain/w-tx/tx/submit', { key, body: { tx: { to: 'x' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, accepted: false, use: '/api/chain/{slug}/contracts/{id}/transition' });
    expect(res.body.message).toMatch(/contract/);
    expect((await server.call('GET', '/api/chain/w-tx/activity', { key })).body.rows).toHaveLength(1);
    const stranger = await mintKey(server);
    expect((await server.call('POST', '/api/chain/w-tx/tx/submit', { key: stranger.key, body: {} })).status).toBe(404);
  });

  it('hides a private machine from a stranger on every write (404), and refuses anonymous writes (401)', async () => {
    await machine('w-private');
    const stranger = await mintKey(server);
    const writes: Array<[string, unknown]> = [
      ['event', {}],
      ['state', { state_hash: 'a'.repeat(64) }],
      ['file', { name: 'f', sha256: 'a'.repeat(64), size: 1 }],
      ['connection', { direction: 'inbound', peer_hash: 'p', protocol: 'ssh', state: 'close' }],
      ['app-event', { app: 'x' }],
    ];
    for (const [path, body] of writes) {
      expect((await server.call('POST', `/api/chain/w-private/${path}`, { key: stranger.key, body })).status, path).toBe(404);
      expect((await server.call('POST', `/api/chain/w-private/${path}`, { body })).status, path).toBe(401);
    }
  });
});

describe('rejection log', () => {
  it('records a rejected submission in the node log, not in any machine chain', async () => {
    const { key } = await machine('w-reject');
    const res = await server.call('POST', '/api/chain/rejection-log', {
      body: { slug: 'w-reject', reason: 'schema mismatch', code: 'bad_schema', payload_digest: 'd'.repeat(64), source: 'sdk' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, tick: expect.any(Number), id: expect.any(String) });
    expect((await server.call('GET', '/api/chain/w-reject/activity', { key })).body.rows).toHaveLength(1);
    const logs = await readdir(`${server.dataDir}/logs`);
    const file = logs.find((f) => f.startsWith('node'))!;
    expect(await readFile(`${server.dataDir}/logs/${file}`, 'utf8')).toContain('schema mismatch');
    expect((await server.call('POST', '/api/chain/rejection-log', { body: {} })).status).toBe(400);
  });
});

describe('payloads at rest and audit/decrypt', () => {
  it('keeps event payloads encrypted on disk and returns them to the owner, checked against the digest, recording the access', async () => {
    const { key } = await machine('w-secret');
    const payload = { card: 'very-secret-value-4242', amount: 12 };
    const written = await server.call('POST', '/api/chain/w-secret/event', { key, body: { type: 'pay', payload } });
    await server.call('POST', '/api/chain/w-secret/event', { key, body: { type: 'hashed', hash: 'e'.repeat(64) } });
    const files = await readdir(`${server.dataDir}/logs`);
    for (const f of files) expect(await readFile(`${server.dataDir}/logs/${f}`, 'utf8')).not.toContain('very-secret-value');

    const res = await server.call('POST', '/api/chain/w-secret/audit/decrypt', { key, body: { seqs: [written.body.seq, 2], reason: 'dispute' } });
    expect(res.status).toBe(200);
    expect(res.body.rows[0]).toMatchObject({ payload, digest_matches: true, row: { seq: written.body.seq, type: 'pay' } });
    expect(res.body.rows[1]).toMatchObject({ payload: null, digest_matches: null });
    const access = await newest('w-secret', key);
    expect(access).toMatchObject({ type: 'audit.decrypted', seq: res.body.access_seq });

    const byId = await server.call('POST', '/api/chain/w-secret/audit/decrypt', { key, body: { transition_ids: [written.body.transition_id] } });
    expect(byId.body.rows[0].payload).toEqual(payload);
  });

  it('decrypts the machine.created row and checks it against its digest', async () => {
    const { key, uid, genesis } = await machine('w-created');
    const res = await server.call('POST', '/api/chain/w-created/audit/decrypt', { key, body: { seqs: [0] } });
    expect(res.status).toBe(200);
    expect(res.body.rows[0]).toMatchObject({
      row: { seq: 0, type: 'machine.created' },
      payload: { slug: 'w-created', owner_uid: uid, is_public: expect.any(Boolean), genesis_tick: genesis },
      digest_matches: true,
    });
  });

  it('refuses decryption to an admin (403), a stranger (404) and an anonymous caller (401)', async () => {
    const { key } = await machine('w-secret-2');
    await server.call('POST', '/api/chain/w-secret-2/event', { key, body: { payload: { a: 1 } } });
    const admin = await mintKey(server);
    await server.call('POST', '/api/chain/w-secret-2/admins', { key, body: { uid: admin.uid, role: 'admin' } });
    const adminKey = (await server.call('POST', '/api/chain/w-secret-2/api-keys', { key, body: { name: 'a', scope: 'admin' } })).body.api_key;
    expect((await server.call('POST', '/api/chain/w-secret-2/audit/decrypt', { key: admin.key, body: { seqs: [1] } })).status).toBe(403);
    expect((await server.call('POST', '/api/chain/w-secret-2/audit/decrypt', { key: adminKey, body: { seqs: [1] } })).status).toBe(403);
    const stranger = await mintKey(server);
    expect((await server.call('POST', '/api/chain/w-secret-2/audit/decrypt', { key: stranger.key, body: { seqs: [1] } })).status).toBe(404);
    expect((await server.call('POST', '/api/chain/w-secret-2/audit/decrypt', { body: { seqs: [1] } })).status).toBe(401);
    const neither = await server.call('POST', '/api/chain/w-secret-2/audit/decrypt', { key, body: {} });
    expect(neither.status).toBe(400);
    expect((await server.call('POST', '/api/chain/w-secret-2/audit/decrypt', { key, body: { seqs: [99] } })).status).toBe(404);
  });

  it('reports a digest mismatch when the row digest was altered on disk, and never opens another machine payload', async () => {
    const { key } = await machine('w-tamper');
    const written = await server.call('POST', '/api/chain/w-tamper/event', { key, body: { payload: { v: 1 } } });
    const file = `${server.dataDir}/logs/chain%2Fw-tamper.jsonl`;
    const text = await readFile(file, 'utf8');
    const digest = digestOf({ v: 1 });
    expect(text).toContain(digest);
    await writeFile(file, text.replace(digest, 'f'.repeat(64)));
    const res = await server.call('POST', '/api/chain/w-tamper/audit/decrypt', { key, body: { seqs: [written.body.seq] } });
    expect(res.body.rows[0]).toMatchObject({ payload: { v: 1 }, digest_matches: false });

    const other = await machine('w-tamper-other');
    const mine = await server.call('POST', '/api/chain/w-tamper-other/event', { key: other.key, body: { payload: { v: 2 } } });
    const own = await server.call('POST', '/api/chain/w-tamper-other/audit/decrypt', { key: other.key, body: { seqs: [mine.body.seq] } });
    expect(own.body.rows[0]).toMatchObject({ payload: { v: 2 }, digest_matches: true });
  });
});

describe('concurrent writes with payloads', () => {
  it('keeps every payload findable when many events are appended at once', async () => {
    const { key } = await machine('w-burst');
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => server.call('POST', '/api/chain/w-burst/event', { key, body: { payload: { i } } })));
    const seqs = results.map((r) => r.body.seq as number);
    const res = await server.call('POST', '/api/chain/w-burst/audit/decrypt', { key, body: { seqs } });
    expect(res.body.rows.map((r: { payload: { i: number } }) => r.payload.i)).toEqual(results.map((_, i) => i));
    expect(res.body.rows.every((r: { digest_matches: boolean }) => r.digest_matches)).toBe(true);
  });
});
