import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The long fault tests (crash loop, soak, long fuzzing) run with `npm run test:faults` (vitest.faults.config.ts).
    exclude: ["test/faults/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Print the combined pass-count tables of the EEST state tests (test/conformance/eest) and
    // blockchain tests (test/conformance/eestBlockchain) after a run.
    globalSetup: ["test/conformance/eest/globalSetup.ts", "test/conformance/eestBlockchain/globalSetup.ts"],
    // FC_SEED / FC_NUM_RUNS replay a failed property test (test/setup/fastCheck.ts).
    setupFiles: ["test/setup/fastCheck.ts"],
  },
});
