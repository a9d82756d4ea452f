/** Credits a claim gives (one claim per UTC day). */
export const CLAIM_CREDITS = 128;

/** Wallet tokens per credit converted. At 1, `credits_balance + wallet_balance` never changes on a conversion. */
export const CONVERSION_RATE = 1;

/** Past claims kept on an account (shown by status). */
export const CLAIM_HISTORY = 30;

/** Conversions remembered per uid for idempotency keys; a key older than this many conversions is forgotten. */
export const IDEMPOTENCY_MEMORY = 100;

export interface ConversionRecord {
  conversion_id: string;
  uid: string;
  credits: number;
  tokens_credited: number;
  rate: number;
  tick: number;
  credits_balance: number;
  wallet_balance: number;
}

/** One uid's credits and wallet, in one document so a conversion changes both or neither. */
export interface CreditAccount {
  uid: string;
  credits_balance: number;
  wallet_balance: number;
  /** UTC day (`YYYY-MM-DD`) of the last claim. */
  last_claim_period: string | null;
  claims: Array<{ claimed_at: string; tick: number; credits: number }>;
  /** Conversions by idempotency key, oldest first, at most `IDEMPOTENCY_MEMORY`. */
  conversions: Array<{ key: string; record: ConversionRecord }>;
}

export function emptyAccount(uid: string): CreditAccount {
  return { uid, credits_balance: 0, wallet_balance: 0, last_claim_period: null, claims: [], conversions: [] };
}

/** The claim period containing `unixMs`: a UTC day, and when it ends. */
export function periodOf(unixMs: number): { period: string; endsAt: string } {
  const day = new Date(unixMs).toISOString().slice(0, 10);
  const end = Date.parse(`${day}T00:00:00.000Z`) + 86_400_000;
  return { period: day, endsAt: new Date(end).toISOString() };
}
