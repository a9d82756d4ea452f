/**
 * Every setting the server reads, for `--help` and the README's table: `loadConfig` (config.ts) reads
 * exactly these variables, and a test holds the two lists and the README together.
 */
export interface SettingDoc {
  name: string;
  default: string;
  meaning: string;
}

export const SETTINGS: readonly SettingDoc[] = [
  { name: 'PORT', default: '8787', meaning: 'port `serve` listens on (0 picks a free one)' },
  { name: 'HOST', default: '127.0.0.1', meaning: 'address `serve` listens on' },
  { name: 'CORE_DATA_DIR', default: 'per-user data dir; ./data for npm start', meaning: 'lowdb data directory (one process per directory)' },
  { name: 'DATABASE_URL', default: 'unset', meaning: 'postgres:// URL: use PostgreSQL instead of files' },
  { name: 'DATABASE_SCHEMA', default: 'public', meaning: 'PostgreSQL schema holding the tables' },
  { name: 'CORE_API_KEY', default: 'unset', meaning: "the caller's key for `mcp` (stdio)" },
  { name: 'CORE_REMEMBER_KEY', default: 'on', meaning: '0: `mcp` forgets a demo key it minted when it exits (else kept, owner-only, for the next start)' },
  { name: 'CORE_TOOLSETS', default: 'all', meaning: 'comma-separated toolsets MCP offers (plus platform)' },
  { name: 'CORE_READ_ONLY', default: 'off', meaning: '1: only reading operations on every surface' },
  { name: 'CORE_RECEIPT_KEY', default: 'generated', meaning: 'HMAC key for receipts' },
  { name: 'CORE_PUBLIC_URL', default: 'the listening URL', meaning: 'public base URL (session issuer, redirects); set it behind a proxy' },
  { name: 'CORE_ALLOWED_HOSTS', default: 'unset', meaning: 'further host names the node answers to (DNS-rebinding protection)' },
  { name: 'CORE_LOGIN_MODE', default: 'code', meaning: 'code: e-mail login needs a one-time code; email: demo only, unproven sessions' },
  { name: 'CORE_SSO_REDIRECTS', default: 'unset', meaning: 'origins sso-start may redirect to besides the node' },
  { name: 'CORE_QUOTAS', default: 'built-in limits', meaning: 'per-identity limits, name=N comma-separated, or off' },
  { name: 'CORE_RATE_LIMIT', default: '50/200', meaning: 'requests per second / burst per key (per address when anonymous), or off' },
  { name: 'CORE_RATE_TIERS', default: 'built-in tiers', meaning: 'rates of key tiers, name=rate/burst comma-separated' },
  { name: 'CORE_SSE_MAX_PER_CALLER', default: '20', meaning: 'event streams one caller may hold open' },
  { name: 'CORE_REQUEST_TIMEOUT_MS', default: '30000', meaning: 'time a client has to send a whole request' },
  { name: 'CORE_RESPONSE_TIMEOUT_MS', default: '90000', meaning: 'time the node has to start answering; past it 503 (event streams excepted)' },
  { name: 'CORE_DISK_RESERVE_KB', default: '16384', meaning: 'lowdb: free space under which the node is unready and refuses new writes; 0: none' },
  { name: 'CORE_PEER_KEYS', default: 'unset', meaning: "peers' Ed25519 public keys (JSON or a file path)" },
  { name: 'CORE_CREDITS_AUTHORITY', default: 'off', meaning: '1: this node runs credits/peer/convert' },
  { name: 'CORE_CHAT_UPSTREAM', default: 'unset', meaning: 'OpenAI-compatible API base URL for free chat' },
  { name: 'CORE_CHAT_UPSTREAM_KEY', default: 'unset', meaning: 'bearer key sent to that upstream' },
  {
    name: 'CORE_OAUTH',
    default: 'off',
    meaning: 'on: OAuth 2.1 login for /api/mcp and the REST API (metadata, consent, tokens); keys keep working',
  },
  {
    name: 'CORE_OAUTH_CIMD_TEST_TRUST',
    default: 'unset',
    meaning: 'TEST ONLY: PEM certificate the client metadata fetcher trusts, and loopback allowed; never in production',
  },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'debug, info, warn, error or silent' },
];

/** The settings as `--help` prints them: one aligned line each. */
export function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length)) + 2;
  return SETTINGS.map((s) => `  ${s.name.padEnd(width)}${s.meaning} (default: ${s.default})`).join('\n');
}
