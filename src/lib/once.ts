/**
 * `fn` run once, its promise shared by every call; a failure is forgotten, so the next call runs `fn`
 * again (a store that was briefly unreachable must not leave a backfill or a load failed for good).
 */
export function onceUnlessFailed<T>(fn: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () =>
    (running ??= fn().catch((err: unknown) => {
      running = undefined;
      throw err;
    }));
}
