import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default leaves one core idle; the suite spends most of its time in CPU-bound servers, and on
    // the 2-core CI machine both cores halve its wall time. Tests never assert timings.
    maxWorkers: '100%',
  },
});
