import { defineConfig } from 'vitest/config';

/** `npm run test:soak`: the long mixed-load run, kept out of `npm test` (its files end in `.soak.ts`). */
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    // SOAK_MINUTES (default 10) of load, plus setup and the final checks.
    testTimeout: (Number(process.env.SOAK_MINUTES ?? 10) + 3) * 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
