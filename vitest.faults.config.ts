import { defineConfig } from "vitest/config";

/**
 * `npm run test:faults`: the long fault tests under test/faults/ (crash loop, soak, long fuzzing),
 * kept out of `npm test` by vitest.config.ts. BASALT_FAULTS=1 selects the long variants where a
 * test has a short one in `npm test` (e.g. the fuzzer's 50,000 requests).
 */
export default defineConfig({
  test: {
    include: ["test/faults/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One file at a time: the crash loop and the soak each load the 2 cores on their own.
    fileParallelism: false,
  },
});
