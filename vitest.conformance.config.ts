import { defineConfig } from 'vitest/config';

/**
 * `npm run test:conformance`: the official MCP conformance suite against our HTTP endpoint, kept out of
 * `npm test` (its file ends in `.conformance.ts`) and run as its own CI step.
 */
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.conformance.ts'],
    // Hang-catchers only: one run per revision takes about a second.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
