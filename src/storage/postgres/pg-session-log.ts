import type { SessionEvent } from './pg-session.js';

interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Logs what the session connection did: each loss and return, and every tenth failed reconnect try of
 * an outage (the first included), so an outage of an hour says so without a line per try.
 */
export function logSessionEvents(log: Log): (event: SessionEvent) => void {
  return (event) => {
    if (event.kind === 'lost')
      log.warn('database session connection lost; reconnecting', { losses: event.losses, ...(event.error ? { err: event.error } : {}) });
    else if (event.kind === 'resumed') log.info('database session connection back', { down_ms: event.downMs, attempts: event.attempts });
    else if (event.attempt % 10 === 1) log.warn('database session reconnect failed; retrying', { attempt: event.attempt, err: event.error });
  };
}
