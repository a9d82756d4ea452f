import { describe, expect, expectTypeOf, it } from 'vitest';
import { callOp, callOpOk } from '../helpers/call-op.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

describe('callOp', () => {
  it('fills path params, sends the other fields as the body of a POST, and types the answer of a listed operation', async () => {
    const { key } = await mintKey(server);
    const { slug, machineKey } = await createMachine(server, key, { slug: 'call-op-write' });
    const written = await callOp(server, 'chain.appendEvent', { slug, type: 'reading', payload: { n: 1 } }, { key: machineKey });
    expect(written.status).toBe(200);
    if (!written.ok) throw new Error(JSON.stringify(written.body));
    expectTypeOf(written.body.seq).toEqualTypeOf<number>();
    expect(written.body.seq).toBe(1);
    const state = await callOpOk(server, 'chain.getState', { slug }, { key });
    expectTypeOf(state.head_seq).toEqualTypeOf<number | null>();
    expect(state).toMatchObject({ slug, row_count: 2, head_seq: 1 });
  });

  it('sends the other fields of a GET as its query string, coerced back by the transport', async () => {
    const { key } = await mintKey(server);
    const { slug } = await createMachine(server, key, { slug: 'call-op-read' });
    for (let n = 0; n < 3; n++) await callOpOk(server, 'chain.appendEvent', { slug, payload: { n } }, { key });
    const page = await callOp(server, 'chain.listActivity', { slug, limit: 2 }, { key });
    expect(page.status).toBe(200);
    expect(page.ok && page.body.rows).toHaveLength(2);
  });

  it('answers a refusal as the error envelope, and names an operation the registry does not have', async () => {
    const refused = await callOp(server, 'chain.appendEvent', { slug: 'call-op-none', payload: {} });
    expect(refused).toMatchObject({ ok: false, status: 401, body: { error: { code: 'UNAUTHENTICATED' } } });
    await expect(callOp(server, 'chain.noSuchThing')).rejects.toThrow(/no operation chain.noSuchThing/);
    await expect(callOp(server, 'chain.getState', {})).rejects.toThrow(/needs the path param slug/);
  });
});

describe('createMachine', () => {
  it('creates a machine of the given visibility and hands back its key', async () => {
    const { key } = await mintKey(server);
    const made = await createMachine(server, key, { slug: 'call-op-public', isPublic: true, displayName: 'Public one' });
    const read = await callOpOk(server, 'chain.getMachine', { slug: made.slug });
    expect(read.machine).toMatchObject({ slug: 'call-op-public', is_public: true, display_name: 'Public one', genesis_tick: made.genesis });
    const whoami = await callOpOk(server, 'identity.describeCaller', {}, { key: made.machineKey });
    expect(whoami).toMatchObject({ credential: 'machine-key', machine: 'call-op-public', key_id: made.machineKeyId });
  });
});
