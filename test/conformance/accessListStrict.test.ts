/**
 * The execution-apis eth_createAccessList cases compared exactly (the suite marks them speconly,
 * checked by schema only; their recorded answers are geth's): the recipient is listed with the
 * slots the call touched, and the gas used is that of a call carrying the list. One difference
 * is kept on purpose: for a revert, basalt's `error` carries the decoded reason as reth's does
 * ("execution reverted: user error"), where geth writes only "execution reverted".
 */
import { afterAll, describe, expect, it } from "vitest";
import { stopAllProcesses } from "../helpers/basaltProcess.js";
import { formatFailures, runSuite, suiteDir } from "./suite.js";

afterAll(stopAllProcesses);

/** The one line a case may differ by: reth's revert message with its reason where geth's has none. */
const RETH_REVERT_MESSAGE = /^\$\.result\.error: expected "execution reverted", got "execution reverted: [^"]+"$/;

describe("eth_createAccessList against geth's recorded answers, exactly", () => {
  for (const name of ["prague", "osaka"] as const) {
    it(name, async () => {
      const r = await runSuite(suiteDir(name), { filter: /^eth_createAccessList/, strict: true, print: false });
      expect(r.total).toBe(4);
      const failing = r.results.filter((c) => !c.ok && !(c.diff ?? "").split("\n").every((line) => RETH_REVERT_MESSAGE.test(line)));
      expect(failing.length, formatFailures(failing)).toBe(0);
      expect(r.results.filter((c) => !c.ok).map((c) => c.name)).toEqual(["eth_createAccessList/create-al-abi-revert"]);
    }, 300_000);
  }
});
