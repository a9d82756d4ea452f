/**
 * How deep a request's JSON may nest. Canonical JSON, merge patches and other recursive walks of
 * caller data would exhaust the stack on a few kilobytes of `[[[[...]]]]`; no real document needs
 * more than a few dozen levels. The root object or array is level 1.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests objects or arrays more than `max` levels deep. Iterative, so it cannot
 * overflow the stack itself, and it stops at the first container past the limit.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (typeof child === 'object' && child !== null) {
          pending.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) {
          pending.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** The message that refuses such a value; `where` names it ("The request body", "arguments"). */
export function tooDeepMessage(where: string, max: number = MAX_JSON_DEPTH): string {
  return `${where} nests objects or arrays more than ${max} levels deep; flatten it`;
}
