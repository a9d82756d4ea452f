import type pg from 'pg';
import type { StoreCheck } from '../port.js';
import { isConnectionError, toStoreError } from './pg-errors.js';

/** How often a database seen down is probed, until a query succeeds. */
const PROBE_MS = 1_000;

/**
 * The `database` check of `Store.status`, told by the calls themselves: down when a pooled call failed
 * with a connection-class error, up again when one succeeds. While down, a light probe (`SELECT 1`,
 * unref'd timer) notices the return even if no call comes.
 */
export function createDbHealth(pool: () => pg.Pool | undefined, onChange?: (check: StoreCheck) => void) {
  let check: StoreCheck = { ok: true, since_ms: Date.now() };
  let probe: NodeJS.Timeout | undefined;
  let failures = 0;
  const set = (ok: boolean, detail?: string) => {
    if (check.ok === ok) return;
    check = { ok, ...(detail ? { detail } : {}), since_ms: Date.now() };
    onChange?.(check);
  };
  const stopProbe = () => {
    if (probe !== undefined) clearInterval(probe);
    probe = undefined;
  };
  const health = {
    check: (): StoreCheck => ({ ...check, failures }),
    up(): void {
      stopProbe();
      set(true);
    },
    down(error: unknown): void {
      failures += 1;
      set(false, `the database is unreachable: ${(error as Error).message ?? String(error)}`.slice(0, 200));
      if (probe !== undefined) return;
      probe = setInterval(() => {
        const p = pool();
        if (p === undefined) return stopProbe();
        p.query('SELECT 1').then(
          () => health.up(),
          () => undefined,
        );
      }, PROBE_MS);
      probe.unref();
    },
    stop: stopProbe,
    /**
     * Wraps every method of `api`: a connection-class failure is reported down and thrown as
     * `StoreUnavailableError('unreachable')` (the one place pg errors become it), a success up.
     */
    wrap<A extends object>(api: A): A {
      const wrapped: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(api)) {
        if (typeof value !== 'function') {
          wrapped[name] = value;
          continue;
        }
        wrapped[name] = async (...args: unknown[]) => {
          try {
            const result: unknown = await (value as (...a: unknown[]) => unknown).apply(api, args);
            if (!check.ok) health.up();
            return result;
          } catch (error) {
            if (isConnectionError(error)) health.down(error);
            throw toStoreError(error);
          }
        };
      }
      return wrapped as A;
    },
  };
  return health;
}
