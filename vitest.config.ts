import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The long fault tests (crash loop, soak, long fuzzing) run with `npm run test:faults` (vitest.faults.config.ts).
    exclude: ["test/faults/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Prints the combined pass-count table of the EEST state tests after a run (test/conformance/eest).
    globalSetup: ["test/conformance/eest/globalSetup.ts"],
    // FC_SEED / FC_PATH / FC_NUM_RUNS replay a failed property test (test/setup/fastCheck.ts).
    setupFiles: ["test/setup/fastCheck.ts"],
  },
});
