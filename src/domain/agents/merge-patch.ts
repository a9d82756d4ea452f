import { isObject } from '../../lib/is-object.js';

/** A JSON value as merge patch handles it. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * JSON merge patch (RFC 7386): a patch that is not an object replaces the target; an object patch
 * merges member by member, `null` removing a member and nested objects merging recursively. Arrays are
 * replaced whole. Neither argument is modified.
 */
export function mergePatch(target: unknown, patch: unknown): Json {
  if (!isObject<Json>(patch)) return structuredClone(patch as Json);
  const result: Record<string, Json> = isObject<Json>(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    // defineProperty, so a member named "__proto__" stays a member instead of replacing the prototype.
    else
      Object.defineProperty(result, key, {
        value: mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return result;
}
