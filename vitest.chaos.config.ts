import { defineConfig } from 'vitest/config';

/**
 * `npm run test:chaos`: faults injected into three `serve` processes on a PostgreSQL cluster of the suite's
 * own, and a lowdb node run out of disk (files end in `.chaos.ts`, so `npm test` never picks them up).
 * Limits are hang-catchers: every wait ends on an event.
 */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.chaos.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One file at a time: each runs its own servers, and the faults are the only disturbance wanted.
    fileParallelism: false,
  },
});
