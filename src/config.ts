import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultDataDir, rememberedKeyFile } from './default-paths.js';
import { parseRateSpec, type RateSpec } from './pipeline/rate-limit.js';
import { parseRateTiers, type TierSetting } from './domain/identity/rate-tiers.js';
import { parseQuotaSettings, type QuotaSettings } from './domain/quotas/quota-settings.js';
import type { LoginMode } from './domain/sessions/sessions.service.js';
import type { LogLevel } from './log.js';

/** Every environment variable the server reads, read here and nowhere else. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** `DATABASE_SCHEMA`: the PostgreSQL schema holding the tables (default `public`); lets several servers or test runs share one database. */
  databaseSchema: string | undefined;
  receiptKey: string | undefined;
  apiKey: string | undefined;
  /**
   * Where `mcp` (stdio) remembers a demo key it minted for a caller that had none, for its next start
   * (`$XDG_STATE_HOME/core-server/keys.json`, owner-only); undefined with `CORE_REMEMBER_KEY=0`.
   */
  keyFile: string | undefined;
  toolsets: string[] | undefined;
  readOnly: boolean;
  logLevel: LogLevel;
  version: string;
  /** `CORE_CHAT_UPSTREAM`: base URL of an OpenAI-compatible API (`.../v1`) that answers free chat instead of the local assistant. */
  chatUpstream: string | undefined;
  /** `CORE_CHAT_UPSTREAM_KEY`: bearer key sent to that upstream. */
  chatUpstreamKey: string | undefined;
  /** `CORE_CREDITS_AUTHORITY=1`: this node is the credits authority and runs `peer/convert`. */
  creditsAuthority: boolean;
  /** `CORE_PEER_KEYS`: published peer public keys, inline JSON (an array) or the path of a JSON file. */
  peerKeys: string | undefined;
  /**
   * `CORE_LOGIN_MODE`: `code` (default), a one-time code from the server log proves control of the address;
   * `email`, an opt-in for demos, knowing the address is enough, but such a session is unproven (it cannot
   * create machines, mint keys or promote community operators).
   */
  loginMode: LoginMode;
  /** `CORE_SSO_REDIRECTS`: origins (`https://app.example.org`, comma-separated) `sso-start` may redirect to besides the node's own. */
  ssoRedirectOrigins: string[];
  /** `CORE_QUOTAS`: per-identity limits (`name=N`, comma-separated, e.g. `machines=50,contracts_per_machine=20`); `off` disables them all. */
  quotas: QuotaSettings;
  /** `CORE_PUBLIC_URL`: public base URL of the node (session issuer, discovery URLs); the listening URL when unset. */
  publicUrl: string | undefined;
  /** `CORE_RATE_LIMIT`: requests per second and burst per key (per client address when anonymous), `50/200` by default; `off` disables. */
  rateLimit: RateSpec | undefined;
  /** `CORE_RATE_TIERS`: rates of the keys' `rate_limit_tier`s (`name=rate/burst`, comma-separated), added to the built-in tiers. */
  rateTiers: Record<string, TierSetting>;
  /** `CORE_SSE_MAX_PER_CALLER`: open event streams per key (per client address when anonymous), 20 by default. */
  sseMaxPerCaller: number;
  /** `CORE_REQUEST_TIMEOUT_MS`: time a client has to send a whole request (headers within 15 s at most), 30000 by default. */
  requestTimeoutMs: number;
  /**
   * `CORE_RESPONSE_TIMEOUT_MS`: time the node has to start answering a request it received (event
   * streams excepted), 90000 by default (above the 60 s an MCP stream read may collect for); past it the
   * answer is 503 UNAVAILABLE, so a dependency that hangs never hangs the client.
   */
  responseTimeoutMs: number;
  /**
   * The embedded store's settings beside `dataDir` (its folder): `CORE_DISK_RESERVE_KB`, the free space under
   * which the node reports itself unready and refuses new writes with 503 so writes under way finish
   * (16384 KiB by default, 0 for none), in bytes.
   */
  lowdb: { diskReserveBytes: number };
  /**
   * `CORE_ALLOWED_HOSTS`: further names (`name` or `name:port`, comma-separated) the node answers to
   * besides the loopback names and the host of `CORE_PUBLIC_URL`. On a loopback `HOST` other names are
   * always refused (DNS rebinding); on any other address the list is enforced only when set.
   */
  allowedHosts: string[] | undefined;
  /**
   * TEST ONLY. `CORE_OAUTH_CIMD_TEST_TRUST`: the path of a PEM certificate (a local HTTPS fixture's CA) that the
   * client metadata fetcher trusts instead of the system's roots, and which lets that fetcher reach loopback
   * addresses. Unset (the default and every real deployment), nothing is weakened. Never set it in production.
   */
  oauthCimdTestTrust: { ca: string } | undefined;
  /**
   * `CORE_OAUTH=on`: this node is an OAuth 2.1 authorization server for `/api/mcp` and the REST API
   * (metadata, consent, tokens), and `/api/mcp` answers a request without a credential with 401 and a
   * `WWW-Authenticate` challenge naming its protected-resource metadata. Keys keep working either way.
   */
  oauth: boolean;
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** The version of the API description (OpenAPI `info.version`) this server implements. */
export const API_VERSION = '1.287.0';

/** Reads the configuration from an environment (defaults to `process.env`). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
  }
  const level = (env.LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const loginMode = (env.CORE_LOGIN_MODE || 'code').toLowerCase();
  if (loginMode !== 'email' && loginMode !== 'code') {
    throw new Error(`CORE_LOGIN_MODE must be "email" or "code", got "${env.CORE_LOGIN_MODE}"`);
  }
  const publicUrl = env.CORE_PUBLIC_URL ? publicUrlOf(env.CORE_PUBLIC_URL) : undefined;
  const oauth = (env.CORE_OAUTH || 'off').toLowerCase();
  if (!['on', 'off', '1', '0'].includes(oauth)) throw new Error(`CORE_OAUTH must be "on" or "off", got "${env.CORE_OAUTH}"`);
  const toolsets = env.CORE_TOOLSETS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: env.CORE_DATA_DIR ? path.resolve(env.CORE_DATA_DIR) : defaultDataDir(env),
    databaseUrl: env.DATABASE_URL ? databaseUrlOf(env.DATABASE_URL) : undefined,
    databaseSchema: env.DATABASE_SCHEMA ? schemaNameOf(env.DATABASE_SCHEMA) : undefined,
    receiptKey: env.CORE_RECEIPT_KEY || undefined,
    apiKey: unexpanded(env.CORE_API_KEY) ? undefined : env.CORE_API_KEY || undefined,
    keyFile: env.CORE_REMEMBER_KEY === '0' || env.CORE_REMEMBER_KEY?.toLowerCase() === 'off' ? undefined : rememberedKeyFile(env),
    toolsets: toolsets && toolsets.length > 0 ? toolsets : undefined,
    readOnly: env.CORE_READ_ONLY === '1' || env.CORE_READ_ONLY === 'true',
    logLevel: level,
    version: API_VERSION,
    chatUpstream: env.CORE_CHAT_UPSTREAM || undefined,
    chatUpstreamKey: env.CORE_CHAT_UPSTREAM_KEY || undefined,
    creditsAuthority: env.CORE_CREDITS_AUTHORITY === '1' || env.CORE_CREDITS_AUTHORITY === 'true',
    peerKeys: env.CORE_PEER_KEYS || undefined,
    loginMode,
    ssoRedirectOrigins: (env.CORE_SSO_REDIRECTS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(redirectOriginOf),
    quotas: parseQuotaSettings(env.CORE_QUOTAS),
    publicUrl,
    rateLimit: parseRateSpec(env.CORE_RATE_LIMIT, DEFAULT_RATE_LIMIT),
    rateTiers: parseRateTiers(env.CORE_RATE_TIERS),
    sseMaxPerCaller: positiveInt(env.CORE_SSE_MAX_PER_CALLER, 20, 'CORE_SSE_MAX_PER_CALLER'),
    requestTimeoutMs: positiveInt(env.CORE_REQUEST_TIMEOUT_MS, 30_000, 'CORE_REQUEST_TIMEOUT_MS'),
    responseTimeoutMs: positiveInt(env.CORE_RESPONSE_TIMEOUT_MS, 90_000, 'CORE_RESPONSE_TIMEOUT_MS'),
    lowdb: {
      diskReserveBytes: 1024 * (env.CORE_DISK_RESERVE_KB === '0' ? 0 : positiveInt(env.CORE_DISK_RESERVE_KB, 16_384, 'CORE_DISK_RESERVE_KB')),
    },
    allowedHosts: allowedHostsOf(env.CORE_ALLOWED_HOSTS),
    oauthCimdTestTrust: env.CORE_OAUTH_CIMD_TEST_TRUST ? testTrustOf(env.CORE_OAUTH_CIMD_TEST_TRUST) : undefined,
    oauth: oauth === 'on' || oauth === '1',
  };
}

/** Read at start, so a wrong path fails before anything listens, naming the setting. */
function testTrustOf(file: string): { ca: string } {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `CORE_OAUTH_CIMD_TEST_TRUST (test only) must be the path of a readable PEM certificate, got "${file}" (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      { cause: err },
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(`CORE_OAUTH_CIMD_TEST_TRUST (test only) must be the path of a PEM certificate; "${file}" holds no "BEGIN CERTIFICATE" block`);
  }
  return { ca: pem };
}

/**
 * A client that starts the server with a placeholder it did not fill in (`${user_config.api_key}` of an
 * .mcpb bundle left empty, `${CORE_API_KEY}` with the variable unset) means no key, not a key to refuse.
 */
function unexpanded(value: string | undefined): boolean {
  return value !== undefined && /^\$\{[^}]*\}$/.test(value.trim());
}

/** Generous: no interactive client or test comes near it; a runaway loop does. */
export const DEFAULT_RATE_LIMIT: RateSpec = { perSecond: 50, burst: 200 };

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

/** A `postgres://` URL, checked before anything connects; the error never repeats a password. */
function databaseUrlOf(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    // Only the scheme of a URL is repeated, and text only when it cannot hold a password.
    const shown = url ? `a ${url.protocol}// URL` : /[:@]/.test(value) ? 'text that is not a URL' : `"${value}"`;
    throw new Error(`DATABASE_URL must be a PostgreSQL URL such as postgres://user@127.0.0.1:5432/core (only PostgreSQL is supported), got ${shown}`);
  }
  return value;
}

function schemaNameOf(value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value)) {
    throw new Error(`DATABASE_SCHEMA must be a plain identifier (letters, digits, _; at most 63; not starting with a digit), got "${value}"`);
  }
  return value;
}

const HOST_ENTRY = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

function allowedHostsOf(value: string | undefined): string[] | undefined {
  const entries = value
    ?.split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (!entries || entries.length === 0) return undefined;
  for (const entry of entries) {
    if (!HOST_ENTRY.test(entry)) {
      throw new Error(`CORE_ALLOWED_HOSTS must list host names, optionally with a port (e.g. core.example.org,10.0.0.5:8787), got "${entry}"`);
    }
  }
  return entries;
}

function redirectOriginOf(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value.replace(/\/+$/, '')) {
    throw new Error(`CORE_SSO_REDIRECTS must be comma-separated http(s) origins such as https://app.example.org (no path), got "${value}"`);
  }
  return url.origin;
}

function publicUrlOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`CORE_PUBLIC_URL must be an absolute http(s) URL such as https://core.example.org, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`CORE_PUBLIC_URL must use http or https, got "${value}"`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}
