import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/hash.js';
import { DuplicateKeyError } from '../../storage/port.js';
import type { IdentityService } from '../identity/identity.service.js';
import { CLAIM_CREDITS, CLAIM_HISTORY, CONVERSION_RATE, IDEMPOTENCY_MEMORY, emptyAccount, periodOf, type ConversionRecord } from './credits-account.js';
import type { NodeAudit } from './node-audit-repository.js';
import { checkPeerSignature, type PeerKeyRing } from './peer-keys.js';
import type { CreditRepository } from './credit-repository.js';
import type { PeerReplayRepository } from './peer-replay-repository.js';

/** A peer call's tick must be within this many ticks of the node's (about 50 s either way). */
export const PEER_REPLAY_WINDOW_TICKS = 64;

export interface CreditsDeps {
  creditRecords: CreditRepository;
  peerReplays: PeerReplayRepository;
  clock: Clock;
  identity: IdentityService;
  audit: NodeAudit;
  peerKeys: PeerKeyRing;
  /** Whether this node is the credits authority (`CORE_CREDITS_AUTHORITY`): only it runs `peer/convert`. */
  authority: boolean;
}

export interface PeerCall {
  uid: string;
  tick: number;
  signature: string;
  public_key_id?: string | undefined;
}

export type CreditsService = ReturnType<typeof createCreditsService>;

/**
 * Compute credits: a daily claim, and conversion of credits into the same uid's wallet. Credits and
 * wallet live in one document per uid, changed by one serialized update, so a conversion is atomic,
 * never leaves a negative balance and moves value without creating any (no machine's tally supply is
 * touched). Every claim and conversion is audited in the node log `node/credits`.
 */
export function createCreditsService(deps: CreditsDeps) {
  const { clock, audit } = deps;
  const { creditRecords, peerReplays } = deps;
  const account = async (uid: string) => (await creditRecords.byUid(uid)) ?? emptyAccount(uid);

  async function convert(uid: string, credits: number, idempotencyKey: string | undefined, actor: string, via: string) {
    const tick = clock.tick();
    let result: { record: ConversionRecord; replayed: boolean } | undefined;
    let refusal: Error | undefined;
    await creditRecords.update(uid, (current) => {
      // `fn` may run again (see DocStore.update): each run decides afresh.
      result = undefined;
      refusal = undefined;
      const acc = current ?? emptyAccount(uid);
      const earlier = idempotencyKey === undefined ? undefined : acc.conversions.find((c) => c.key === idempotencyKey);
      if (earlier) {
        if (earlier.record.credits !== credits) {
          refusal = errors.conflict(
            `Idempotency key "${idempotencyKey}" was used for a conversion of ${earlier.record.credits} credits; use a new key for a new conversion`,
          );
        } else result = { record: earlier.record, replayed: true };
        return undefined;
      }
      if (credits > acc.credits_balance) {
        refusal = errors.unprocessable(`Cannot convert ${credits} credits: the balance is ${acc.credits_balance}`, { credits_balance: acc.credits_balance });
        return undefined;
      }
      const tokens = credits * CONVERSION_RATE;
      const record: ConversionRecord = {
        conversion_id: `cv_${randomUUID()}`,
        uid,
        credits,
        tokens_credited: tokens,
        rate: CONVERSION_RATE,
        tick,
        credits_balance: acc.credits_balance - credits,
        wallet_balance: acc.wallet_balance + tokens,
      };
      result = { record, replayed: false };
      const conversions = idempotencyKey === undefined ? acc.conversions : [...acc.conversions, { key: idempotencyKey, record }].slice(-IDEMPOTENCY_MEMORY);
      return { ...acc, credits_balance: record.credits_balance, wallet_balance: record.wallet_balance, conversions };
    });
    if (refusal) throw refusal;
    if (!result!.replayed) {
      await audit.append('credits', { type: 'credits.converted', actor_uid: actor, subject: uid, detail: { via, ...result!.record } });
    }
    return result!;
  }

  /** Stale ticks and repeated messages are refused; a message is remembered for as long as its tick is fresh. */
  async function consumePeerMessage(keyId: string, message: string, tick: number) {
    const now = clock.tick();
    if (Math.abs(now - tick) > PEER_REPLAY_WINDOW_TICKS) {
      throw errors.unprocessable(
        `Stale tick ${tick}: this node is at tick ${now} and accepts peer calls within ${PEER_REPLAY_WINDOW_TICKS} ticks; sign again with the current tick`,
        {
          tick,
          node_tick: now,
          window_ticks: PEER_REPLAY_WINDOW_TICKS,
        },
      );
    }
    // Messages whose tick has left the window are refused as stale anyway, so they need not be kept.
    await peerReplays.pruneBefore(now - PEER_REPLAY_WINDOW_TICKS);
    const id = sha256Hex(`${keyId}|${message}`);
    try {
      await peerReplays.insert(id, tick);
    } catch (err) {
      if (err instanceof DuplicateKeyError)
        throw errors.conflict('This signed peer call was already used; sign a new call with the current tick', { reason: 'replay' });
      throw err;
    }
  }

  async function peerUser(uid: string) {
    if (!(await deps.identity.isUser(uid))) throw errors.notFound(`No uid "${uid}" on this node`, { uid });
  }

  return {
    async status(uid: string) {
      const acc = await account(uid);
      const { period, endsAt } = periodOf(clock.now());
      return {
        ok: true as const,
        uid,
        claim_open: acc.last_claim_period !== period,
        claim_amount: CLAIM_CREDITS,
        period_ends_at: endsAt,
        credits_balance: acc.credits_balance,
        past_claims: [...acc.claims].reverse(),
      };
    },

    async claim(uid: string) {
      const now = clock.now();
      const tick = clock.tick();
      const { period, endsAt } = periodOf(now);
      let claimed = false;
      const acc = await creditRecords.update(uid, (current) => {
        const a = current ?? emptyAccount(uid);
        claimed = false;
        if (a.last_claim_period === period) return undefined;
        claimed = true;
        const claims = [...a.claims, { claimed_at: new Date(now).toISOString(), tick, credits: CLAIM_CREDITS }].slice(-CLAIM_HISTORY);
        return { ...a, credits_balance: a.credits_balance + CLAIM_CREDITS, last_claim_period: period, claims };
      });
      if (!claimed) throw errors.conflict(`Credits for ${period} (UTC) were already claimed; the next claim opens at ${endsAt}`, { next_claim_at: endsAt });
      await audit.append('credits', { type: 'credits.claimed', actor_uid: uid, subject: uid, detail: { credits: CLAIM_CREDITS, period, tick } });
      return { ok: true as const, uid, credits: CLAIM_CREDITS, credits_balance: acc!.credits_balance, tick, next_claim_at: endsAt };
    },

    async conversion(uid: string) {
      const acc = await account(uid);
      return { ok: true as const, uid, credits_balance: acc.credits_balance, rate: CONVERSION_RATE, wallet_balance: acc.wallet_balance, tick: clock.tick() };
    },

    async convert(uid: string, credits: number, idempotencyKey: string) {
      const { record, replayed } = await convert(uid, credits, idempotencyKey, uid, 'convert');
      return { ok: true as const, ...record, replayed };
    },

    /** `peer/conversion`: a balance read signed over `credits-conversion|<uid>|<tick>`. */
    async peerConversion(call: PeerCall) {
      const message = `credits-conversion|${call.uid}|${call.tick}`;
      const peer = checkPeerSignature(deps.peerKeys, call.uid, call.public_key_id, message, call.signature);
      await consumePeerMessage(peer.key_id, message, call.tick);
      await peerUser(call.uid);
      const acc = await account(call.uid);
      await audit.append('credits', { type: 'credits.peer_read', actor_uid: call.uid, subject: call.uid, detail: { key_id: peer.key_id, tick: call.tick } });
      return { ok: true as const, uid: call.uid, credits_balance: acc.credits_balance, rate: CONVERSION_RATE, tick: clock.tick() };
    },

    /** `peer/convert`: on the authority node only, a conversion signed over `credits-convert|<uid>|<credits>|<tick>`. */
    async peerConvert(call: PeerCall & { credits: number }) {
      if (!deps.authority) {
        throw errors.forbidden('This node is not the credits authority; send peer/convert to the authority node (set CORE_CREDITS_AUTHORITY=1 only there)');
      }
      const message = `credits-convert|${call.uid}|${call.credits}|${call.tick}`;
      const peer = checkPeerSignature(deps.peerKeys, call.uid, call.public_key_id, message, call.signature);
      await consumePeerMessage(peer.key_id, message, call.tick);
      await peerUser(call.uid);
      const { record } = await convert(call.uid, call.credits, undefined, call.uid, `peer:${peer.key_id}`);
      return { ok: true as const, ...record };
    },
  };
}
