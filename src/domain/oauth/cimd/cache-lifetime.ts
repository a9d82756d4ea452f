import type { IncomingHttpHeaders } from 'node:http';

export interface CacheBounds {
  /** Floor: a document is kept this long even with `no-store`, so a host cannot make every request a fetch. */
  minTtlMs: number;
  /** Ceiling: a changed document (new redirect URI, new name) is seen within this long. */
  maxTtlMs: number;
}

/**
 * How long a fetched document is kept: `Cache-Control: max-age` (less `Age`), else `Expires` against `Date`,
 * clamped to the bounds; `no-store`, `no-cache` or neither header mean the floor.
 */
export function cacheLifetimeMs(headers: IncomingHttpHeaders, bounds: CacheBounds): number {
  const clamp = (ms: number) => Math.min(bounds.maxTtlMs, Math.max(bounds.minTtlMs, ms));
  const directives = (headers['cache-control'] ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return bounds.minTtlMs;
  const maxAge = directives.find((d) => d.startsWith('max-age='));
  if (maxAge !== undefined) {
    const seconds = Number(maxAge.slice('max-age='.length).replace(/^"|"$/g, ''));
    const age = Number(headers.age ?? 0);
    if (Number.isFinite(seconds) && seconds >= 0) return clamp((seconds - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000);
  }
  const expires = headers.expires ? Date.parse(headers.expires) : NaN;
  const date = headers.date ? Date.parse(headers.date) : NaN;
  if (Number.isFinite(expires) && Number.isFinite(date)) return clamp(expires - date);
  return bounds.minTtlMs;
}
