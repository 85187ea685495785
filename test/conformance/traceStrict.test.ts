/**
 * The execution-apis debug_trace* cases compared exactly (the suite marks most of them
 * speconly, checked by schema only; their recorded answers are geth's, so basalt's struct logs
 * must equal them entry by entry: pc, op, gas, gasCost, depth, stack, memory, storage,
 * returnData, refund).
 */
import { afterAll, describe, expect, it } from "vitest";
import { stopAllProcesses } from "../helpers/basaltProcess.js";
import { formatFailures, runSuite, suiteDir } from "./suite.js";

afterAll(stopAllProcesses);

describe("debug_trace* against geth's recorded answers, exactly", () => {
  for (const name of ["prague", "osaka"] as const) {
    it(name, async () => {
      const r = await runSuite(suiteDir(name), { filter: /^debug_trace/, strict: true, print: false });
      expect(r.total).toBe(13);
      const failing = r.results.filter((c) => !c.ok);
      expect(failing.length, formatFailures(failing)).toBe(0);
    }, 300_000);
  }
});
