import { describe, expect, it } from 'vitest';
import { baselineProblems, judgeScenario, type RevisionBaseline } from './judge.js';
import type { SuiteCheck } from './suite-runner.js';

const check = (id: string, status: SuiteCheck['status'], errorMessage?: string): SuiteCheck => ({ id, status, ...(errorMessage ? { errorMessage } : {}) });

describe('judging a conformance scenario', () => {
  it('passes a scenario whose checks succeeded, whatever INFO and SKIPPED checks it also reports', () => {
    const verdict = judgeScenario('ping', { name: 'ping', checks: [check('ping', 'SUCCESS'), check('note', 'INFO'), check('later', 'SKIPPED')] }, {});
    expect(verdict.problems).toEqual([]);
  });

  it('fails a scenario on a WARNING as on a FAILURE, naming the check and its message', () => {
    const verdict = judgeScenario(
      'caching',
      { name: 'caching', checks: [check('a', 'SUCCESS'), check('b', 'WARNING', 'SHOULD broken'), check('c', 'FAILURE', 'MUST broken')] },
      {},
    );
    expect(verdict.problems).toEqual(['b WARNING: SHOULD broken', 'c FAILURE: MUST broken']);
  });

  it('excuses only the checks the baseline names for that scenario', () => {
    const checks = [check('ok', 'SUCCESS'), check('fixture', 'FAILURE', 'no tool'), check('other', 'FAILURE', 'bug')];
    const verdict = judgeScenario(
      'server-stateless',
      { name: 'server-stateless', checks },
      { 'server-stateless:fixture': 'needs a fixture tool', 'tools-list:other': 'elsewhere' },
    );
    expect(verdict.problems).toEqual(['other FAILURE: bug']);
  });

  it('fails a scenario in which nothing succeeded, or that only succeeded in an excused check', () => {
    expect(judgeScenario('s', { name: 's', checks: [check('note', 'INFO')] }, {}).problems).toEqual(['no check succeeded']);
    expect(judgeScenario('s', { name: 's', checks: [check('x', 'SUCCESS')] }, { 's:x': 'excused' }).problems).toEqual(['no check succeeded']);
  });

  it('fails a scenario the suite did not run or that crashed before writing checks', () => {
    expect(judgeScenario('s', undefined, {}).problems).toEqual(['not run by the suite']);
    expect(judgeScenario('s', { name: 's', crash: 'Failed to run scenario s: boom' }, {}).problems).toEqual(['no checks: Failed to run scenario s: boom']);
  });
});

describe('checking a baseline against what the suite ran', () => {
  const baseline: RevisionBaseline = {
    expected: ['ping', 'tools-list'],
    leftOutChecks: { 'tools-list:order': 'reason' },
    leftOut: { 'tools-call-image': 'fixture tool' },
  };

  it('accepts a baseline that names every scenario run exactly once, each left-out one with a reason', () => {
    expect(baselineProblems(baseline, ['ping', 'tools-list', 'tools-call-image'])).toEqual([]);
  });

  it('reports a scenario the suite ran that the baseline does not mention, and an entry the suite did not run', () => {
    expect(baselineProblems(baseline, ['ping', 'tools-list', 'caching'])).toEqual([
      'caching: run by the suite but neither expected nor left out',
      'tools-call-image: named by the baseline but not run by the suite',
    ]);
  });

  it('reports an empty reason, a scenario both expected and left out, and a left-out check outside the expected scenarios', () => {
    const broken: RevisionBaseline = { expected: ['ping'], leftOutChecks: { 'caching:ttl': 'reason', bare: 'reason' }, leftOut: { ping: ' ' } };
    expect(baselineProblems(broken, ['ping'])).toEqual([
      'ping: both expected and left out',
      'caching:ttl: a left-out check must be "scenario:check-id" of an expected scenario',
      'bare: a left-out check must be "scenario:check-id" of an expected scenario',
      'ping: left out without a reason',
    ]);
  });
});
