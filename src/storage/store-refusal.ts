import { StoreUnavailableError, type StoreStatus } from './port.js';

/** Seconds a caller is told to wait while a check is down: long enough not to hammer, short enough to notice recovery. */
export const NOT_READY_RETRY_S = 2;

/** The checks of `status` that are down, by name. */
export function failingChecks(status: StoreStatus): Record<string, { ok: false; detail?: string; since_ms?: number }> {
  const failing: Record<string, { ok: false; detail?: string; since_ms?: number }> = {};
  for (const [name, check] of Object.entries(status.checks)) if (!check.ok) failing[name] = { ...check, ok: false };
  return failing;
}

/**
 * Checks a write does not depend on: the PostgreSQL session connection carries only cross-process
 * messages (locks live in the writing transaction), so its loss makes the node unready for traffic but
 * leaves every write safe; what others miss meanwhile they catch up from the store.
 */
const MESSAGING_ONLY = new Set(['session']);

/**
 * The refusal for a write asked of a store that reports itself unready for writing (a check other than
 * the messaging session down), or undefined when writes can go on.
 * A full disk is `full`, anything else `unreachable`; the message names each failing check and its
 * detail (adapters write those for operators, never with a secret).
 */
export function notReadyRefusal(status: StoreStatus): StoreUnavailableError | undefined {
  if (status.ready) return undefined;
  const failing = failingChecks(status);
  const names = Object.keys(failing).filter((name) => !MESSAGING_ONLY.has(name));
  if (names.length === 0) return undefined;
  const said = names.map((name) => (failing[name]!.detail ? `${name}: ${failing[name]!.detail}` : `${name} down`)).join('; ');
  const reason = names.length > 0 && names.every((name) => name === 'disk') ? 'full' : 'unreachable';
  return new StoreUnavailableError(reason, said || 'the store is not ready', NOT_READY_RETRY_S);
}
