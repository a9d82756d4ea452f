/**
 * The pause before retry `attempt` (0-based) of something that waits for a dependency to come back:
 * exponential from `baseMs`, capped at `capMs`, with full jitter in its upper half, so processes that
 * lost the same database do not all knock at once.
 */
export function backoffDelay(attempt: number, baseMs: number, capMs: number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}
