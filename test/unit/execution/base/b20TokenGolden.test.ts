/**
 * Every case of the four B-20 token goldens (../shared/fixtures/base-upgrades: asset and
 * stablecoin, V1 at Beryl and V2 at Cobalt) over the in-memory host and the free gas schedule of
 * base/base's `HashMapStorageProvider`; counts per file are printed. Harness: b20GoldenHarness.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { b20Id } from "../../../../src/execution/base/b20/constants.js";
import { type Json, TokenGolden, fakePolicyRegistry, loadGolden, newTally, runTokenCase } from "./b20GoldenHarness.js";

/**
 * Where the Cobalt release differs from the stablecoin V2 golden (@289d9f5a, older than the
 * asset V2 golden @cc5e6edb): the seize-exempt scope's rename (base/base #4845). See
 * docs/base-precompiles-goldens.md.
 */
function releaseAdaptation(file: string): (c: Json, step: Json) => Json {
  if (file !== "b20_stablecoin_v2_golden.json") return (_c, s) => s;
  return (c, step) => {
    if (c.name === "golden_read_seize_role_and_policy_constants" && step.input === "0xb279d311")
      return { ...step, fn: "SEIZE_EXEMPT_POLICY()", input: "0xfeb346ec", expect: { success: true, output: `0x${b20Id("SEIZE_EXEMPT_POLICY").toString(16).padStart(64, "0")}` } };
    return step;
  };
}

for (const file of ["b20_asset_v1_golden.json", "b20_asset_v2_golden.json", "b20_stablecoin_v1_golden.json", "b20_stablecoin_v2_golden.json"]) {
  describe(file, () => {
    const golden = loadGolden(file);
    const runner = new TokenGolden(golden, fakePolicyRegistry);
    const tally = newTally();
    afterAll(() => console.log(`${file}: ${JSON.stringify(tally)}`));
    for (const c of golden.cases) {
      it(c.name as string, () => {
        expect(runTokenCase(runner, c, tally, releaseAdaptation(file))).toEqual([]);
      });
    }
  });
}
