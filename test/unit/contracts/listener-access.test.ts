import { afterEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/domain/identity/caller.js';
import type { ContractRecord } from '../../../src/domain/contracts/contract.types.js';
import { listenerOf } from '../../../src/domain/contracts/listener-access.js';
import { harness, OWNER, type Harness } from './harness.js';

/**
 * A listening contract receives what the identity that set its
 * definition may read of the source machine at the moment of delivery. A chain row's (encrypted)
 * payload only when that identity owns the source (as `audit/decrypt`); a contract event's payload
 * when it is a member; otherwise the event without its payload; nothing once it may not read the
 * source at all (the machine went private, the member was removed).
 */
const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

let ALICE: Caller;

/** A user identity of this node, as its user key authenticates. */
async function identity(h: Harness): Promise<Caller> {
  const { uid } = await h.core.services.identity.mintDemoKey();
  return { uid, credential: 'user-key' };
}

/** `src` (public) owned by OWNER, `dst` owned by ALICE. */
async function setup() {
  const h = await harness({ machines: [{ slug: 'src', is_public: true }] });
  open.push(h);
  ALICE = await identity(h);
  await h.core.services.machines.create({ slug: 'dst' }, ALICE);
  return h;
}

const listener = (event: string, extra: Record<string, unknown> = {}) => ({
  name: 'listener',
  states: { idle: { initial: true } },
  transitions: [{ from: 'idle', to: 'idle', operator: 'KO42', trigger: { kind: 'on_event', event, machine: 'src', ...extra } }],
});

async function deployAs(h: Harness, caller: Caller, slug: string, definition: unknown) {
  const { contract } = await h.core.services.contracts.crud.create(slug, caller, { definition });
  return contract.id;
}

async function post(h: Harness, slug: string, type: string, payload: Record<string, unknown>) {
  const { machine } = await h.core.services.machines.readable(slug, OWNER);
  await h.core.services.chain.recordEvent(machine, OWNER, { type, payload });
  await h.core.services.contracts.settled();
}

const rowsOf = (h: Harness, id: string) => h.rows(id, 'dst');

describe('listener payloads (finding 2)', () => {
  it("gives another owner's listener the event of a public machine without its encrypted payload", async () => {
    const h = await setup();
    const id = await deployAs(h, ALICE, 'dst', listener('reading'));
    await post(h, 'src', 'reading', { pin: 4711 });
    const rows = await rowsOf(h, id);
    expect(rows.map((r) => r.input)).toEqual([{ payload_withheld: true }]);
    expect(JSON.stringify(rows)).not.toContain('4711');
  });

  it("gives the source owner's own listener on another machine the payload", async () => {
    const h = await setup();
    await h.core.services.machines.create({ slug: 'mine' }, OWNER);
    const { contract } = await h.core.services.contracts.crud.create('mine', OWNER, { definition: listener('reading') });
    await post(h, 'src', 'reading', { pin: 4711 });
    expect((await h.rows(contract.id, 'mine')).map((r) => r.input)).toEqual([{ pin: 4711 }]);
  });

  it("withholds a chain payload from a non-owner's listener even on its own machine (admin does not suffice, as for audit/decrypt)", async () => {
    const h = await setup();
    await h.core.services.members.grant('src', OWNER, ALICE.uid!, 'admin');
    const id = await deployAs(h, ALICE, 'src', {
      ...listener('reading'),
      transitions: [{ from: 'idle', to: 'idle', operator: 'KO42', trigger: { kind: 'on_event', event: 'reading' } }],
    });
    await post(h, 'src', 'reading', { pin: 4711 });
    expect((await h.rows(id, 'src')).map((r) => r.input)).toEqual([{ payload_withheld: true }]);
  });

  it('aggregates no withheld payload: a sum over them has nothing to add', async () => {
    const h = await setup();
    const id = await deployAs(h, ALICE, 'dst', {
      name: 'sum',
      states: { low: { initial: true }, high: {} },
      transitions: [
        {
          from: 'low',
          to: 'high',
          operator: 'KO42',
          trigger: {
            kind: 'on_aggregate',
            event: 'reading',
            machine: 'src',
            within_ticks: 100,
            aggregate: { fn: 'sum', field: 'pin' },
            op: '>',
            threshold: 10,
          },
        },
      ],
    });
    for (const pin of [100, 200]) await post(h, 'src', 'reading', { pin });
    expect(await rowsOf(h, id)).toEqual([]);
  });

  it("gives a contract event's payload to members of the source and withholds it from others", async () => {
    const h = await setup();
    const bob = await identity(h);
    await h.core.services.machines.create({ slug: 'bobs' }, bob);
    await h.core.services.members.grant('src', OWNER, bob.uid!, 'viewer');
    await h.deploy(
      {
        name: 'source',
        states: { s: { initial: true } },
        transitions: [
          {
            from: 's',
            to: 's',
            operator: 'KO42',
            trigger: { kind: 'on_event', event: 'reading' },
            post_actions: [{ type: 'emit', event: 'relayed', payload: { note: 'n' } }],
          },
        ],
      },
      'src',
    );
    const outsider = await deployAs(h, ALICE, 'dst', listener('relayed'));
    const member = await deployAs(h, bob, 'bobs', listener('relayed'));
    await post(h, 'src', 'reading', { pin: 4711 });
    expect((await rowsOf(h, outsider)).map((r) => r.input)).toEqual([{ payload_withheld: true }]);
    expect((await h.rows(member, 'bobs'))[0]!.input).toMatchObject({ note: 'n', from_state: 's' });
  });
});

describe('listeners after revocation (finding 3)', () => {
  it('stops delivering once the source machine is made private', async () => {
    const h = await setup();
    const id = await deployAs(h, ALICE, 'dst', listener('reading'));
    await post(h, 'src', 'reading', {});
    expect(await rowsOf(h, id)).toHaveLength(1);
    await h.core.services.machineSettings.updateSettings('src', OWNER, { is_public: false });
    await post(h, 'src', 'reading', {});
    expect(await rowsOf(h, id)).toHaveLength(1);
    await h.core.services.machineSettings.updateSettings('src', OWNER, { is_public: true });
    await post(h, 'src', 'reading', {});
    expect(await rowsOf(h, id)).toHaveLength(2);
  });

  it('stops delivering once the member who set the listener is removed from the private source', async () => {
    const h = await setup();
    await h.core.services.machineSettings.updateSettings('src', OWNER, { is_public: false });
    await h.core.services.members.grant('src', OWNER, ALICE.uid!, 'viewer');
    const id = await deployAs(h, ALICE, 'dst', listener('reading'));
    await post(h, 'src', 'reading', {});
    expect(await rowsOf(h, id)).toHaveLength(1);
    await h.core.services.members.revoke('src', OWNER, ALICE.uid!);
    await post(h, 'src', 'reading', {});
    expect(await rowsOf(h, id)).toHaveLength(1);
  });

  it('refuses a listener on a private machine read only through a share token, which is not kept', async () => {
    const h = await setup();
    await h.core.services.machineSettings.updateSettings('src', OWNER, { is_public: false });
    const { share_token } = await h.core.services.machineSettings.setShare('src', OWNER);
    await expect(h.core.services.machines.readable('src', { ...ALICE, shareToken: share_token })).resolves.toBeDefined();
    await expect(deployAs(h, { ...ALICE, shareToken: share_token }, 'dst', listener('reading'))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { path: 'transitions[0].trigger.machine' },
    });
  });

  it('listens with the right of whoever set the definition last', async () => {
    const h = await setup();
    await h.core.services.machines.create({ slug: 'shared' }, OWNER);
    await h.core.services.members.grant('shared', OWNER, ALICE.uid!, 'admin');
    const { contract } = await h.core.services.contracts.crud.create('shared', OWNER, { definition: listener('reading') });
    await post(h, 'src', 'reading', { pin: 1 });
    await h.core.services.contracts.crud.update('shared', contract.id, ALICE, { ...listener('reading'), version: '2' });
    await post(h, 'src', 'reading', { pin: 2 });
    expect((await h.rows(contract.id, 'shared')).map((r) => r.input)).toEqual([{ pin: 1 }, { payload_withheld: true }]);
  });
});

describe('the principal of a contract written before principals were kept', () => {
  const legacy = (created_by: string) => ({ id: 'ct_x', slug: 'm1', created_by }) as ContractRecord;

  it('is its creator, and a developer key stays bound to the machine it was issued for', () => {
    expect(listenerOf(legacy('uowner0000000001'))).toEqual({ uid: 'uowner0000000001' });
    expect(listenerOf(legacy('key:k1'))).toEqual({ uid: 'key:k1', machine: 'm1', scope: 'write' });
  });
});
