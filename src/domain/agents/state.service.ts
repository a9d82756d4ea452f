import { CoreError, errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { Clock } from '../../lib/clock.js';
import type { JsonObject } from '../../storage/port.js';
import { mergePatch } from './merge-patch.js';
import { type ProtocolState, type StateRow, type StateRepository } from './state-repository.js';

export type { AgentProfile, ProtocolState } from './state-repository.js';

export interface StateView {
  uid: string;
  /** The agent's own members plus the read-only `protocol` member. */
  state: Record<string, unknown>;
  protocol: ProtocolState;
  revision: number;
  updated_at: string | null;
}

/** Largest state, as canonical JSON; the state is rewritten whole on every change. */
export const MAX_STATE_BYTES = 64 * 1024;
/** Longest `display_name` the public directory shows. */
export const MAX_DISPLAY_NAME = 100;

const EMPTY_PROTOCOL: StateRow['protocol'] = { current_plan_id: null, current_plan_slug: null, locked_at: null, locked_ms: null };

export interface StateService {
  get(uid: string): Promise<StateView>;
  /** Applies a JSON merge patch; `protocol` cannot be patched and the result must stay under 64 KiB. */
  patch(uid: string, patch: Record<string, unknown>): Promise<StateView>;
  /**
   * Points the protocol state at a locked plan, unless it already does or points at a plan locked
   * later (so replaying an older lock after a crash never moves the pointer back). Idempotent.
   */
  setCurrentPlan(uid: string, plan: { plan_id: string; slug: string; locked_ms: number }): Promise<void>;
}

export function createStateService(deps: { stateRecords: StateRepository; clock: Clock }): StateService {
  const { stateRecords, clock } = deps;

  const view = (uid: string, row: StateRow | undefined): StateView => {
    const { locked_ms: _ignored, ...protocol } = row?.protocol ?? EMPTY_PROTOCOL;
    return {
      uid,
      state: { ...(row?.state ?? {}), protocol },
      protocol,
      revision: row ? row.seq + 1 : 0,
      updated_at: row?.updated_at ?? null,
    };
  };

  const nextRow = (head: StateRow | undefined, state: JsonObject, protocol: StateRow['protocol']) => ({
    type: 'state' as const,
    tick: clock.tick(),
    state,
    protocol,
    updated_at: new Date(clock.now()).toISOString(),
  });

  /** Copies `display_name` to the profile; every patch re-syncs it, so a crash in between heals on the next one. */
  async function syncProfile(uid: string, row: StateRow): Promise<void> {
    const name = row.state['display_name'];
    const display_name = typeof name === 'string' ? name : null;
    await stateRecords.updateProfile(uid, (current) =>
      (current?.display_name ?? null) === display_name ? undefined : { uid, display_name, updated_at: row.updated_at },
    );
  }

  return {
    async get(uid) {
      return view(uid, await stateRecords.head(uid));
    },

    async patch(uid, patch) {
      if (Object.hasOwn(patch, 'protocol')) {
        throw errors.validation('The `protocol` member is read-only: it changes only when a plan is locked', {
          issues: [{ path: 'patch.protocol', message: 'read-only', code: 'custom' }],
        });
      }
      const name = patch['display_name'];
      if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > MAX_DISPLAY_NAME)) {
        throw errors.validation(`\`display_name\` is public and must be a string of at most ${MAX_DISPLAY_NAME} characters, or null`, {
          issues: [{ path: 'patch.display_name', message: 'invalid display name', code: 'custom' }],
        });
      }
      const row = await stateRecords.append(uid, (head) => {
        const next = mergePatch(head?.state ?? {}, patch) as JsonObject;
        const size = Buffer.byteLength(canonicalJson(next));
        if (size > MAX_STATE_BYTES) {
          throw new CoreError(
            'PAYLOAD_TOO_LARGE',
            `The state would be ${size} bytes; keep it under ${MAX_STATE_BYTES} bytes (use agent files for larger data)`,
          );
        }
        return nextRow(head, next, head?.protocol ?? EMPTY_PROTOCOL);
      });
      await syncProfile(uid, row);
      return view(uid, row);
    },

    async setCurrentPlan(uid, plan) {
      const head = await stateRecords.head(uid);
      if (!needsMove(head, plan)) return;
      await stateRecords
        .append(uid, (current) => {
          // Checked again under the stream's lock: the head may have moved since.
          if (!needsMove(current, plan)) throw new UnchangedError();
          const locked_at = new Date(plan.locked_ms).toISOString();
          return nextRow(current, current?.state ?? {}, { current_plan_id: plan.plan_id, current_plan_slug: plan.slug, locked_at, locked_ms: plan.locked_ms });
        })
        .catch((error: unknown) => {
          if (!(error instanceof UnchangedError)) throw error;
        });
    },
  };
}

function needsMove(head: StateRow | undefined, plan: { plan_id: string; locked_ms: number }): boolean {
  const protocol = head?.protocol ?? EMPTY_PROTOCOL;
  if (protocol.current_plan_id === plan.plan_id) return false;
  return protocol.locked_ms === null || protocol.locked_ms <= plan.locked_ms;
}

class UnchangedError extends Error {}
