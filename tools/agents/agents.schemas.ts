import { z } from 'zod';
import { Hex64, IsoDate, JsonObject, Slug, Tick, Uid } from '../../src/registry/common-schemas.js';
import type { FileEncoding as StoredFileEncoding } from '../../src/domain/agents/file-repository.js';
import type { DelegatedAccess, Delegation as AgentDelegation } from '../../src/domain/agents/delegation-repository.js';
import type { SandboxRunView } from '../../src/domain/sandbox/sandbox-run-repository.js';
import type { FileVersionView } from '../../src/domain/agents/files.service.js';
import type { QuotaView } from '../../src/domain/sandbox/sandbox.service.js';
import type { PlanView } from '../../src/domain/agents/plans.service.js';
import type { PlanBody as StoredPlanBody } from '../../src/domain/agents/plan-records.js';
import { wireShape } from '../../src/registry/wire-shape.js';

export const PlanId = z.string().min(1).max(128).describe('Plan id');

export const PlanStep = z.object({
  id: z.string().min(1).max(64).optional().describe('Step id, unique in the plan; assigned when absent'),
  action: z.string().min(1).max(2000).describe('What the step does'),
  tool: z.string().max(64).optional().describe('Tool or operation the step uses, e.g. "core_compute"'),
  expected: z.string().max(2000).optional().describe('Outcome that marks the step done'),
});

/** The shape a draft or a lock body carries. */
export const PlanBody = wireShape<StoredPlanBody>()(
  z
    .object({
      title: z.string().min(1).max(200),
      goal: z.string().min(1).max(4000),
      steps: z.array(PlanStep).min(1).max(200),
      notes: z.string().max(20_000).optional(),
      meta: JsonObject.optional().describe('Free-form data the agent keeps with the plan'),
    })
    .describe('The plan'),
);

export const PlanRecord = wireShape<PlanView>()(
  z.object({
    plan_id: PlanId,
    uid: Uid,
    slug: Slug,
    status: z.enum(['draft', 'locked', 'superseded']),
    version: z.number().int().min(1).nullable().describe('Locked version number; null for the draft'),
    plan: PlanBody,
    plan_sha256: Hex64.describe('SHA-256 of the canonical JSON of `plan`'),
    tick: Tick.describe('Tick of the last write (draft) or of the lock'),
    superseded_by: PlanId.nullable().describe('Plan that superseded this locked version, if any'),
    created_at: IsoDate,
    updated_at: IsoDate,
  }),
);

/** Relative path in the agent's file store; the service normalises it further. */
export const FilePath = z
  .string()
  .min(1)
  .max(512)
  // eslint-disable-next-line no-control-regex -- a path with control characters is refused
  .regex(/^(?!\/)(?!(?:.*\/)?\.\.(?:\/|$))[^\u0000-\u001f\u007f\\]+$/, 'a path is relative, without "..", backslashes or control characters')
  .describe('Relative path, e.g. "notes/plan.md"');

export const FileEncoding = wireShape<StoredFileEncoding>()(z.enum(['utf8', 'base64']));

export const FileVersion = wireShape<FileVersionView>()(
  z.object({
    path: FilePath,
    version: z.number().int().min(1),
    bytes: z.number().int().min(0),
    sha256: Hex64,
    encoding: FileEncoding.describe('Encoding the version was written with'),
    tick: Tick,
    created_at: IsoDate,
  }),
);

export const SkillName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a skill name is lowercase letters, digits and "-"')
  .describe('Skill name from the catalogue, e.g. "verify-a-receipt"');

export const SandboxRun = wireShape<SandboxRunView>()(
  z.object({
    ok: z.boolean().describe('True when the code exited with status 0'),
    run_id: z.string(),
    exit_code: z.number().int().describe("The code's own status; 124 on timeout, 137 when killed for memory"),
    stdout: z.string(),
    stderr: z.string(),
    stdout_truncated: z.boolean().describe('stdout was cut at 64 KB'),
    stderr_truncated: z.boolean().describe('stderr was cut at 64 KB'),
    duration_ms: z.number().min(0),
    units_mz: z.number().int().min(0).describe('Wall time charged, in mz (0.777 ms each)'),
    slug: Slug.nullable(),
    code_sha256: Hex64,
    timeout_ms: z.number().int().min(0).describe('Wall-time limit applied: the one asked for, lowered to what the unit quota had left'),
    tick: Tick.describe('Tick at which the run started'),
    started_at: IsoDate,
  }),
);

export const SandboxQuota = wireShape<QuotaView>()(
  z.object({
    window_hours: z.literal(24),
    runs_used: z.number().int().min(0),
    runs_limit: z.number().int().min(0),
    units_used_mz: z.number().int().min(0),
    units_limit_mz: z.number().int().min(0),
    next_free_at: IsoDate.nullable().describe('When the oldest run in the window leaves it; null when the window is empty'),
  }),
);

export const DelegationAccess = wireShape<DelegatedAccess>()(
  z.enum(['read', 'write']).describe("read: reads only; write: also changes, sandbox runs on the agent's quota included"),
);

export const Delegation = wireShape<AgentDelegation>()(
  z.object({
    slug: Slug.describe('Machine whose owner the agent delegated'),
    grantee_uid: Uid.describe('Owner of the machine when the delegation was made; only this uid may use it'),
    access: DelegationAccess,
    created_at: IsoDate,
  }),
);
