import { errors } from '../../errors.js';

export type RuleKind = 'page_rule' | 'redirect' | 'header' | 'block';

/** Headers an edge rule may not set: they describe the message itself or carry credentials. */
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'set-cookie', 'cookie', 'authorization']);
const REDIRECT_STATUS = [301, 302, 307, 308];
const BLOCK_STATUS = [403, 404, 410, 429, 451];
const CACHE_MODES = ['bypass', 'standard', 'everything'];
const MAX_TTL_S = 365 * 24 * 3600;

const invalid = (field: string, message: string) =>
  errors.validation(`Invalid action_json.${field}: ${message}`, { issues: [{ path: `action_json.${field}`, message, code: 'invalid_rule_action' }] });

/**
 * Checks a rule's `action_json` for its kind and returns it with defaults filled:
 * - redirect: `{ url (absolute http(s) or a path), status: 301|302|307|308 = 302 }`;
 * - header: `{ name, value }` (no hop-by-hop, length or credential headers, no line breaks);
 * - block: `{ status: 403|404|410|429|451 = 403, reason? }`;
 * - page_rule: any of `{ cache: bypass|standard|everything, cache_ttl_s, always_https }`.
 * Unknown keys are refused so a typo never becomes a silent no-op.
 */
export function normalizeRuleAction(kind: RuleKind, action: Record<string, unknown>): Record<string, unknown> {
  const allowed: Record<RuleKind, string[]> = {
    redirect: ['url', 'status'],
    header: ['name', 'value'],
    block: ['status', 'reason'],
    page_rule: ['cache', 'cache_ttl_s', 'always_https'],
  };
  for (const key of Object.keys(action)) {
    if (!allowed[kind].includes(key)) throw invalid(key, `a ${kind} rule takes only ${allowed[kind].join(', ')}`);
  }
  switch (kind) {
    case 'redirect': {
      const { url, status = 302 } = action;
      if (typeof url !== 'string' || !(url.startsWith('/') || /^https?:\/\/[^\s]+$/.test(url)) || /\s/.test(url) || url.length > 2048) {
        throw invalid('url', 'give an absolute http(s) URL or a path starting with "/"');
      }
      if (!REDIRECT_STATUS.includes(status as number)) throw invalid('status', `one of ${REDIRECT_STATUS.join(', ')}`);
      return { url, status };
    }
    case 'header': {
      const { name, value } = action;
      if (typeof name !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) {
        throw invalid('name', `a header name of letters, digits and "-", not one of ${[...RESERVED_HEADERS].join(', ')}`);
      }
      if (typeof value !== 'string' || value.length > 1024 || /[\r\n\0]/.test(value)) throw invalid('value', 'a string of at most 1024 characters without line breaks');
      return { name, value };
    }
    case 'block': {
      const { status = 403, reason } = action;
      if (!BLOCK_STATUS.includes(status as number)) throw invalid('status', `one of ${BLOCK_STATUS.join(', ')}`);
      if (reason !== undefined && (typeof reason !== 'string' || reason.length > 200)) throw invalid('reason', 'a string of at most 200 characters');
      return reason === undefined ? { status } : { status, reason };
    }
    case 'page_rule': {
      const { cache, cache_ttl_s, always_https } = action;
      if (Object.keys(action).length === 0) throw invalid('(object)', 'give at least one of cache, cache_ttl_s, always_https');
      if (cache !== undefined && !CACHE_MODES.includes(cache as string)) throw invalid('cache', `one of ${CACHE_MODES.join(', ')}`);
      if (cache_ttl_s !== undefined && !(Number.isInteger(cache_ttl_s) && (cache_ttl_s as number) >= 0 && (cache_ttl_s as number) <= MAX_TTL_S)) {
        throw invalid('cache_ttl_s', `an integer number of seconds from 0 to ${MAX_TTL_S}`);
      }
      if (always_https !== undefined && typeof always_https !== 'boolean') throw invalid('always_https', 'true or false');
      return { ...action };
    }
  }
}

/** A match pattern: printable, no whitespace; `*` is the wildcard. */
export function checkMatchPattern(pattern: string): void {
  if (/[\s\0-\x1f\x7f]/.test(pattern)) {
    throw errors.validation('Invalid match_pattern: no spaces or control characters; use "*" as the wildcard, e.g. "/blog/*"', {
      issues: [{ path: 'match_pattern', message: 'whitespace or control character', code: 'invalid_pattern' }],
    });
  }
}
