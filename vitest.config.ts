import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-state-home.ts'],
    // Hang-catchers only: no test may pass or fail by how fast the machine is. On 2 shared cores under a load
    // average of 12 a server-backed test runs 10-40 times slower than on an idle machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Vitest's default leaves one core idle; the suite spends most of its time in CPU-bound servers, and on
    // the 2-core CI machine both cores halve its wall time. Tests never assert timings.
    maxWorkers: '100%',
  },
});
