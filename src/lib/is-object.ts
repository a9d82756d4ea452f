/**
 * True for a JSON object: not null and not an array. `V` is what the caller takes the members to be
 * (a parsed JSON document's members are JSON), not something this checks.
 */
export function isObject<V = unknown>(value: unknown): value is Record<string, V> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
