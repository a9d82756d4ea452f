import { describe, expect, it } from 'vitest';
import { createFakeClock, TICK_MS } from '../../src/lib/clock.js';
import { verifyChain } from '../../src/domain/chain/hash-chain.js';
import { nodeAuditSeed, type NodeAuditRow } from '../../src/domain/economy/node-audit-repository.js';
import { startServerOn } from '../helpers/durable-server.js';
import { createMachine, mintKey, signIn, tempDir } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { signSession } from '../../src/domain/sessions/session-token.js';
import { kineticProposal as proposal } from '../fixtures/community-operator.js';

const clock = createFakeClock();
let n = 0;

const server = useServer({}, clock);

/** A user with `count` envelopes (worth 2 each) from computes on their own machine. */
async function holder(count: number, isPublic = true) {
  const user = await mintKey(server);
  const slug = `vote-${++n}`;
  const machineKey = (await createMachine(server, user.key, { slug, isPublic })).machineKey;
  await server.call('POST', `/api/chain/${slug}/tally/token/genesis`, {
    key: user.key,
    body: { name: 'V', symbol: 'V', max_supply: 10_000, mint_rate_per_tick: 100 },
  });
  clock.advance(TICK_MS);
  const envelopes: string[] = [];
  for (let i = 0; i < count; i++) {
    envelopes.push(
      (await server.call('POST', '/api/compute', { key: machineKey, body: { operators: ['NM19'], inputs: { m: 1, a: i + 1 } } })).body.envelope.token_id,
    );
  }
  return { ...user, slug, envelopes };
}

const propose = (key: string | undefined, body: unknown) => server.call('POST', '/api/community-operators/propose', { ...(key ? { key } : {}), body });
const stake = (key: string, id: string, side: 'yes' | 'no', envelope_ids: string[]) =>
  server.call('POST', `/api/community-operators/${id}/stake`, { key, body: { side, envelope_ids } });
const envelope = async (slug: string, id: string) => (await server.call('GET', `/api/chain/${slug}/tally/token/${id}`)).body.token;
const audit = () => server.core.store.logs.read<NodeAuditRow>('node/community-operators');

/** A proven session (the address shown with its one-time code), as its cookie header. */
async function sessionCookie(email: string): Promise<string> {
  return (await signIn(server, email)).cookie;
}

/** A proposal that passed its cases, with its vote open for `window` ticks. */
async function openProposal(operatorId: string, window = 10) {
  const author = await mintKey(server);
  const id = (await propose(author.key, proposal(operatorId))).body.proposal.id as string;
  const opened = await server.call('POST', `/api/community-operators/${id}/open-vote`, { key: author.key, body: { window_ticks: window } });
  expect(opened.status).toBe(200);
  return { author, id };
}

describe('propose (communityOperator.propose, communityOperator.get, communityOperator.list)', () => {
  it('evaluates the test cases with the registry evaluator and keeps them as the verification record, audited', async () => {
    const author = await mintKey(server);
    const res = await propose(author.key, proposal('KE_POINT'));
    expect(res.status).toBe(200);
    const p = res.body.proposal;
    expect(p).toMatchObject({ operator_id: 'KE_POINT', status: 'staging', vote: null, author_uid: author.uid, source: { url: 'https://example.org/fop' } });
    expect(p.id).toMatch(/^cop_/);
    expect(p.verification.passed).toBe(true);
    expect(p.verification.cases.map((c: { actual: number }) => c.actual)).toEqual([9, 0.5, 8]);
    expect(p.verification.cases[0].tolerance).toBe(0.001);
    const got = await server.call('GET', `/api/community-operators/${p.id}`);
    expect(got.body.proposal).toEqual(p);
    const listed = await server.call('GET', '/api/community-operators?status=staging&q=ke_point');
    expect(listed.body.proposals.map((x: { id: string }) => x.id)).toContain(p.id);
    expect((await server.call('GET', '/api/community-operators?q=zzzz-no-match')).body.proposals).toEqual([]);
    expect((await audit()).some((r) => r.subject === p.id && r.type === 'community.proposed')).toBe(true);
  });

  it('records failing cases as failed, and such a proposal cannot go to a vote (422)', async () => {
    const author = await mintKey(server);
    const body = proposal('KE_WRONG', {
      test_cases: [
        { inputs: { m: 2, v: 3 }, expected: 18 },
        { inputs: { m: 1, v: 1 }, expected: 0.5 },
        { inputs: { m: 0, v: 1 }, expected: 0 },
      ],
    });
    const p = (await propose(author.key, body)).body.proposal;
    expect(p.verification.passed).toBe(false);
    expect(p.verification.cases.map((c: { passed: boolean }) => c.passed)).toEqual([false, true, true]);
    expect(p.verification.max_relative_error).toBeCloseTo(0.5, 12);
    const open = await server.call('POST', `/api/community-operators/${p.id}/open-vote`, { key: author.key, body: {} });
    expect(open.status).toBe(422);
  });

  it('refuses an id already in the registry (409), expressions that are not plain arithmetic (400) and mismatched cases (400)', async () => {
    const { key } = await mintKey(server);
    expect((await propose(key, proposal('NM19'))).status).toBe(409);
    for (const expression of ['import({pi: 3}, {override: true})', 'f(x) = x', 'createUnit("zz")', 'm * v * q', '{a: m}.a', '"m"']) {
      const res = await propose(key, proposal('KE_BAD', { expression }));
      expect(res.status, expression).toBe(400);
      expect(res.body.error.message).toContain('expression');
    }
    const mismatch = await propose(
      key,
      proposal('KE_BAD', {
        test_cases: [
          { inputs: { m: 1 }, expected: 1 },
          { inputs: { m: 1, v: 1 }, expected: 0.5 },
          { inputs: { m: 1, v: 1 }, expected: 0.5 },
        ],
      }),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.message).toContain('test_cases[0]');
    expect((await propose(key, proposal('KE_BAD', { output: { name: 'energy', unit: 'joulez' } }))).status).toBe(400);
    expect((await propose(key, proposal('KE_BAD', { source: undefined }))).status).toBe(400);
  });

  it('refuses a proposal without a key (401) and answers 404 for an unknown proposal', async () => {
    expect((await propose(undefined, proposal('KE_ANON'))).status).toBe(401);
    expect((await server.call('GET', '/api/community-operators/cop_nothing')).status).toBe(404);
  });
});

describe('open-vote (communityOperator.openVote)', () => {
  it("opens the author's own proposal for the given window only once, and refuses anyone else", async () => {
    const author = await mintKey(server);
    const other = await mintKey(server);
    const id = (await propose(author.key, proposal('KE_OPEN'))).body.proposal.id;
    expect((await server.call('POST', `/api/community-operators/${id}/open-vote`, { key: other.key, body: {} })).status).toBe(403);
    const res = await server.call('POST', `/api/community-operators/${id}/open-vote`, { key: author.key, body: { window_ticks: 50 } });
    expect(res.status).toBe(200);
    expect(res.body.closes_at_tick).toBe(clock.tick() + 50);
    expect(res.body.proposal).toMatchObject({
      status: 'voting',
      vote: { opened_at_tick: clock.tick(), closes_at_tick: clock.tick() + 50, quorum: 3, min_stake: 10, stakers: 0, yes_weight: 0, no_weight: 0 },
    });
    expect((await server.call('POST', `/api/community-operators/${id}/open-vote`, { key: author.key, body: {} })).status).toBe(409);
    expect((await server.call('POST', `/api/community-operators/${id}/open-vote`, { body: {} })).status).toBe(401);
    expect((await server.call('POST', '/api/community-operators/cop_missing/open-vote', { key: author.key, body: {} })).status).toBe(404);
  });
});

describe('stake and resolve (communityOperator.stake, communityOperator.resolve)', () => {
  it('locks staked envelopes for the vote and returns every one of them on an accepted outcome', async () => {
    const { id } = await openProposal('KE_ACCEPT');
    const [a, b, c] = [await holder(3), await holder(2), await holder(2)];
    const first = await stake(a.key, id, 'yes', a.envelopes);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ side: 'yes', weight: 6, tally: { yes_weight: 6, no_weight: 0, stakers: 1, quorum: 3, min_stake: 10 } });
    expect(first.body.locked).toEqual(a.envelopes.map((e) => ({ envelope_id: e, value: 2 })));
    expect(await envelope(a.slug, a.envelopes[0]!)).toMatchObject({ locked_for_vote: true, bonded: false, issued_to: a.uid });
    await stake(b.key, id, 'yes', b.envelopes);
    const last = await stake(c.key, id, 'no', c.envelopes);
    expect(last.body.tally).toMatchObject({ yes_weight: 10, no_weight: 4, stakers: 3 });

    const early = await server.call('POST', `/api/community-operators/${id}/resolve`, { key: c.key, body: {} });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain('open until tick');
    clock.advance(10 * TICK_MS);
    const anyone = await mintKey(server);
    const res = await server.call('POST', `/api/community-operators/${id}/resolve`, { key: anyone.key, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      outcome: 'accepted',
      quorum_met: true,
      tally: { yes_weight: 10, no_weight: 4, stakers: 3 },
      resolved_at_tick: clock.tick(),
    });
    expect(res.body.returned).toHaveLength(7);
    expect(res.body.returned).toContainEqual({ envelope_id: c.envelopes[0], owner_uid: c.uid, side: 'no' });
    for (const h of [a, b, c]) for (const e of h.envelopes) expect((await envelope(h.slug, e)).locked_for_vote).toBe(false);
    const again = await server.call('POST', `/api/community-operators/${id}/resolve`, { key: a.key, body: {} });
    expect(again.body).toEqual(res.body);
    expect((await server.call('GET', `/api/community-operators/${id}`)).body.proposal.status).toBe('accepted');
    const types = (await audit()).filter((r) => r.subject === id).map((r) => r.type);
    expect(types).toEqual(['community.proposed', 'community.vote_opened', 'community.staked', 'community.staked', 'community.staked', 'community.resolved']);
  });

  it('rejects a vote without its quorum and still returns every staked envelope', async () => {
    const { id } = await openProposal('KE_NOQUORUM');
    const a = await holder(6);
    await stake(a.key, id, 'yes', a.envelopes);
    clock.advance(10 * TICK_MS);
    const res = await server.call('POST', `/api/community-operators/${id}/resolve`, { key: a.key, body: {} });
    expect(res.body).toMatchObject({ outcome: 'rejected', quorum_met: false, tally: { yes_weight: 12, stakers: 1 } });
    expect(res.body.returned.map((r: { envelope_id: string }) => r.envelope_id)).toEqual(a.envelopes);
    expect((await envelope(a.slug, a.envelopes[0]!)).locked_for_vote).toBe(false);
  });

  it('never names a private machine in a stake or a vote result that anyone may read', async () => {
    const { id } = await openProposal('KE_PRIVATE');
    const a = await holder(3, false);
    const staked = await stake(a.key, id, 'yes', a.envelopes);
    expect(staked.status).toBe(200);
    clock.advance(10 * TICK_MS);
    const res = await server.call('POST', `/api/community-operators/${id}/resolve`, { key: (await mintKey(server)).key, body: {} });
    expect(res.body.returned).toHaveLength(3);
    expect(JSON.stringify(res.body)).not.toContain(a.slug);
    expect(JSON.stringify(staked.body)).not.toContain(a.slug);
    expect((await server.call('GET', `/api/chain/${a.slug}/tally/token/${a.envelopes[0]}`)).status).toBe(404);
    expect((await server.call('GET', `/api/chain/${a.slug}/tally/token/${a.envelopes[0]}`, { key: a.key })).body.token.locked_for_vote).toBe(false);
  });

  it('refuses stakes of bonded, already staked or foreign envelopes, a switch of side, and stakes outside the window', async () => {
    const { id } = await openProposal('KE_STAKES', 20);
    const a = await holder(8);
    const other = await holder(1);
    await server.call('POST', '/api/contribute/bond', { key: a.key, body: { token_ids: a.envelopes.slice(0, 5) } });
    const bonded = await stake(a.key, id, 'yes', [a.envelopes[0]!]);
    expect(bonded.status).toBe(409);
    expect(bonded.body.error.details.reason).toBe('envelope_bonded');
    expect((await stake(a.key, id, 'yes', [a.envelopes[5]!])).status).toBe(200);
    const twice = await stake(a.key, id, 'yes', [a.envelopes[5]!]);
    expect(twice.status).toBe(409);
    expect(twice.body.error.details.reason).toBe('envelope_locked_in_vote');
    const bondStaked = await server.call('POST', '/api/contribute/bond', { key: a.key, body: { token_ids: [a.envelopes[5]!] } });
    expect(bondStaked.status).toBe(409);
    expect((await stake(a.key, id, 'no', [a.envelopes[6]!])).status).toBe(409);
    expect((await envelope(a.slug, a.envelopes[6]!)).locked_for_vote).toBe(false);
    expect((await stake(a.key, id, 'yes', other.envelopes)).status).toBe(404);
    const staging = (await propose(a.key, proposal('KE_STAGING'))).body.proposal.id;
    expect((await stake(a.key, staging, 'yes', [a.envelopes[7]!])).status).toBe(409);
    clock.advance(20 * TICK_MS);
    expect((await stake(a.key, id, 'yes', [a.envelopes[7]!])).status).toBe(409);
    expect((await server.call('POST', `/api/community-operators/${staging}/resolve`, { key: a.key, body: {} })).status).toBe(409);
    expect((await server.call('POST', `/api/community-operators/${id}/stake`, { body: { side: 'yes', envelope_ids: ['x.1'] } })).status).toBe(401);
    expect((await server.call('POST', `/api/community-operators/${id}/resolve`, { body: {} })).status).toBe(401);
  });
});

describe('promote (communityOperator.promote)', () => {
  async function accepted(operatorId: string) {
    const { id } = await openProposal(operatorId);
    for (const h of [await holder(2), await holder(2), await holder(2)]) await stake(h.key, id, 'yes', h.envelopes);
    clock.advance(10 * TICK_MS);
    expect((await server.call('POST', `/api/community-operators/${id}/resolve`, { key: (await mintKey(server)).key, body: {} })).body.outcome).toBe('accepted');
    return id;
  }

  it('refuses a promote without confirm: true with 400', async () => {
    const id = await accepted('KE_NOCONFIRM');
    const cookie = await sessionCookie('reviewer-a@example.org');
    for (const body of [{}, { confirm: false }]) {
      const res = await fetch(`${server.url}/api/community-operators/${id}/promote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.message).toContain('confirm');
    }
  });

  it('refuses API keys and machine keys (403): promotion needs a human session', async () => {
    const id = await accepted('KE_KEYS');
    const user = await mintKey(server);
    const res = await server.call('POST', `/api/community-operators/${id}/promote`, { key: user.key, body: { confirm: true } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('human session');
    const machineKey = (await createMachine(server, user.key, { slug: 'promote-mk' })).machineKey;
    expect((await server.call('POST', `/api/community-operators/${id}/promote`, { key: machineKey, body: { confirm: true } })).status).toBe(403);
    expect((await server.call('POST', `/api/community-operators/${id}/promote`, { body: { confirm: true } })).status).toBe(401);
  });

  it('refuses a session opened with an e-mail address alone (403): promotion needs a proven human', async () => {
    const id = await accepted('KE_UNPROVEN');
    // What a node in CORE_LOGIN_MODE=email hands anyone who types the address.
    const { token } = await signSession(server.core.services.nodeKeys, {
      uid: 'uunprovenreview1',
      method: 'email',
      proven: false,
      issuer: server.url,
      nowMs: clock.now(),
    });
    const res = await server.call('POST', `/api/community-operators/${id}/promote`, { headers: { cookie: `core_session=${token}` }, body: { confirm: true } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/Promoting a community operator needs a proven identity/);
    expect((await server.call('GET', `/api/community-operators/${id}`)).body.proposal.status).toBe('accepted');
  });

  it('adds an accepted proposal to the registry for a human session, where compute finds it, and refuses one not accepted', async () => {
    const id = await accepted('KE_PROMOTED');
    const cookie = await sessionCookie('reviewer-b@example.org');
    const promote = (pid: string) =>
      fetch(`${server.url}/api/community-operators/${pid}/promote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ confirm: true }),
      });
    const res = await promote(id);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ operator_id: 'KE_PROMOTED', proposal: { status: 'promoted' } });
    expect(body.registry_version).toMatch(/^[0-9a-f]{64}$/);
    const op = await server.call('GET', '/api/operators/KE_PROMOTED');
    expect(op.body.operator).toMatchObject({ id: 'KE_PROMOTED', tier: 'community', category: 'community_mechanics', expression: '0.5 * m * v^2' });
    const computed = await server.call('POST', '/api/compute', { body: { operators: ['KE_PROMOTED'], inputs: { m: 2, v: 3 } } });
    expect(computed.body).toMatchObject({ value: 9, unit: 'J' });
    expect(computed.body.signed.claim.registry_version).toBe(body.registry_version);
    expect((await promote(id)).status).toBe(409);
    const { id: voting } = await openProposal('KE_STILL_VOTING');
    expect((await promote(voting)).status).toBe(409);
    const types = (await audit()).filter((r) => r.subject === id).map((r) => r.type);
    expect(types.at(-1)).toBe('community.promoted');
    expect(verifyChain(await audit(), nodeAuditSeed('community-operators')).valid).toBe(true);
  });
});

describe('promoted operators across a restart', () => {
  it('registers promoted operators again when the node starts', async () => {
    const { dir, cleanup } = await tempDir();
    const fake = createFakeClock();
    try {
      let node = await startServerOn(dir, {}, fake);
      const def = {
        id: 'KE_DURABLE',
        name: 'Durable',
        description: 'd',
        formula: 'y = 2x',
        expression: '2 * x',
        inputs: [{ name: 'x', unit: '', description: '', example: 1 }],
        output: { name: 'y', unit: '', description: '' },
        domain: ['community_test'],
        tier: 'community',
        proof_required: false,
        category: 'community_test',
      };
      await node.core.store.docs.insert('community-operators', def.id, def);
      await node.stop(100);
      node = await startServerOn(dir, {}, fake);
      const res = await node.call('POST', '/api/compute', { body: { operators: ['KE_DURABLE'], inputs: { x: 21 } } });
      expect(res.body.value).toBe(42);
      await node.stop(100);
    } finally {
      await cleanup();
    }
  });
});
