import { evaluateCondition, type ConditionOutcome } from './condition.js';
import type { ConditionAllowance } from './condition-allowance.js';
import { runWithAccount } from './condition-meter.js';
import { secretsOf, type ContractRecord } from './contract.types.js';

/**
 * Evaluates the condition of a fire no caller asked for (a schedule, an event) on the allowance of the
 * contract's owner (`created_by`): the evaluation may spend at most what the owner has left in its
 * window, and what it spends is taken from it. An owner whose window is spent gets an over-budget
 * outcome (the fire is recorded as failed with `condition_over_budget`) until the window renews.
 */
export function ownerCondition(
  allowance: ConditionAllowance | undefined,
  record: ContractRecord,
  condition: string,
  scope: Record<string, unknown>,
): ConditionOutcome {
  const secrets = secretsOf(record.definition);
  if (allowance === undefined) return evaluateCondition(condition, scope, secrets);
  const holder = `owner:${record.created_by}`;
  const units = allowance.evaluationUnits(holder);
  if (units <= 0) {
    return {
      ok: false,
      overBudget: true,
      error: `condition is over budget: the contract owner's fires spent their condition work for this window; fires evaluate again in ${allowance.retryAfterS(holder)} s (make conditions cheaper or fire less often)`,
    };
  }
  const account = { spent: 0 };
  const outcome = runWithAccount(account, () => evaluateCondition(condition, scope, secrets, { units }));
  allowance.spend(holder, account.spent);
  return outcome;
}
