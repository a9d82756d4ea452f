import type { ScenarioOutcome, SuiteCheck } from './suite-runner.js';

/**
 * What `baseline.json` says of one revision: the scenarios our server must pass, the single checks inside
 * them it may fail (`"scenario:check-id"`), and the scenarios left out; every left-out entry carries its reason.
 */
export interface RevisionBaseline {
  expected: string[];
  leftOutChecks: Record<string, string>;
  leftOut: Record<string, string>;
}

/** The verdict on one expected scenario: empty `problems` means it passed. */
export interface ScenarioVerdict {
  name: string;
  problems: string[];
}

/** Statuses that fail an expected scenario: the suite reports a broken SHOULD as WARNING, and we hold the server to those too. */
const FAILING: ReadonlySet<SuiteCheck['status']> = new Set(['FAILURE', 'WARNING']);

/**
 * Passing means: the suite wrote checks, at least one of them succeeded (a scenario that only reports
 * INFO or SKIPPED exercised nothing), and none failed or warned except the checks the baseline names for
 * that scenario. An outcome the suite never produced fails with "not run".
 */
export function judgeScenario(name: string, outcome: ScenarioOutcome | undefined, leftOutChecks: Record<string, string>): ScenarioVerdict {
  if (!outcome) return { name, problems: ['not run by the suite'] };
  if (!outcome.checks) return { name, problems: [`no checks: ${outcome.crash}`] };
  const excused = (check: SuiteCheck) => `${name}:${check.id}` in leftOutChecks;
  const problems = outcome.checks
    .filter((check) => FAILING.has(check.status) && !excused(check))
    .map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? '(no message)'}`);
  if (!outcome.checks.some((check) => check.status === 'SUCCESS' && !excused(check))) problems.push('no check succeeded');
  return { name, problems };
}

/**
 * Problems with the baseline itself against what the suite ran: a scenario it ran that the baseline does
 * not account for (a new suite version added it), an entry for a scenario it did not run, an entry both
 * expected and left out, a left-out check outside the expected scenarios, or a reason left empty.
 */
export function baselineProblems(baseline: RevisionBaseline, ran: readonly string[]): string[] {
  const problems: string[] = [];
  const expected = new Set(baseline.expected);
  const leftOut = new Set(Object.keys(baseline.leftOut));
  const ranSet = new Set(ran);
  for (const name of ran) {
    if (!expected.has(name) && !leftOut.has(name)) problems.push(`${name}: run by the suite but neither expected nor left out`);
  }
  for (const name of new Set([...expected, ...leftOut])) {
    if (!ranSet.has(name)) problems.push(`${name}: named by the baseline but not run by the suite`);
    if (expected.has(name) && leftOut.has(name)) problems.push(`${name}: both expected and left out`);
  }
  for (const key of Object.keys(baseline.leftOutChecks)) {
    const scenario = key.slice(0, key.indexOf(':'));
    if (!key.includes(':') || !expected.has(scenario)) problems.push(`${key}: a left-out check must be "scenario:check-id" of an expected scenario`);
  }
  for (const [key, reason] of [...Object.entries(baseline.leftOut), ...Object.entries(baseline.leftOutChecks)]) {
    if (reason.trim() === '') problems.push(`${key}: left out without a reason`);
  }
  return problems;
}

/** One line per scenario for the log: its statuses, and whether the baseline expects it. */
export function summaryLine(outcome: ScenarioOutcome, baseline: RevisionBaseline): string {
  const role = baseline.expected.includes(outcome.name) ? 'expected' : 'left out';
  if (!outcome.checks) return `${outcome.name} [${role}]: no checks (${outcome.crash})`;
  const counts = new Map<string, number>();
  for (const check of outcome.checks) counts.set(check.status, (counts.get(check.status) ?? 0) + 1);
  return `${outcome.name} [${role}]: ${[...counts].map(([status, n]) => `${n} ${status}`).join(', ')}`;
}
