import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256Hex } from '../../lib/hash.js';
export const PLANS = 'agent-plans';
export const PLAN_HEADS = 'agent-plan-heads';
export const PLAN_INTENTS = 'agent-plan-intents';
export const pairKey = (uid, slug) => `${uid}/${slug}`;
export const draftDocId = (uid, slug) => `${uid}/${slug}/draft`;
export const versionDocId = (uid, slug, version) => `${uid}/${slug}/v${version}`;
export const draftPlanId = (slug) => `${slug}@draft`;
export const versionPlanId = (slug, version) => `${slug}@v${version}`;
/** The version a plan id names for `slug` ('draft' or a number), or undefined when it is not one of slug's. */
export function parsePlanId(slug, planId) {
    if (planId === draftPlanId(slug))
        return 'draft';
    const match = /^v([1-9][0-9]{0,8})$/.exec(planId.startsWith(`${slug}@`) ? planId.slice(slug.length + 1) : '');
    return match ? Number(match[1]) : undefined;
}
/** Gives steps without an id `s1`, `s2`... by position, and refuses duplicate ids. */
export function normalizePlan(plan) {
    const steps = plan.steps.map((step, i) => ({ ...step, id: step.id ?? `s${i + 1}` }));
    const seen = new Set();
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
export function planBytes(plan) {
    const bytes = Buffer.from(canonicalJson(plan));
    return { bytes, sha256: sha256Hex(bytes) };
}
//# sourceMappingURL=plan-records.js.map