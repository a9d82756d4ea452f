import type { JsonObject, LogRow, RowInput, Store } from '../../storage/port.js';

/** The protocol part of an agent's state: which plan is current. Only plan locking changes it. */
export interface ProtocolState {
  current_plan_id: string | null;
  current_plan_slug: string | null;
  /** When that plan was locked (ISO-8601), or null. */
  locked_at: string | null;
}

/** One version of an agent's state: each change appends the whole new state. */
export interface StateRow extends LogRow {
  type: 'state';
  state: JsonObject;
  protocol: ProtocolState & { locked_ms: number | null };
  updated_at: string;
}

/** The public part of an agent's state, copied out so the directory never opens private state. */
export interface AgentProfile {
  uid: string;
  display_name: string | null;
  updated_at: string;
}

const PROFILES = 'agent-profiles';
/** Each change appends the whole new state, so a read-modify-write is one atomic append and history is kept. */
const stateStream = (uid: string) => `agent-state/${uid}`;

/** Agents' state logs and public profiles: the only module that names them. */
export interface StateRepository {
  /** The agent's current state row, if it ever changed its state. */
  head(uid: string): Promise<StateRow | undefined>;
  /** Appends the row `build` makes from the current head, under the log's lock (see `LogStore.append`). */
  append(uid: string, build: (head: StateRow | undefined) => RowInput<StateRow>): Promise<StateRow>;
  profile(uid: string): Promise<AgentProfile | undefined>;
  /**
   * The profiles of these agents (those that have one): one read by id per uid (PostgreSQL sends the
   * reads of one turn as one query), never a pass over the collection.
   */
  profilesOf(uids: readonly string[]): Promise<AgentProfile[]>;
  /** Read-modify-write of the agent's profile. */
  updateProfile(uid: string, fn: (current: AgentProfile | undefined) => AgentProfile | undefined): Promise<void>;
}

export function createStateRepository(store: Store): StateRepository {
  return {
    head: (uid) => store.logs.head<StateRow>(stateStream(uid)),
    append: (uid, build) => store.logs.append<StateRow>(stateStream(uid), (head) => build(head)),
    profile: (uid) => store.docs.get<AgentProfile>(PROFILES, uid),
    async profilesOf(uids) {
      const found = await Promise.all(uids.map((uid) => store.docs.get<AgentProfile>(PROFILES, uid)));
      return found.filter((p) => p !== undefined);
    },
    async updateProfile(uid, fn) {
      await store.docs.update<AgentProfile>(PROFILES, uid, fn);
    },
  };
}
