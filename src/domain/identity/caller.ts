import type { ReadTokenKind } from '../chain/read-tokens.js';

/** Roles on a machine, highest first. */
export type Role = 'owner' | 'admin' | 'operator' | 'viewer';

/** Who is calling, as established by the pipeline's authenticate step. */
export interface Caller {
  /** The identity behind the credential; null for an anonymous caller. */
  uid: string | null;
  /** `site`: a visitor's write through a machine's site proxy, run as the site (`site:<slug>`), never as its owner. */
  credential: 'none' | 'user-key' | 'machine-key' | 'session' | 'site';
  /**
   * A session only: whether its holder proved control of the identity (one-time code, or a round trip
   * started by a proven credential). A session opened with an e-mail address alone is unproven.
   */
  proven?: boolean;
  keyId?: string;
  /** Scope of a machine developer key. */
  scope?: 'read' | 'write' | 'admin';
  /** Slug of the machine a machine key belongs to. */
  machine?: string;
  /** Share token presented with the request (`X-Share-Token` or `share_token`). */
  shareToken?: string;
  /** The key's `rate_limit_tier`, which sets its request rate (absent: the node default). */
  rateTier?: string;
  /**
   * A bearer value was sent but this server's store does not know it (unknown, revoked, expired): the
   * caller is anonymous, public operations answer with a warning, the others with 401 saying why.
   */
  unknownCredential?: true;
  /** The credential sent was not even of a key's form (an Authorization header other than `Bearer <value>`); counts as unknown. */
  malformedCredential?: true;
  /** The credential sent as the key was a read token (`shr_`, `unl_`), which goes beside the key; counts as unknown. */
  readTokenAsKey?: ReadTokenKind;
  /** When the credential itself expires (a key's `expires_at`, a session's `exp`); open streams end then. */
  expiresAtMs?: number;
  /**
   * An OAuth access token (`oat_`): the caller is the credential that granted it, narrowed to `scope`
   * (`oauth-scopes.ts`); the grant is re-checked wherever the credential is.
   */
  oauth?: { scope: 'read' | 'write' | 'admin'; grantId: string; clientId: string };
}

export const ANONYMOUS: Caller = Object.freeze({ uid: null, credential: 'none' }) as Caller;

/** The anonymous caller who sent a bearer value this server does not know. */
export const UNKNOWN_BEARER: Caller = Object.freeze({ uid: null, credential: 'none', unknownCredential: true }) as Caller;

/** The anonymous caller whose Authorization header was not `Bearer <value>`: treated as an unknown key. */
export const MALFORMED_BEARER: Caller = Object.freeze({ uid: null, credential: 'none', unknownCredential: true, malformedCredential: true }) as Caller;
