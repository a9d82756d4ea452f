import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256Hex } from '../../lib/hash.js';

/** A plan body: title, goal, ordered steps. */
export interface PlanBody {
  title: string;
  goal: string;
  steps: Array<{ id?: string; action: string; tool?: string; expected?: string }>;
  notes?: string;
  meta?: Record<string, unknown>;
}

export type PlanStatus = 'draft' | 'locked' | 'superseded';

/** A plan as stored: metadata only; the body is a blob in the agent's blob log. */
export interface PlanDoc {
  plan_id: string;
  uid: string;
  slug: string;
  status: PlanStatus;
  version: number | null;
  plan_sha256: string;
  blob_seq: number;
  tick: number;
  superseded_by: string | null;
  created_at: string;
  updated_at: string;
  /** Id of the lock that created a locked version; also the transition id of its `plan_locked` row. */
  lock_id?: string;
  locked_ms?: number;
}

/** The highest locked version of an (agent, machine) pair, kept to avoid scanning; the rows stay the truth. */
export interface PlanHead {
  uid: string;
  slug: string;
  latest_version: number;
}

/**
 * Written before a lock's commit point and deleted after its last step. Its presence means a lock of
 * the pair may be unfinished: recovery rolls it forward when its version row exists, or drops it when
 * the row was never written.
 */
export interface LockIntent {
  uid: string;
  slug: string;
  version: number;
  plan_id: string;
  row_id: string;
  lock_id: string;
  plan_sha256: string;
  blob_seq: number;
  from_draft: boolean;
  tick: number;
  locked_ms: number;
  actor_uid: string;
}

export const pairKey = (uid: string, slug: string) => `${uid}/${slug}`;
export const draftDocId = (uid: string, slug: string) => `${uid}/${slug}/draft`;
export const versionDocId = (uid: string, slug: string, version: number) => `${uid}/${slug}/v${version}`;
export const draftPlanId = (slug: string) => `${slug}@draft`;
export const versionPlanId = (slug: string, version: number) => `${slug}@v${version}`;

/** The version a plan id names for `slug` ('draft' or a number), or undefined when it is not one of slug's. */
export function parsePlanId(slug: string, planId: string): number | 'draft' | undefined {
  if (planId === draftPlanId(slug)) return 'draft';
  const match = /^v([1-9][0-9]{0,8})$/.exec(planId.startsWith(`${slug}@`) ? planId.slice(slug.length + 1) : '');
  return match ? Number(match[1]) : undefined;
}

/** Gives steps without an id `s1`, `s2`... by position, and refuses duplicate ids. */
export function normalizePlan(plan: PlanBody): PlanBody {
  const steps = plan.steps.map((step, i) => ({ ...step, id: step.id ?? `s${i + 1}` }));
  const seen = new Set<string>();
  for (const [i, step] of steps.entries()) {
    if (seen.has(step.id)) {
      throw errors.validation(`Step id "${step.id}" appears twice; step ids must be unique in a plan`, {
        issues: [{ path: `plan.steps.${i}.id`, message: 'duplicate step id', code: 'custom' }],
      });
    }
    seen.add(step.id);
  }
  return { ...plan, steps };
}

/** Canonical bytes of a plan body and their SHA-256 (`plan_sha256`). */
export function planBytes(plan: PlanBody): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.from(canonicalJson(plan));
  return { bytes, sha256: sha256Hex(bytes) };
}
