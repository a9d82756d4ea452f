import { isObject } from '../../lib/is-object.js';
import type { LogRow } from '../../storage/port.js';

export type ContractStatus = 'active' | 'paused' | 'frozen' | 'killed';

export type TriggerKind = 'one_shot' | 'every' | 'recurring' | 'cron' | 'on_event' | 'on_events' | 'on_aggregate';

/** A trigger as the definition holds it (validated by `validateDefinition`). */
export interface TriggerSpec {
  kind: TriggerKind;
  at_tick?: number;
  at_unix?: number;
  every_ticks?: number;
  cron?: string;
  event?: string;
  events?: string[];
  /** Machine whose events an event trigger listens to; the contract's own machine when absent. */
  machine?: string;
  within_ticks?: number;
  aggregate?: { fn: 'count' | 'sum' | 'avg' | 'min' | 'max'; field?: string };
  op?: '>' | '>=' | '<' | '<=' | '==' | '!=';
  threshold?: number;
  [key: string]: unknown;
}

export interface ActionSpec {
  type: 'emit' | 'set_state' | 'api_call';
  event?: string;
  payload?: Record<string, unknown>;
  state?: string;
  api?: string;
  path?: string;
  bind?: string;
  [key: string]: unknown;
}

export interface TransitionSpec {
  from: string;
  to: string;
  operator?: string;
  operators?: string[];
  condition?: string;
  /** CEL expressions over the input scope giving operator inputs, keyed `<name>` or `<ID>.<name>`. */
  operator_inputs?: Record<string, string>;
  proof_required?: boolean;
  auto?: boolean;
  trigger?: TriggerSpec;
  pre_actions?: ActionSpec[];
  post_actions?: ActionSpec[];
  [key: string]: unknown;
}

export interface Definition {
  name: string;
  version?: string;
  states: Record<string, { initial?: boolean; terminal?: boolean; [key: string]: unknown }>;
  transitions: TransitionSpec[];
  oracle?: Record<string, unknown>;
  /** Input values used when a caller or an event does not give them (template parameters). */
  defaults?: Record<string, unknown>;
  /**
   * Write-only values the contract's conditions read as `secrets.<name>`: stored and used server-side,
   * never answered (the output rule strips them; see `Secret` in `src/registry/secret-fields.ts`) and
   * never exported. A new definition without `secrets` keeps the current ones.
   */
  secrets?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The definition's secrets as conditions see them: an object, empty when there are none. */
export function secretsOf(definition: Definition): Record<string, unknown> {
  const secrets = definition.secrets;
  return isObject(secrets) ? secrets : {};
}

/** A contract as stored (collection `contracts`). Runtime state lives in its transition rows, not here. */
export interface ContractRecord {
  id: string;
  slug: string;
  name: string;
  template_id: string | null;
  definition: Definition;
  /** SHA-256 of the canonical JSON of `definition`, written with it. */
  integrity_hash: string;
  status: ContractStatus;
  current_version_no: number;
  created_by: string;
  created_at: string;
  updated_at: string;
  created_tick: number;
  /** Recurring and cron schedules count from here (create, edit, rollback, resume), never from before. */
  anchor_tick: number;
  /** Due ticks passed over by skip-next, by transition key: fires at or before them never happen. */
  skip_floor: Record<string, number>;
  killed?: { tick: number; reason: string; by: string } | undefined;
  /**
   * Whose right to read decides what the contract's event triggers receive: the identity that set the
   * current definition (create, edit, rollback, import). Absent on contracts written before it existed:
   * `created_by` then. See `listener-access.ts`.
   */
  listener?: ListenerPrincipal;
  /**
   * The contract's place in creation order (the contracts collection's insertion order), set by the
   * repository: on insert, or by its backfill for contracts stored before it existed. Never answered.
   */
  ordinal?: number;
}

/** The identity a listening contract reads other machines' events as; never a share token. */
export interface ListenerPrincipal {
  uid: string;
  /** The machine a machine key was bound to: such a key carries no authority elsewhere. */
  machine?: string;
  /** A key's scope, which caps its role. */
  scope?: 'read' | 'write' | 'admin';
}

/** The fields of a transition row (see `TransitionRecord`). */
export interface TransitionFields {
  id: string;
  /** 1-based position of the row among the contract's rows. */
  n: number;
  contract_id: string;
  transition_type: string;
  tick_number: number;
  from_state: string;
  to_state: string;
  /** Index of the definition transition taken; null when none matched. */
  transition_index: number | null;
  operators: string[];
  input: Record<string, unknown>;
  result: unknown;
  success: boolean;
  error: string | null;
  /** Human-readable reason of a failure. */
  error_message: string | null;
  triggered_by: string;
  proof_digest: string | null;
  receipt: Record<string, unknown> | null;
  /** Due tick of a scheduled fire; null for driven and event fires. */
  due_tick: number | null;
  /** Due fires collapsed into this one after downtime. */
  skipped: number;
  /** Runtime state after this row: what the scheduler restarts from. */
  fire_count: number;
  entered_tick: number;
  watermarks: Record<string, number>;
  emitted: string[];
  version_no: number;
  /**
   * Who the fire's envelope is issued to; present when the fire is to mint one (a successful fire, with
   * envelopes on). The audit recovery mints it after a crash cut the fire off before its envelope.
   */
  envelope_for?: string;
  prev_hash: string;
  state_hash: string;
  created_at: string;
}

/** One transition row (stream `contracts/<slug>/transitions`, row type = contract id). */
export interface TransitionRecord extends TransitionFields, LogRow {}

/** A contract's runtime state, derived from its last transition row. */
export interface Runtime {
  state: string;
  entered_tick: number;
  fire_count: number;
  /** Last due tick fired (or passed) per scheduled transition key. */
  watermarks: Record<string, number>;
  /** Rows written so far. */
  n: number;
  last: TransitionRecord | undefined;
}

/** The fields of a version row (see `VersionRecord`). */
export interface VersionFields {
  n: number;
  contract_id: string;
  definition: Definition;
  definition_hash: string;
  created_by: string;
  tick_number: number;
  created_at: string;
  note: string | null;
  rolled_back_from: number | null;
}

/** One contract version (stream `contracts/<slug>/versions`, row type = contract id). */
export interface VersionRecord extends VersionFields, LogRow {}

/** One emitted contract event (stream `contracts/<slug>/events`, row type = event name). */
export interface EventRecord extends LogRow {
  name: string;
  contract_id: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** An event delivered to a machine's contracts, kept for aggregates (row type = `<source slug>/<name>`). */
export interface InboxRecord extends LogRow {
  name: string;
  source_slug: string;
  payload: Record<string, unknown>;
}
