import type { LogRow, RowInput, Store } from '../../storage/port.js';
import type { Charge } from './sandbox-quota.js';
import type { EndReason } from './sandbox-runner.js';

/** A run as shown to callers (and stored, with a few fields more). */
export interface SandboxRunView {
  ok: boolean;
  run_id: string;
  exit_code: number;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  duration_ms: number;
  units_mz: number;
  slug: string | null;
  code_sha256: string;
  timeout_ms: number;
  tick: number;
  started_at: string;
}

/** A recorded run: the view callers see plus who ran it and when it started. */
export interface RunRow extends LogRow, SandboxRunView {
  type: 'sandbox.run';
  uid: string;
  actor_uid: string;
  reason: EndReason;
  started_ms: number;
}

/** A run admitted but not yet recorded, with the time after which other processes stop counting it. */
export interface Reservation extends Charge {
  expires_ms: number;
}

/** One agent's reservations, by run id. */
export interface Reservations {
  uid: string;
  runs: Record<string, Reservation>;
}

/**
 * Runs admitted but not yet recorded, one document per agent (`sandbox-reservations/<uid>`): each holds
 * a run slot and the units of its time limit in every process sharing the store.
 */
const SANDBOX_RESERVATIONS = 'sandbox-reservations';

/** Each agent's recorded runs, oldest first: one append-only stream per agent. */
function runStream(uid: string): string {
  return `sandbox-runs/${uid}`;
}

export interface SandboxRunRepository {
  /** The agent's stored reservations (expired ones included). */
  reservations(uid: string): Promise<Reservations | undefined>;
  /**
   * Read-modify-write of the agent's reservations without lost updates: `fn` sees the stored document
   * (or undefined) and returns the next one, or undefined to leave it. Serialized per agent across
   * every process sharing the store.
   */
  updateReservations(uid: string, fn: (current: Reservations | undefined) => Reservations | undefined): Promise<void>;
  /** Records a finished run; resolves with the stored row once it is durable. */
  appendRun(uid: string, row: RowInput<RunRow>): Promise<RunRow>;
  /** The agent's runs recorded at or after `fromTick`, oldest first. */
  runsFromTick(uid: string, fromTick: number): Promise<RunRow[]>;
  /** At most `limit` of the agent's runs, newest first, those before seq `beforeSeq` when given. */
  newestRuns(uid: string, limit: number, beforeSeq?: number): Promise<RunRow[]>;
}

/** The one owner of the sandbox's reservations and run logs. */
export function createSandboxRunRepository(store: Store): SandboxRunRepository {
  return {
    reservations: (uid) => store.docs.get<Reservations>(SANDBOX_RESERVATIONS, uid),

    async updateReservations(uid, fn) {
      await store.docs.update<Reservations>(SANDBOX_RESERVATIONS, uid, fn);
    },

    appendRun: (uid, row) => store.logs.append<RunRow>(runStream(uid), () => row),

    runsFromTick: (uid, fromTick) => store.logs.read<RunRow>(runStream(uid), { fromTick }),

    newestRuns: (uid, limit, beforeSeq) =>
      store.logs.read<RunRow>(runStream(uid), { reverse: true, limit, ...(beforeSeq !== undefined ? { toSeq: beforeSeq - 1 } : {}) }),
  };
}
