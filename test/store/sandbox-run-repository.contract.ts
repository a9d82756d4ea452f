import { describe, expect, it } from 'vitest';
import { createSandboxRunRepository, type RunRow } from '../../src/domain/sandbox/sandbox-run-repository.js';
import type { RowInput } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const run = (uid: string, n: number): RowInput<RunRow> => ({
  type: 'sandbox.run',
  tick: n * 10,
  uid,
  actor_uid: uid,
  run_id: `run_${n}`,
  ok: true,
  exit_code: 0,
  reason: 'exit',
  stdout: '',
  stderr: '',
  stdout_truncated: false,
  stderr_truncated: false,
  duration_ms: 5,
  units_mz: 1,
  slug: null,
  code_sha256: 'x',
  timeout_ms: 1000,
  started_ms: n * 10_000,
  started_at: new Date(n * 10_000).toISOString(),
});

/** The sandbox's reservations and run logs on every adapter. */
export function runSandboxRunRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`sandbox run repository: ${name}`, () => {
    it("keeps each agent's runs apart, reads them from a tick on and pages them newest first", async () => {
      const { store } = await freshStore(makeStore);
      const runs = createSandboxRunRepository(store);
      for (let n = 1; n <= 5; n++) await runs.appendRun('u1', run('u1', n));
      await runs.appendRun('u2', run('u2', 9));
      expect((await runs.runsFromTick('u1', 30)).map((r) => r.run_id)).toEqual(['run_3', 'run_4', 'run_5']);
      const newest = await runs.newestRuns('u1', 2);
      expect(newest.map((r) => r.run_id)).toEqual(['run_5', 'run_4']);
      expect((await runs.newestRuns('u1', 10, newest[1]!.seq)).map((r) => r.run_id)).toEqual(['run_3', 'run_2', 'run_1']);
      expect((await runs.newestRuns('u2', 10)).map((r) => r.run_id)).toEqual(['run_9']);
    });

    it("serializes concurrent updates of an agent's reservations", async () => {
      const { store } = await freshStore(makeStore);
      const runs = createSandboxRunRepository(store);
      expect(await runs.reservations('u1')).toBeUndefined();
      await Promise.all(
        ['a', 'b', 'c'].map((id) =>
          runs.updateReservations('u1', (current) => ({ uid: 'u1', runs: { ...current?.runs, [id]: { started_ms: 1, units_mz: 2, expires_ms: 3 } } })),
        ),
      );
      expect(Object.keys((await runs.reservations('u1'))!.runs).sort()).toEqual(['a', 'b', 'c']);
      await runs.updateReservations('u1', () => undefined);
      expect(Object.keys((await runs.reservations('u1'))!.runs)).toHaveLength(3);
    });
  });
}
