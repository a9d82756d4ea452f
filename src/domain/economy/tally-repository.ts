import type { LogQuery, RowInput, Store } from '../../storage/port.js';
import type { EnvelopeRow, TokenRecord } from './tally-token.js';

const TALLY_TOKENS = 'tally-tokens';
/** Token handle → machine slug, so an envelope id can name its machine without revealing it. */
const TALLY_HANDLES = 'tally-handles';
/** A machine's envelopes, one append-only stream per machine. */
const STREAM_PREFIX = 'tally/';
const tallyStream = (slug: string) => `${STREAM_PREFIX}${slug}`;

/** Machines' tally tokens, their handles and their envelope logs: the only module that names them. */
export interface TallyRepository {
  token(slug: string): Promise<TokenRecord | undefined>;
  /**
   * Records the token's handle, then the token: every envelope id can then be resolved, and a handle
   * whose token lost a race names no envelope. Fails with `DuplicateKeyError` when the machine has a token.
   */
  insertToken(token: TokenRecord): Promise<void>;
  /** Read-modify-write of the token; `fn` returns undefined to leave it. Returns what is stored afterwards. */
  updateToken(slug: string, fn: (current: TokenRecord | undefined) => TokenRecord | undefined): Promise<TokenRecord | undefined>;
  /** The machine a token handle stands for. */
  slugOfHandle(handle: string): Promise<string | undefined>;
  /** Appends the envelope `build` makes from the log's head and the new row's seq, under the log's lock. */
  appendEnvelope(slug: string, build: (head: EnvelopeRow | undefined, seq: number) => RowInput<EnvelopeRow>): Promise<EnvelopeRow>;
  envelope(slug: string, seq: number): Promise<EnvelopeRow | undefined>;
  envelopes(slug: string, query?: LogQuery): Promise<EnvelopeRow[]>;
  lastEnvelope(slug: string): Promise<EnvelopeRow | undefined>;
  envelopeCount(slug: string): Promise<number>;
  /** The machines that have minted at least one envelope. */
  slugsWithEnvelopes(): Promise<string[]>;
}

export function createTallyRepository(store: Store): TallyRepository {
  return {
    token: (slug) => store.docs.get<TokenRecord>(TALLY_TOKENS, slug),
    async insertToken(token) {
      await store.docs.insert(TALLY_HANDLES, token.handle, { handle: token.handle, slug: token.machine_slug });
      await store.docs.insert(TALLY_TOKENS, token.machine_slug, token);
    },
    updateToken: (slug, fn) => store.docs.update<TokenRecord>(TALLY_TOKENS, slug, fn),
    slugOfHandle: async (handle) => (await store.docs.get<{ slug: string }>(TALLY_HANDLES, handle))?.slug,
    appendEnvelope: (slug, build) => store.logs.append<EnvelopeRow>(tallyStream(slug), build),
    envelope: (slug, seq) => store.logs.get<EnvelopeRow>(tallyStream(slug), seq),
    envelopes: (slug, query) => store.logs.read<EnvelopeRow>(tallyStream(slug), query),
    lastEnvelope: (slug) => store.logs.head<EnvelopeRow>(tallyStream(slug)),
    envelopeCount: (slug) => store.logs.count(tallyStream(slug)),
    slugsWithEnvelopes: async () => (await store.logs.streams(STREAM_PREFIX)).map((s) => s.slice(STREAM_PREFIX.length)),
  };
}
