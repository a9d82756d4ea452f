import { errors } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { digestOf, randomToken, sameDigest } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import { DuplicateKeyError } from '../../storage/port.js';
import type { MachineRecord } from '../chain/machine.js';
import { createAvatarVault } from './avatar-vault.js';
import { createEnvelopeLedger, type EnvelopeLedger, type EnvelopeLock } from './envelope-ledger.js';
import { createEnvelopeMinter, type EnvelopeMinterDeps, type MintOutcome, type MintRequest } from './envelope-mint.js';
import { imageMatches } from './image-type.js';
import { allowanceAt, definitionHash, envelopeHash, remainingAt, type AvatarContentType, type EnvelopeSource, type TokenRecord } from './tally-token.js';
import type { NodeKeyRepository } from '../identity/node-key-repository.js';
import type { AvatarRepository } from './avatar-repository.js';
import type { EnvelopeLockRepository } from './envelope-lock-repository.js';

/** An envelope as the API shows it: the immutable row plus its current lock flags. */
export interface TallyTokenView {
  token_id: string;
  token_hash: string;
  machine_slug: string;
  tick: number;
  value: number;
  source: EnvelopeSource;
  result_digest: string;
  issued_to: string | null;
  signature: string;
  bonded: boolean;
  locked_for_vote: boolean;
}

export interface GenesisInput {
  name: string;
  symbol: string;
  max_supply: number;
  mint_rate_per_tick: number;
}

const MAX_AVATAR_BYTES = 1024 * 1024;

export type TallyService = ReturnType<typeof createTallyService>;

/** The minter's deps (the token's rows, locks, chain, machines, node keys and writer id), and what the ledger and avatars keep. */
export interface TallyDeps extends EnvelopeMinterDeps {
  envelopeLocks: EnvelopeLockRepository;
  avatarRecords: AvatarRepository;
  nodeKeyRecords: NodeKeyRepository;
}

/** A machine's token: genesis, mint rate, supply, envelopes and their verification, the encrypted avatar. */
export function createTallyService(deps: TallyDeps) {
  const { tallyRecords, clock, chain, machines, nodeKeys } = deps;
  const ledger: EnvelopeLedger = createEnvelopeLedger(deps);
  const avatars = createAvatarVault({ ...deps, now: clock.now });
  const mintEnvelope = createEnvelopeMinter(deps);

  const tokenOf = async (slug: string): Promise<TokenRecord> => {
    const token = await tallyRecords.token(slug);
    if (!token) {
      throw errors.notFound(`Machine "${slug}" has no token yet; its owner creates it with POST /api/chain/${slug}/tally/token/genesis`, { slug });
    }
    return token;
  };
  const readable = async (slug: string, caller: Caller) => (await machines.readable(slug, caller)).machine;
  const minted = async (slug: string) => (await tallyRecords.lastEnvelope(slug))?.minted_total ?? 0;

  const info = (t: TokenRecord) => ({
    machine_slug: t.machine_slug,
    name: t.name,
    symbol: t.symbol,
    max_supply: t.max_supply,
    mint_rate_per_tick: t.mint_rate_per_tick,
    genesis_tick: t.genesis_tick,
    locked: true,
    has_avatar: t.avatar !== null,
    token_hash: t.token_hash,
  });
  const rateAnswer = (t: TokenRecord) => ({
    ok: true as const,
    machine_slug: t.machine_slug,
    mint_rate_per_tick: t.mint_rate_per_tick,
    updated_tick: t.rate_updated_tick,
  });
  // The payload is kept encrypted for the owner's audit/decrypt; the row carries its digest.
  const audit = (machine: MachineRecord, caller: Caller, type: string, payload: Record<string, unknown>) =>
    chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload });

  return {
    /** Mints one envelope for a solve, compute or contract fire; never throws (see `createEnvelopeMinter`). */
    mintEnvelope: mintEnvelope as (req: MintRequest) => Promise<MintOutcome>,
    /** Envelope reads and locks, for contribution seats and community votes. */
    ledger,

    async genesis(slug: string, input: GenesisInput, caller: Caller) {
      const machine = await readable(slug, caller);
      chain.assertWritable(machine);
      const tick = clock.tick();
      const def = { machine_slug: slug, name: input.name, symbol: input.symbol, max_supply: input.max_supply, genesis_tick: tick };
      const token: TokenRecord = {
        ...def,
        mint_rate_per_tick: input.mint_rate_per_tick,
        token_hash: definitionHash(def),
        handle: randomToken(16),
        created_by: caller.uid!,
        created_at: new Date(clock.now()).toISOString(),
        rate_updated_tick: null,
        accrual: { tick, allowance: 0 },
        tokens_burned: 0,
        avatar: null,
      };
      const oneShot = () => errors.conflict(`Machine "${slug}" already has its token; genesis is one-shot and the token is locked`, { slug });
      if (await tallyRecords.token(slug)) throw oneShot();
      try {
        await tallyRecords.insertToken(token);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw oneShot();
        throw err;
      }
      await audit(machine, caller, 'tally.genesis', { ...def, mint_rate_per_tick: input.mint_rate_per_tick, token_hash: token.token_hash });
      return { ok: true as const, token: info(token) };
    },

    async getMintRate(slug: string, caller: Caller) {
      await readable(slug, caller);
      return rateAnswer(await tokenOf(slug));
    },

    async setMintRate(slug: string, rate: number, caller: Caller) {
      const machine = await readable(slug, caller);
      chain.assertWritable(machine);
      await tokenOf(slug);
      const tick = clock.tick();
      const updated = await tallyRecords.updateToken(
        slug,
        (t) =>
          t && {
            ...t,
            // Growth up to now is kept at the old rate; the new rate applies from this tick on.
            accrual: { tick: Math.max(tick, t.accrual.tick), allowance: allowanceAt(t, tick) },
            mint_rate_per_tick: rate,
            rate_updated_tick: tick,
          },
      );
      await audit(machine, caller, 'tally.mint_rate_set', { slug, mint_rate_per_tick: rate, tick });
      return rateAnswer(updated!);
    },

    async supply(slug: string, caller: Caller) {
      await readable(slug, caller);
      const token = await tokenOf(slug);
      const tick = clock.tick();
      const total = await minted(slug);
      return {
        ok: true as const,
        machine_slug: slug,
        max_supply: token.max_supply,
        tokens_minted: total,
        tokens_burned: token.tokens_burned,
        tokens_remaining: remainingAt(token, total, tick),
        mint_rate_per_tick: token.mint_rate_per_tick,
        as_of_tick: tick,
      };
    },

    async tokenInfo(slug: string, caller: Caller) {
      await readable(slug, caller);
      return { ok: true as const, token: info(await tokenOf(slug)) };
    },

    async getToken(slug: string, tokenId: string, caller: Caller) {
      await readable(slug, caller);
      const row = await ledger.get(tokenId);
      if (!row || row.machine_slug !== slug) throw errors.notFound(`No token "${tokenId}" on machine "${slug}"`, { slug, token_id: tokenId });
      return { ok: true as const, token: view(row, await ledger.lockOf(tokenId)) };
    },

    async listTokens(slug: string, caller: Caller, page: { limit: number; cursor?: string | undefined }) {
      await readable(slug, caller);
      const before = page.cursor === undefined ? undefined : decodeCursor('before', page.cursor);
      const rows = await tallyRecords.envelopes(slug, {
        reverse: true,
        limit: page.limit + 1,
        ...(before !== undefined ? { toSeq: before - 1 } : {}),
      });
      const slice = rows.slice(0, page.limit);
      const locks = slice.length > 0 ? await ledger.locksOf(slug) : new Map<string, EnvelopeLock>();
      const more = rows.length > page.limit && slice.length > 0;
      return {
        ok: true as const,
        tokens: slice.map((r) => view(r, locks.get(r.token_id))),
        next_cursor: more ? encodeCursor('before', slice[slice.length - 1]!.seq) : null,
      };
    },

    async verify(slug: string, input: { token_id?: string | undefined; token?: TallyTokenView | undefined }, caller: Caller) {
      await readable(slug, caller);
      if ((input.token_id === undefined) === (input.token === undefined)) {
        throw errors.validation('Give either token_id (a token stored on this machine) or token (a full token row), not both or neither');
      }
      let token: Omit<TallyTokenView, 'bonded' | 'locked_for_vote'>;
      if (input.token_id !== undefined) {
        const row = await ledger.get(input.token_id);
        if (!row || row.machine_slug !== slug) throw errors.notFound(`No token "${input.token_id}" on machine "${slug}"`, { slug });
        token = row;
      } else {
        token = input.token!;
      }
      const hashValid = sameDigest(envelopeHash(token), token.token_hash.toLowerCase());
      const signatureValid = nodeKeys.verify(token.token_hash.toLowerCase(), token.signature);
      const reason =
        token.machine_slug !== slug
          ? `the token belongs to machine "${token.machine_slug}", not "${slug}"`
          : !hashValid
            ? 'token_hash does not match the token fields (altered row)'
            : !signatureValid
              ? "signature does not verify against this node's public key"
              : null;
      return { ok: true as const, valid: reason === null, token_id: token.token_id, hash_valid: hashValid, signature_valid: signatureValid, reason };
    },

    async uploadAvatar(slug: string, input: { content_type: AvatarContentType; data: string }, caller: Caller) {
      const machine = await readable(slug, caller);
      chain.assertWritable(machine);
      const token = await tokenOf(slug);
      const image = Buffer.from(input.data, 'base64');
      if (image.length > MAX_AVATAR_BYTES) throw errors.validation(`The avatar is ${image.length} bytes; the limit is ${MAX_AVATAR_BYTES} (1 MB)`);
      if (!imageMatches(image, input.content_type)) {
        throw errors.unprocessable(`The data is not a ${input.content_type} image; send the image bytes base64-encoded with their real content_type`);
      }
      const ref = await avatars.put(slug, token.genesis_tick, image, input.content_type, clock.tick());
      await tallyRecords.updateToken(slug, (t) => t && { ...t, avatar: ref });
      await audit(machine, caller, 'tally.avatar_set', { content_type: ref.content_type, size_bytes: ref.size_bytes, sha256: ref.sha256 });
      return {
        ok: true as const,
        machine_slug: slug,
        content_type: ref.content_type,
        size_bytes: ref.size_bytes,
        sha256: ref.sha256,
        encrypted: true as const,
      };
    },

    async getAvatar(slug: string, caller: Caller) {
      await readable(slug, caller);
      const token = await tokenOf(slug);
      if (!token.avatar)
        throw errors.notFound(`The token of "${slug}" has no avatar; its owner uploads one with POST /api/chain/${slug}/tally/token/avatar`, { slug });
      const image = await avatars.get(slug, token.genesis_tick, token.avatar);
      return {
        ok: true as const,
        machine_slug: slug,
        content_type: token.avatar.content_type,
        size_bytes: image.length,
        data: image.toString('base64'),
      };
    },
  };
}

/** An envelope row as the API shows it, with its lock flags. */
export function view(row: Omit<TallyTokenView, 'bonded' | 'locked_for_vote'>, lock: EnvelopeLock | undefined): TallyTokenView {
  return {
    token_id: row.token_id,
    token_hash: row.token_hash,
    machine_slug: row.machine_slug,
    tick: row.tick,
    value: row.value,
    source: row.source,
    result_digest: row.result_digest,
    issued_to: row.issued_to,
    signature: row.signature,
    bonded: lock?.kind === 'bond',
    locked_for_vote: lock?.kind === 'vote',
  };
}
