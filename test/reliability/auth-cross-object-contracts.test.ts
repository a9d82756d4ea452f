import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLER_KINDS, validInput } from './auth-harness.js';
import { startAuthFixture, type AuthFixture, type Creds, type World } from './auth-world.js';

/**
 * Cross-object cases of the auth matrix for contracts: authorization follows the data, not
 * only the first check. A contract on one machine listening to another machine receives what its
 * principal may read there at each delivery (findings 2 and 3); a contract's secrets come back from no
 * read of any caller kind (finding 4). Values that must never show are registered with the fixture's
 * secret scan, which every answer goes through.
 */
let fx: AuthFixture;
let world: World;

beforeAll(async () => {
  fx = await startAuthFixture('core-authx-');
  world = await fx.buildWorld();
});

afterAll(async () => {
  await fx?.stop();
});

const settle = () => fx.running.core.services.contracts.settled();

/** A machine of the caller's own and a contract on it listening to `source`'s `event`. */
async function listen(creds: Creds, source: string, event: string) {
  const own = `authx-${randomBytes(3).toString('hex')}`;
  await fx.must('POST', '/api/chain/state-machines', creds, { slug: own, is_public: true });
  const definition = {
    name: 'listener',
    states: { idle: { initial: true } },
    transitions: [{ from: 'idle', to: 'idle', operator: 'KO42', trigger: { kind: 'on_event', event, machine: source } }],
  };
  const created = await fx.must('POST', `/api/chain/${own}/contracts`, creds, { definition });
  const id = created.contract.id as string;
  const rows = async () => (await fx.must('GET', `/api/chain/${own}/contracts/${id}/audit`, creds)).transitions as Array<{ input: Record<string, unknown> }>;
  return { own, id, rows };
}

/** Posts an event whose payload carries a marker the scan must never find in an answer. */
async function postMarked(slug: string, type: string): Promise<string> {
  const marker = `payload-${randomBytes(8).toString('hex')}`;
  fx.secrets.set(marker, `the encrypted payload of ${type} on ${slug}`);
  await fx.must('POST', `/api/chain/${slug}/event`, world.callers.owner, { type, payload: { marker } });
  await settle();
  return marker;
}

describe('contract listeners across machines', () => {
  it("delivers a public machine's events to another owner's listener without their encrypted payload", async () => {
    const l = await listen(world.callers.other_owner, world.pub, 'authx.reading');
    await postMarked(world.pub, 'authx.reading');
    const rows = await l.rows();
    expect(rows.map((r) => r.input)).toEqual([{ payload_withheld: true }]);
    // The listener's rows are public on a public machine: the anonymous directory shows no payload either.
    await fx.must('GET', `/api/contracts/public/${l.id}/audit`, {});
    expect(fx.leaks).toEqual([]);
  });

  it("stops a member's listener on a private machine when the member is removed", async () => {
    const l = await listen(world.callers.viewer, world.priv, 'authx.tick');
    await postMarked(world.priv, 'authx.tick');
    expect(await l.rows()).toHaveLength(1);
    const viewerUid = (await fx.must('GET', `/api/chain/${world.priv}/admins`, world.callers.owner)).admins.find(
      (a: { role: string }) => a.role === 'viewer',
    ).uid;
    await fx.must('DELETE', `/api/chain/${world.priv}/admins/${viewerUid}`, world.callers.owner);
    await postMarked(world.priv, 'authx.tick');
    expect(await l.rows()).toHaveLength(1);
    world = await fx.buildWorld();
  });

  it('stops a listener when its source machine is made private', async () => {
    const l = await listen(world.callers.other_owner, world.pub, 'authx.pulse');
    await postMarked(world.pub, 'authx.pulse');
    await fx.must('PATCH', `/api/chain/${world.pub}/settings`, world.callers.owner, { is_public: false });
    await postMarked(world.pub, 'authx.pulse');
    expect(await l.rows()).toHaveLength(1);
    world = await fx.buildWorld();
  });

  it('refuses a listener on a private machine the caller reads only with a share token', async () => {
    const own = `authx-${randomBytes(3).toString('hex')}`;
    await fx.must('POST', '/api/chain/state-machines', world.callers.other_owner, { slug: own });
    const definition = {
      name: 'spy',
      states: { a: { initial: true } },
      transitions: [{ from: 'a', to: 'a', operator: 'KO42', trigger: { kind: 'on_event', event: 'authm.seed', machine: world.priv } }],
    };
    const creds = { ...world.callers.other_owner, share: world.callers.share_token.share! };
    expect((await fx.send('GET', `/api/chain/state-machines/${world.priv}`, creds)).status).toBe(200);
    const res = await fx.send('POST', `/api/chain/${own}/contracts`, creds, { definition });
    expect(res.status).toBe(400);
    expect(res.json.error.details.path).toBe('transitions[0].trigger.machine');
  });
});

describe('contract secrets across every contract read and caller kind', () => {
  it('never answers a contract secret, whoever asks', async () => {
    const token = `ctsecret-${randomBytes(8).toString('hex')}`;
    fx.secrets.set(token, "a contract's definition.secrets");
    const definition = {
      name: 'gate',
      states: { a: { initial: true }, b: {} },
      transitions: [{ from: 'a', to: 'b', operator: 'KO42', condition: 'input.t == secrets.t' }],
      secrets: { t: token },
    };
    const created = await fx.must('POST', `/api/chain/${world.pub}/contracts`, world.callers.owner, { definition });
    const id = created.contract.id as string;
    const reads = fx.running.core.registry.operations.filter((op) => op.method === 'GET' && op.id.startsWith('contracts.'));
    let answered = 0;
    for (const op of reads) {
      const input = validInput(op, world.pub, fx.clock.now());
      if (!input) continue;
      if ('id' in input) input.id = id;
      if ('n' in input) input.n = '1';
      for (const kind of CALLER_KINDS) {
        const res = await fx.callOp(op, input, world.pub, world.callers[kind]);
        if (res.status === 200) answered++;
      }
    }
    expect(answered).toBeGreaterThan(reads.length);
    for (const [i, line] of fx.logLines.entries()) fx.scanForSecrets(line, `log line ${i}`);
    expect(fx.leaks).toEqual([]);
  });
});
