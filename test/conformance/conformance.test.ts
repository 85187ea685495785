/**
 * ethereum/execution-apis rpc-compat (hive) suites against a real `basalt` process.
 *
 * Prague and Osaka: every method must pass completely, except the methods in NOT_YET_SERVED
 * (tracing and simulation, a later milestone): basalt does not serve them yet, and their test
 * asserts exactly that — every case answers JSON-RPC -32601 (method not found), never a wrong
 * or partial answer. Serving one of them moves it to the required set.
 *
 * Environment: BASALT_CONFORMANCE_FILTER=<regexp on "<method>/<name>"> narrows the cases,
 * BASALT_CONFORMANCE_KEEP=1 keeps the temp datadir, BASALT_CLI overrides the CLI entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopAllProcesses } from "../helpers/basaltProcess.js";
import { listSuiteMethods } from "./ioFile.js";
import { formatFailures, runSuite, suiteDir, type SuiteResult } from "./suite.js";

/** Methods of the tracing and simulation milestone: not served yet, asserted as method-not-found. */
const NOT_YET_SERVED: ReadonlySet<string> = new Set([]);

/** JSON-RPC "method not found". */
const METHOD_NOT_FOUND = -32601;

const SUITE_TIMEOUT_MS = 10 * 60 * 1000;
const filter = process.env.BASALT_CONFORMANCE_FILTER ? new RegExp(process.env.BASALT_CONFORMANCE_FILTER) : undefined;

afterAll(stopAllProcesses);

/**
 * Runs one suite (init, import, headfcu, replay) and asserts every case of every required
 * method; the per-method table of all methods is printed and written to the report.
 */
function describeSuite(name: "prague" | "osaka"): void {
  describe(`rpc-compat ${name}`, () => {
    const dir = suiteDir(name);
    let result: SuiteResult | undefined;

    beforeAll(async () => {
      result = await runSuite(dir, { filter });
    }, SUITE_TIMEOUT_MS);

    const methods = listSuiteMethods(dir);
    const required = methods.filter((m) => !NOT_YET_SERVED.has(m));
    for (const method of required) {
      it(method, (ctx) => {
        if (result === undefined) throw new Error("suite did not run");
        const cases = result.results.filter((r) => r.method === method);
        if (cases.length === 0 && filter !== undefined) ctx.skip(`filtered out by BASALT_CONFORMANCE_FILTER=${filter.source}`);
        expect(cases.length, `no cases ran for ${method}`).toBeGreaterThan(0);
        const failing = cases.filter((r) => !r.ok);
        expect(
          failing.length,
          `${method}: ${failing.length}/${cases.length} cases failed\n${formatFailures(failing)}\n(report: ${result.reportPath})`,
        ).toBe(0);
      });
    }
    for (const method of methods.filter((m) => NOT_YET_SERVED.has(m))) {
      it(`${method}: not served yet, every case answers ${METHOD_NOT_FOUND} (method not found)`, (ctx) => {
        if (result === undefined) throw new Error("suite did not run");
        const cases = result.results.filter((r) => r.method === method);
        if (cases.length === 0 && filter !== undefined) ctx.skip(`filtered out by BASALT_CONFORMANCE_FILTER=${filter.source}`);
        expect(cases.length, `no cases ran for ${method}`).toBeGreaterThan(0);
        for (const c of cases) {
          const code = errorCodeOf(c.response);
          expect(code, `${c.name}: expected error ${METHOD_NOT_FOUND}, got ${c.ok ? "a passing answer" : (c.response ?? c.diff)}`).toBe(METHOD_NOT_FOUND);
        }
      });
    }
  });
}

/** The JSON-RPC error code of a (single) response body, if it is an error. */
function errorCodeOf(body: string | undefined): number | undefined {
  if (body === undefined) return undefined;
  try {
    const r = JSON.parse(body) as { error?: { code?: unknown } };
    return typeof r.error?.code === "number" ? r.error.code : undefined;
  } catch {
    return undefined;
  }
}

describeSuite("prague");
describeSuite("osaka");
