import { errors } from '../../errors.js';
import { assertProven } from '../identity/proof.js';
import type { Clock } from '../../lib/clock.js';
import { keysetPage } from '../../lib/keyset-page.js';
import { randomToken } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import { DuplicateKeyError, type PubSub } from '../../storage/port.js';
import type { EnvelopeLedger } from '../economy/envelope-ledger.js';
import { lockedError } from '../economy/envelope-ledger.js';
import type { NodeAudit } from '../economy/node-audit-repository.js';
import type { OperatorDef } from '../operators/operator.types.js';
import type { OperatorsService } from '../operators/operators.service.js';
import {
  DEFAULT_VOTE_POLICY,
  outcomeOf,
  proposalView,
  tallyOf,
  type ProposalRecord,
  type ProposalStatus,
  type Side,
  type VotePolicy,
} from './community-policy.js';
import { operatorDefOf, verifyProposal, type OperatorDraft, type TestCaseInput } from './proposal-verify.js';
import type { ProposalRepository } from './proposal-repository.js';

export interface ProposeInput extends OperatorDraft {
  source: { citation: string; url?: string | undefined };
  test_cases: TestCaseInput[];
}

export interface CommunityDeps {
  proposals: ProposalRepository;
  pubsub: PubSub;
  clock: Clock;
  operators: OperatorsService;
  ledger: EnvelopeLedger;
  audit: NodeAudit;
  policy?: VotePolicy;
  onError?: (err: unknown) => void;
}

export type CommunityOperatorsService = ReturnType<typeof createCommunityOperatorsService>;

/** The pubsub channel a promotion is announced on, so every process sharing the store registers the operator. */
export const PROMOTED_CHANNEL = 'community.promoted';

/**
 * Community operators: proposals with a cited source and an evaluated verification record, a vote by
 * staked envelopes (locked for the window, all returned at resolution whatever the outcome, weight =
 * staked value), and promotion into the operator registry by a human. The vote decides desirability;
 * correctness rests on the source and the verification record. Every step is audited in the node log
 * `node/community-operators`.
 */
export function createCommunityOperatorsService(deps: CommunityDeps) {
  const { proposals, pubsub, clock, operators, ledger, audit } = deps;
  const policy = deps.policy ?? DEFAULT_VOTE_POLICY;

  const find = async (id: string): Promise<ProposalRecord> => {
    const p = await proposals.byId(id);
    if (!p) throw errors.notFound(`No community operator proposal "${id}"`, { id });
    return p;
  };
  const log = (type: string, caller: Caller, id: string, detail: Record<string, unknown>) =>
    audit.append('community-operators', { type, actor_uid: caller.uid, subject: id, detail });
  const defOf = (p: ProposalRecord): OperatorDef => operatorDefOf(p, p.operator_id, p.verification.cases[0]);

  /** Sets the outcome once; a later call returns the stored one. Envelopes are freed on every call, so a resolve cut short is completed by the next. */
  async function resolve(id: string, caller: Caller) {
    const tick = clock.tick();
    let first = false;
    let refusal: Error | undefined;
    const updated = await proposals.update(id, (p) => {
      if (!p) return undefined;
      if (p.resolution) return undefined;
      if (p.status !== 'voting' || !p.vote) {
        refusal = errors.conflict(`Proposal ${id} has no vote to resolve; its author opens one with open-vote`, { status: p.status });
        return undefined;
      }
      if (tick < p.vote.closes_at_tick) {
        refusal = errors.conflict(`The vote on ${id} is open until tick ${p.vote.closes_at_tick} (now ${tick}); resolve after it closes`, {
          closes_at_tick: p.vote.closes_at_tick,
        });
        return undefined;
      }
      const tally = tallyOf(p);
      const { outcome, quorum_met } = outcomeOf(tally);
      const returned = p.stakes.flatMap((s) => s.envelope_ids.map((envelope_id) => ({ envelope_id, owner_uid: s.uid, side: s.side })));
      first = true;
      return { ...p, status: outcome, resolution: { outcome, quorum_met, tally, returned, resolved_at_tick: tick } };
    });
    if (refusal) throw refusal;
    if (!updated) throw errors.notFound(`No community operator proposal "${id}"`, { id });
    const r = updated.resolution!;
    await ledger.unlock(
      r.returned.map((e) => e.envelope_id),
      'vote',
      id,
    );
    if (first) await log('community.resolved', caller, id, { outcome: r.outcome, quorum_met: r.quorum_met, tally: r.tally, returned: r.returned.length, tick });
    return { ok: true as const, proposal_id: id, ...r };
  }

  /** Registers every promoted operator not registered yet; one that cannot be registered is reported and skipped. */
  async function registerPromoted(): Promise<number> {
    let added = 0;
    for (const op of await proposals.allPromoted()) {
      try {
        if (operators.get(op.id)) continue;
        operators.register(op);
        added += 1;
      } catch (err) {
        deps.onError?.(err);
      }
    }
    return added;
  }

  return {
    /** Registers the promoted operators again; run before serving. One that cannot be registered is reported and skipped. */
    async start() {
      // Processes sharing the store hear of a promotion at once; the message names the operator, whose
      // definition is read from the store (a message is never trusted for it). Best effort, like the
      // pubsub: what was promoted while this process could not hear is read again when it can.
      pubsub.subscribe(PROMOTED_CHANNEL, (message) => {
        const id = (message as { operator_id?: unknown } | null)?.operator_id;
        if (typeof id !== 'string' || operators.get(id)) return;
        void proposals
          .promoted(id)
          .then((op) => {
            if (op && !operators.get(op.id)) operators.register(op);
          })
          .catch((err: unknown) => deps.onError?.(err));
      });
      pubsub.onResume(() => void registerPromoted().catch((err: unknown) => deps.onError?.(err)));
      await registerPromoted();
    },

    async list(q: { status?: ProposalStatus | undefined; q?: string | undefined; limit: number; cursor?: string | undefined }) {
      const text = q.q?.toLowerCase();
      // The page and one more (which says whether another page follows), newest first from the cursor on, never every proposal.
      const { items, next_cursor } = await keysetPage({
        kind: 'proposals',
        cursor: q.cursor || undefined,
        limit: q.limit,
        fetch: (after, size) => proposals.newestAfter(q.status === undefined ? {} : { status: q.status }, after, size),
        keep: async (found) => found.map((p) => (!text || [p.operator_id, p.name, p.category].some((s) => s.toLowerCase().includes(text)) ? p : undefined)),
      });
      return { ok: true as const, proposals: items.map(proposalView), next_cursor };
    },

    async get(id: string) {
      return { ok: true as const, proposal: proposalView(await find(id)) };
    },

    async propose(input: ProposeInput, caller: Caller) {
      if (operators.exists(input.operator_id)) {
        throw errors.conflict(`Operator id "${input.operator_id}" is already in the registry; choose another`, { operator_id: input.operator_id });
      }
      const id = `cop_${randomToken(20)}`;
      const verification = verifyProposal(await operators.engine(), input, input.test_cases, `community:${id}`);
      const record: ProposalRecord = {
        id,
        operator_id: input.operator_id,
        name: input.name,
        category: input.category,
        formula: input.formula,
        expression: input.expression,
        description: input.description,
        inputs: input.inputs,
        output: input.output,
        source: { citation: input.source.citation, url: input.source.url ?? null },
        verification,
        author_uid: caller.uid!,
        status: 'staging',
        vote: null,
        stakes: [],
        resolution: null,
        created_at: new Date(clock.now()).toISOString(),
      };
      await proposals.insert(record);
      await log('community.proposed', caller, id, {
        operator_id: record.operator_id,
        verification_passed: verification.passed,
        max_relative_error: verification.max_relative_error,
      });
      return { ok: true as const, proposal: proposalView(record) };
    },

    async openVote(id: string, windowTicks: number | undefined, caller: Caller) {
      const tick = clock.tick();
      const window = windowTicks ?? policy.default_window_ticks;
      let refusal: Error | undefined;
      const updated = await proposals.update(id, (p) => {
        if (!p) return undefined;
        if (p.author_uid !== caller.uid) refusal = errors.forbidden(`Only the author of ${id} can open its vote`);
        else if (p.status !== 'staging') refusal = errors.conflict(`The vote on ${id} was already opened (status ${p.status})`, { status: p.status });
        else if (!p.verification.passed)
          refusal = errors.unprocessable(`Proposal ${id} failed its own test cases; propose a corrected operator`, { verification: p.verification });
        if (refusal) return undefined;
        return { ...p, status: 'voting', vote: { opened_at_tick: tick, closes_at_tick: tick + window, quorum: policy.quorum, min_stake: policy.min_stake } };
      });
      if (refusal) throw refusal;
      if (!updated) throw errors.notFound(`No community operator proposal "${id}"`, { id });
      await log('community.vote_opened', caller, id, {
        opened_at_tick: tick,
        closes_at_tick: tick + window,
        quorum: policy.quorum,
        min_stake: policy.min_stake,
      });
      return { ok: true as const, proposal: proposalView(updated), closes_at_tick: updated.vote!.closes_at_tick };
    },

    async stake(id: string, side: Side, envelopeIds: string[], caller: Caller) {
      const uid = caller.uid!;
      const tick = clock.tick();
      const before = await find(id);
      if (before.status !== 'voting' || !before.vote || tick >= before.vote.closes_at_tick) {
        throw errors.conflict(
          `Proposal ${id} is not open for staking (status ${before.status}${before.vote ? `, window closes at tick ${before.vote.closes_at_tick}` : ''})`,
        );
      }
      const owned = await ledger.owned(envelopeIds, uid);
      for (const o of owned) if (o.lock) throw lockedError(o.row.token_id, o.lock);
      await ledger.lockAll(
        owned.map((o) => o.row),
        { kind: 'vote', ref: id, tick },
        uid,
      );
      const locked = owned.map((o) => ({ envelope_id: o.row.token_id, value: o.row.value }));
      const weight = locked.reduce((sum, l) => sum + l.value, 0);
      let refusal: Error | undefined;
      const updated = await proposals.update(id, (p) => {
        if (!p) return undefined;
        if (p.status !== 'voting' || !p.vote || tick >= p.vote.closes_at_tick) refusal = errors.conflict(`Proposal ${id} closed for staking meanwhile`);
        else if (p.stakes.some((s) => s.uid === uid && s.side !== side))
          refusal = errors.conflict(`You already staked ${side === 'yes' ? 'no' : 'yes'} on ${id}; a staker backs one side`);
        if (refusal) return undefined;
        return { ...p, stakes: [...p.stakes, { uid, side, envelope_ids: locked.map((l) => l.envelope_id), value: weight, tick }] };
      });
      if (refusal || !updated) {
        await ledger.unlock(
          locked.map((l) => l.envelope_id),
          'vote',
          id,
        );
        throw refusal ?? errors.notFound(`No community operator proposal "${id}"`, { id });
      }
      await log('community.staked', caller, id, { side, envelope_ids: locked.map((l) => l.envelope_id), weight, tick });
      return { ok: true as const, proposal_id: id, side, locked, weight, tally: tallyOf(updated), closes_at_tick: updated.vote!.closes_at_tick };
    },

    resolve,

    async promote(id: string, caller: Caller) {
      if (caller.credential !== 'session') {
        throw errors.forbidden('Promotion needs a human session (sign in with POST /api/auth/login); API keys, machine keys and agents cannot promote');
      }
      assertProven(caller, 'Promoting a community operator');
      const p = await find(id);
      if (p.status !== 'accepted') throw errors.conflict(`Proposal ${id} is ${p.status}; only an accepted proposal can be promoted`, { status: p.status });
      const def = defOf(p);
      operators.register(def);
      try {
        await proposals.insertPromoted(def);
        await proposals.update(id, (cur) => cur && { ...cur, status: 'promoted' });
      } catch (err) {
        // Another process promoted it first: the operator is in the registry, and this call is the loser.
        if (err instanceof DuplicateKeyError)
          throw errors.conflict(`Proposal ${id} was promoted meanwhile; its operator "${def.id}" is registered`, { status: 'promoted' });
        deps.onError?.(err);
        throw err;
      }
      const version = operators.registryVersion();
      pubsub.publish(PROMOTED_CHANNEL, { operator_id: def.id });
      await log('community.promoted', caller, id, { operator_id: def.id, registry_version: version });
      return { ok: true as const, proposal: proposalView({ ...p, status: 'promoted' }), operator_id: def.id, registry_version: version };
    },
  };
}
