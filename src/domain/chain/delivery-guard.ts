import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../events.js';
import type { SseEvent, SseSource } from '../../lib/handler-results.js';
import type { Caller, Role } from '../identity/caller.js';
import type { IdentityService } from '../identity/identity.service.js';
import { hasRole } from '../identity/roles.js';
import type { MachinesService } from './machines.service.js';

/** The final event of a stream whose receiver lost the right to read it. */
export const ACCESS_REVOKED_EVENT = 'access.revoked';

/** What the receiver must keep holding on the machine: a role, or the right to read it at all. */
export type DeliveryNeed = Role | 'read';

export type AccessVerdict = { ok: true; untilMs: number | null } | { ok: false; code: 'NOT_FOUND' | 'FORBIDDEN' | 'UNAUTHENTICATED'; message: string };

/**
 * Authorization that follows the data: a flow opened once (an SSE stream, a listener) delivers only
 * while its receiver still holds the right it was opened with.
 */
export interface DeliveryGuard {
  /**
   * `source` as delivered to `caller`: held while the right is re-checked, ended with a final
   * `access.revoked` event (code and reason) once it is gone. Re-checked when the machine's access
   * changes (its `machine.*`, `admin.*` or `api_key.*` rows, relayed from other processes too), when
   * the caller's own key is revoked, and at the first delivery after a share token, unlock token, key
   * or session expires. Between those, a delivery costs one comparison.
   */
  guard(source: SseSource, target: { slug: string; caller: Caller; need: DeliveryNeed }): SseSource;
  /** Whether `caller` holds `need` on `slug` now (a fresh read), and until when. */
  check(slug: string, caller: Caller, need: DeliveryNeed): Promise<AccessVerdict>;
}

/**
 * Row types that change who may read a machine: visibility, status, share and unlock tokens
 * (`machine.*`), members (`admin.*`) and keys (`api_key.*`). Every such change appends one of them,
 * and rows reach every process sharing the store (see `append-relay.ts`), so they are the signal.
 */
const ACCESS_ROW = /^(?:machine|admin|api_key)\./;

export function createDeliveryGuard(deps: {
  bus: EventBus;
  clock: Clock;
  machines: MachinesService;
  identity: IdentityService;
  onError?: (err: unknown) => void;
  /**
   * Registers a callback for the return of the cross-process messaging connection (`PubSub.onResume`):
   * access rows appended elsewhere meanwhile were never heard, so every open flow is re-checked then.
   */
  onResume?: (cb: () => void) => () => void;
}): DeliveryGuard {
  const { bus, clock, machines, identity } = deps;

  async function check(slug: string, caller: Caller, need: DeliveryNeed, keyChanged = false): Promise<AccessVerdict> {
    const now = clock.now();
    if ((caller.expiresAtMs !== undefined && caller.expiresAtMs <= now) || (keyChanged && !(await identity.credentialLive(caller)))) {
      return { ok: false, code: 'UNAUTHENTICATED', message: 'Missing or invalid key: the key or session this stream was opened with expired or was revoked' };
    }
    const access = await machines.accessNow(slug, caller);
    if (access === undefined) {
      return {
        ok: false,
        code: 'NOT_FOUND',
        message: `You may no longer read "${slug}": it was made private, your role was removed, or the share or unlock token expired or was disabled`,
      };
    }
    if (need !== 'read' && !hasRole(access.role, need)) {
      return { ok: false, code: 'FORBIDDEN', message: `This stream needs the ${need} role on "${slug}"; you now have ${access.role}` };
    }
    const untilMs = Math.min(access.untilMs ?? Infinity, caller.expiresAtMs ?? Infinity);
    return { ok: true, untilMs: untilMs === Infinity ? null : untilMs };
  }

  function guard(source: SseSource, { slug, caller, need }: { slug: string; caller: Caller; need: DeliveryNeed }): SseSource {
    return {
      open(push, lastEventId, end) {
        // 'checking': events are held until the verdict; 'open': delivered; 'closed': dropped.
        let state: 'checking' | 'open' | 'closed' = 'checking';
        let again = false;
        let keyChanged = false;
        let untilMs = Infinity;
        const held: SseEvent[] = [];

        const close = (verdict?: Extract<AccessVerdict, { ok: false }>) => {
          if (state === 'closed') return;
          state = 'closed';
          held.length = 0;
          off();
          offResume?.();
          offGrant?.();
          stop?.();
          if (verdict) push({ event: ACCESS_REVOKED_EVENT, data: { code: verdict.code, message: verdict.message } });
          end?.();
        };

        const recheck = () => {
          if (state === 'closed') return;
          // A change during a check may have come after the read it made: check again after it.
          if (state === 'checking') {
            again = true;
            return;
          }
          state = 'checking';
          void run();
        };

        async function run(): Promise<void> {
          try {
            do {
              again = false;
              const keyRow = keyChanged;
              keyChanged = false;
              const verdict = await check(slug, caller, need, keyRow);
              if (state === 'closed') return;
              if (!verdict.ok) return close(verdict);
              untilMs = verdict.untilMs ?? Infinity;
            } while (again);
            state = 'open';
            for (const event of held.splice(0)) push(event);
          } catch (err) {
            // An unreadable store is not a verdict: end the stream rather than deliver unchecked.
            deps.onError?.(err);
            close();
          }
        }

        const off = bus.on('audit.appended', (event) => {
          if (state === 'closed') return;
          const type = event.row['type'];
          if (typeof type !== 'string' || !ACCESS_ROW.test(type)) return;
          if (event.slug === caller.machine && type.startsWith('api_key.')) keyChanged = true;
          if (event.slug === slug || event.slug === caller.machine) recheck();
        });

        // A revoked OAuth grant ends its tokens' flows at once: the credential check below then fails.
        const grantId = caller.oauth?.grantId;
        const offGrant =
          grantId === undefined
            ? undefined
            : bus.on('oauth.grantRevoked', (event) => {
                if (event.grantId !== grantId) return;
                keyChanged = true;
                recheck();
              });

        // Access rows of the outage may come back late or not at all (only watched machines are caught up):
        // check the key and the right afresh; rows caught up meanwhile are held until the verdict.
        const offResume = deps.onResume?.(() => {
          keyChanged = true;
          recheck();
        });

        let stop: (() => void) | undefined;
        stop = source.open(
          (event) => {
            if (state === 'closed') return;
            if (state === 'checking') held.push(event);
            else if (clock.now() >= untilMs) {
              held.push(event);
              recheck();
            } else push(event);
          },
          lastEventId,
          // The source ended by itself (say it found the machine private): a reader who lost the right
          // to read is told why in a last `access.revoked` event, which the source cannot word.
          () => {
            if (state === 'closed') return;
            check(slug, caller, need).then(
              (verdict) => close(verdict.ok ? undefined : verdict),
              () => close(),
            );
          },
        );
        // The source may have ended while it opened.
        if ((state as string) === 'closed') {
          stop();
          return () => undefined;
        }
        void run();
        return () => {
          if (state === 'closed') return;
          state = 'closed';
          held.length = 0;
          off();
          offResume?.();
          offGrant?.();
          stop?.();
        };
      },
    };
  }

  return { guard, check: (slug, caller, need) => check(slug, caller, need) };
}
