import type { Caller } from '../identity/caller.js';
import type { MintRequest, MintOutcome } from './envelope-mint.js';

/** The envelope summary a solve or compute answer carries when one was minted. */
export interface AttachedEnvelope {
  token_id: string;
  machine_slug: string;
  value: number;
  tokens_remaining: number;
}

/**
 * Mints the envelope for a result and returns the answer with it attached (or unchanged when none was
 * minted: minting never refuses a result).
 */
export async function withEnvelope<T extends object>(
  mint: (req: MintRequest) => Promise<MintOutcome>,
  answer: T,
  req: { caller: Caller; kind: MintRequest['kind']; resultDigest: string; value: number },
): Promise<T & { envelope?: AttachedEnvelope }> {
  const outcome = await mint(req);
  if (!outcome.minted) return answer;
  const { token_id, machine_slug, value } = outcome.envelope;
  return { ...answer, envelope: { token_id, machine_slug, value, tokens_remaining: outcome.tokens_remaining } };
}
