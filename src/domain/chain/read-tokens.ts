/**
 * The two tokens that grant reading one private machine without being a key: a share token
 * (`shr_`, from `share_set`) and an unlock token (`unl_`, from `unlock`, traded for the read password).
 * Both are sent beside the key, never as it; this module says which is which, so a caller who put one in
 * the key's place is told what it holds and where it goes instead of "not known to this store".
 */
export type ReadTokenKind = 'share' | 'unlock';

/** The prefixes `machine-settings.service.ts` mints with. */
export const SHARE_TOKEN_PREFIX = 'shr_';
export const UNLOCK_TOKEN_PREFIX = 'unl_';

/** Which read token a value is by its prefix; undefined for anything else (a key, a session, garbage). */
export function readTokenKind(value: string): ReadTokenKind | undefined {
  if (value.startsWith(SHARE_TOKEN_PREFIX)) return 'share';
  if (value.startsWith(UNLOCK_TOKEN_PREFIX)) return 'unlock';
  return undefined;
}

/** Where a read token goes, on every surface: said once, in the refusal, the warning and the descriptors. */
export const WHERE_READ_TOKENS_GO =
  'send it as the share_token argument of the reading tools (core_chain_read, core_activity, core_http, ...), the X-Share-Token header, or ?share_token= on REST, and send your own key (or none) as the key';

/** Why a read token sent as the key did not count, and what to do instead. */
export function readTokenAsKeyReason(kind: ReadTokenKind): string {
  const what =
    kind === 'share' ? 'a share token (shr_..., from core_machine_settings share_set)' : 'an unlock token (unl_..., from core_machine_settings unlock)';
  return `the value sent as the key is ${what}, which lets anyone read one private machine but is not an API key; ${WHERE_READ_TOKENS_GO}`;
}
