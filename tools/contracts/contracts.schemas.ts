import { z } from 'zod';
import { Hex64, IsoDate, JsonObject, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import { Secret } from '../../src/registry/secret-fields.js';
import { sharedShape } from '../../src/registry/shared-shapes.js';
import type { CandidateResult, PredictedFireView } from '../../src/domain/contracts/contract-planning.service.js';
import type { ContractStatus as ContractStatusName, TransitionFields } from '../../src/domain/contracts/contract.types.js';
import { wireShape } from '../../src/registry/wire-shape.js';

/**
 * Schemas shared by the contracts toolset. Definition schemas are loose on purpose: definitions are
 * stored as written (they may carry `oracle`, `observers`, `audit_clock`, `tick_rate` or members a
 * later version adds), and the contracts service runs the semantic checks (one initial state, known
 * operators, valid cron) that a schema cannot express.
 */

export const ContractId = z.string().min(1).max(128).describe('Contract id');

export const TemplateId = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a template id is kebab-case')
  .max(128)
  .describe('Template id, kebab-case. For example "force-threshold-alarm"');

export const StateName = z.string().min(1).max(64).describe('State name, e.g. "watching"');

export const OperatorId = z.string().min(1).max(64).describe('Operator id from the operator registry, e.g. "KO42" or "NM19"');

export const EventName = z.string().min(1).max(64).describe('Event name, e.g. "reading"');

export const ContractStatus = wireShape<ContractStatusName>()(
  z.enum(['active', 'paused', 'frozen', 'killed']).describe('active fires when due; paused skips fires until resumed; frozen and killed never fire again'),
);

export const Comparison = z.enum(['>', '>=', '<', '<=', '==', '!=']);

const StateSpec = z
  .object({
    initial: z.boolean().optional().describe('True on exactly one state, where contracts start'),
    terminal: z.boolean().optional().describe('True on states with no way out'),
  })
  .loose();

const SourceMachine = Slug.optional().describe('Machine whose events it listens to; this one by default. You must be able to read it');

/** How a transition fires by itself; `kind` is the discriminator. */
export const Trigger = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('one_shot'),
      at_tick: Tick.optional().describe('Tick to fire at; give this or at_unix'),
      at_unix: z.number().int().min(0).optional().describe('Unix seconds to fire at; give this or at_tick'),
    })
    .loose()
    .describe('Fires once, at at_tick or at_unix'),
  z
    .object({
      kind: z.enum(['every', 'recurring']),
      every_ticks: z.number().int().min(1).describe('Interval in ticks'),
    })
    .loose()
    .describe('Fires every N ticks'),
  z
    .object({
      kind: z.literal('cron'),
      cron: z.string().min(9).max(120).describe('5-field UTC cron, e.g. "0 9 * * 1-5"'),
    })
    .loose()
    .describe('On `cron`, in UTC'),
  z
    .object({ kind: z.literal('on_event'), event: EventName, machine: SourceMachine })
    .loose()
    .describe('When `event` arrives. It is posted to the machine, or emitted by one of its contracts'),
  z
    .object({ kind: z.literal('on_events'), events: z.array(EventName).min(1).max(32), machine: SourceMachine })
    .loose()
    .describe('When any of `events` arrives'),
  z
    .object({
      kind: z.literal('on_aggregate'),
      event: EventName.describe('Event whose rows are aggregated'),
      machine: SourceMachine,
      within_ticks: z.number().int().min(1).describe('Window length in ticks'),
      aggregate: z
        .object({
          fn: z.enum(['count', 'sum', 'avg', 'min', 'max']),
          field: z.string().min(1).max(64).optional().describe('Payload field to aggregate; required unless fn is count'),
        })
        .loose(),
      op: Comparison,
      threshold: z.number(),
    })
    .loose()
    .describe('When fn(event rows) over within_ticks compares to threshold by op, e.g. count(approve) >= 3'),
]);

/** A step run before (`pre_actions`) or after (`post_actions`) a transition; `type` is the discriminator. */
export const ContractAction = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('emit'), event: EventName, payload: JsonObject.optional().describe('Extra event payload') })
    .loose()
    .describe('Emits event on the machine'),
  z
    .object({ type: z.literal('set_state'), state: StateName.describe('State to set') })
    .loose()
    .describe('Overrides the resulting state'),
  z
    .object({
      type: z.literal('api_call'),
      api: z.string().min(1).max(64).describe('Registered API name'),
      path: z.string().max(512).describe('Path under the API base URL'),
      bind: z.string().min(1).max(64).optional().describe('Input-scope name for the response'),
    })
    .loose()
    .describe('Calls a registered API, binding its response into the input scope'),
]);

export const TransitionSpec = z
  .object({
    from: StateName.describe('Source state'),
    to: StateName.describe('Target state'),
    operator: OperatorId.optional().describe('Operator run by this transition; give this or operators'),
    operators: z.array(OperatorId).min(1).max(16).optional().describe('Operator chain, instead of operator'),
    condition: z
      .string()
      .max(2000)
      .optional()
      .describe('CEL expression over the input scope, e.g. "input.force_n > input.limit_n" (bare names resolve in input)'),
    operator_inputs: z
      .record(z.string().min(1).max(128), z.string().min(1).max(500))
      .optional()
      .describe('Operator input ("m" or "NM19.m") -> CEL expression giving its value, e.g. {"m": "input.mass_kg"}'),
    proof_required: z.boolean().optional().describe('Whether a fire must carry a verified proof'),
    auto: z.boolean().optional().describe('Scheduler may take it without a caller'),
    trigger: Trigger.optional(),
    pre_actions: z.array(ContractAction).max(16).optional(),
    post_actions: z.array(ContractAction).max(16).optional(),
  })
  .loose();

export const ContractDefinition = sharedShape(
  z
    .object({
      name: z.string().min(1).max(255).describe('snake_case by convention'),
      version: z.string().max(32).optional().describe('Author version label'),
      created_by: Uid.optional(),
      states: z.record(StateName, StateSpec).describe('States keyed by name: {} or {"initial": true} or {"terminal": true}'),
      transitions: z.array(TransitionSpec).max(256),
      oracle: JsonObject.optional().describe(
        'Oracle settings; contracts with one are listed by the oracles read. `field` names the input value each successful fire records as a reading (default: the operator output)',
      ),
      defaults: JsonObject.optional().describe('Input values used when a call or event gives none; template parameters land here'),
      secrets: Secret(
        JsonObject.describe(
          'Write-only values conditions read as secrets.<name>: stored and used by the server, never returned by any read or export. An edit without secrets keeps the current ones; {} clears them',
        ),
      ).optional(),
      observers: z.array(z.unknown()).optional(),
      audit_clock: z.boolean().optional().describe('Stamp every fire with the machine clock'),
      tick_rate: z.number().positive().optional().describe('Ticks per scheduler step, 1 by default'),
    })
    .loose()
    .describe('State-contract definition: states, transitions with operators, conditions and triggers'),
  { name: 'contract definition', home: 'core_contract_deploy', field: 'definition' },
);

export const Contract = z.object({
  id: ContractId,
  slug: Slug,
  name: z.string(),
  template_id: z.string().nullable().describe('Template it was deployed from, or null'),
  definition: ContractDefinition,
  current_state: StateName,
  status: ContractStatus,
  current_version_no: z.number().int().min(1),
  next_fire: Tick.nullable().describe('Tick of the next scheduled fire; null when none is scheduled'),
  fire_count: z.number().int().min(0),
  integrity_hash: Hex64.describe('Stored SHA-256 of the live definition'),
  created_by: Uid,
  created_at: IsoDate,
  updated_at: IsoDate,
});

/**
 * A domain value handed to the output check. Domain types are structural (a definition's triggers are
 * one interface, not zod's discriminated union); the pipeline's output check validates the value itself.
 */
export const asOutput = (value: unknown): never => value as never;

/** A transition row as answers show it: without the row's position, the scheduler's runtime fields, the receipt and the failure message. */
export const TransitionRow = wireShape<
  Pick<
    TransitionFields,
    | 'id'
    | 'contract_id'
    | 'transition_type'
    | 'tick_number'
    | 'from_state'
    | 'to_state'
    | 'operators'
    | 'input'
    | 'result'
    | 'success'
    | 'error'
    | 'triggered_by'
    | 'proof_digest'
    | 'prev_hash'
    | 'state_hash'
    | 'created_at'
  >
>()(
  z.object({
    id: z.string(),
    contract_id: ContractId,
    transition_type: z.string().describe('Row type, e.g. "contract"'),
    tick_number: Tick,
    from_state: StateName,
    to_state: StateName,
    operators: z.array(z.string()),
    input: JsonObject,
    result: z.unknown().describe('Operator result; null on failure'),
    success: z.boolean(),
    error: z.string().nullable().describe('Failure code, e.g. "condition_failed"; null on success'),
    triggered_by: z.string().describe('What drove it: "caller", "trigger" or "fire_now"'),
    proof_digest: Hex64.nullable(),
    prev_hash: Hex64.describe('Hash of the previous row of this contract (the chain link)'),
    state_hash: Hex64,
    created_at: IsoDate,
  }),
);

/** One predicted fire of a scheduled trigger. */
export const PredictedFire = wireShape<PredictedFireView>()(
  z.object({
    tick_number: Tick,
    at: IsoDate,
    trigger_kind: z.string(),
    from: StateName,
    to: StateName,
  }),
);

/** Outcome of one candidate transition in a dry run or simulation. */
export const DryRunResult = wireShape<CandidateResult>()(
  z.object({
    from: StateName,
    to: StateName,
    outcome: z.enum(['fire', 'filtered', 'pass']).describe('fire: would fire; filtered: its condition is false; pass: not applicable now'),
    reason: z.string().nullable(),
    condition: z.string().nullable(),
    trigger_kind: z.string().nullable(),
  }),
);

/** Portable form of a contract; omits runtime state, audit, watermarks and secrets. */
export const ExportEnvelope = sharedShape(
  z.object({
    format: z.literal('core.contract/1').describe('Envelope format and version'),
    exported_at: IsoDate,
    exported_tick: Tick,
    source: z.object({ slug: Slug, contract_id: ContractId, version_no: z.number().int().min(1) }),
    name: z.string().min(1).max(255),
    template_id: z.string().nullable(),
    definition: ContractDefinition,
    definition_hash: Hex64.describe('SHA-256 of the canonical JSON of definition'),
  }),
  { name: 'export envelope', returnedBy: 'core_contract_transfer export' },
);
