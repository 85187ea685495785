/**
 * The micro-benchmarks run end to end on a small block (20 workload transactions, 20 ms per
 * case): every case reports a positive rate and passed its correctness check; a case whose
 * output is wrong fails and is not timed; the options parse.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main, parseMicroArgs, runMicro } from "../../../bench/micro/cli.js";
import { MicroCheckError, runCase, type MicroCase } from "../../../bench/micro/harness.js";
import type { MicroReport } from "../../../bench/micro/report.js";
import { loadNative } from "../../../src/chain/crypto.js";

const dir = mkdtempSync(join(tmpdir(), "basalt-micro-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every case the run must report (the native ones where the bindings load, as in CI's linux-x64). */
function expectedCases(native: boolean): string[] {
  const impls = native ? ["native", "js"] : ["js"];
  return [
    "block.rlp.encode",
    "block.rlp.decode",
    "rpc.eth_getBlockByNumber.hashes",
    "rpc.eth_getBlockByNumber.full",
    "rpc.eth_getBlockReceipts",
    ...["32B", "1KiB", "100KiB"].flatMap((s) => impls.map((i) => `keccak256.${s}.${i}`)),
    ...impls.map((i) => `tx.decodeRecover.${i}`),
    "trie.transactionsRoot.ordered",
    "trie.transactionsRoot.mpt",
    "trie.receiptsRoot.ordered",
    "trie.receiptsRoot.mpt",
    "chain.importBlock",
    "estimateGas.transfer",
    "estimateGas.erc20",
    "estimateGas.swap",
    "estimateGas.revert",
  ];
}

describe("micro-benchmarks", () => {
  it("run every case on a 20-transaction block: all checked, all timed", async () => {
    const file = join(dir, "micro.json");
    await main(["--time", "20", "--txs", "20", "--json", file]);
    const report = JSON.parse(readFileSync(file, "utf8")) as MicroReport;
    expect(report.block?.transactions).toBe(21); // the L1-attributes deposit + 20
    const native = loadNative() !== undefined;
    expect(report.nativeCrypto).toBe(native);
    expect(report.results.map((r) => r.name).sort()).toEqual(expectedCases(native).sort());
    for (const r of report.results) {
      expect(r.ok, `${r.name}: ${r.error}`).toBe(true);
      expect(r.opsPerSecond, r.name).toBeGreaterThan(0);
      expect(r.samples, r.name).toBeGreaterThanOrEqual(10);
      expect(r.p99Us, r.name).toBeGreaterThanOrEqual(r.p50Us);
    }
    const importBlock = report.results.find((r) => r.name === "chain.importBlock")!;
    expect(importBlock.derived?.unit).toBe("Mgas/s");
    expect(importBlock.derived!.value).toBeGreaterThan(0);
    expect(report.results.find((r) => r.name === "tx.decodeRecover.js")?.perItem?.unit).toBe("µs/tx");
  }, 60_000);

  it("builds no chain when the filter selects only fixture-free cases", async () => {
    const report = await runMicro({ timeMs: 5, txs: 20, filter: "keccak256.32B." }, () => {});
    expect(report.block).toBeUndefined();
    expect(report.results.length).toBeGreaterThan(0);
    expect(report.results.every((r) => r.ok && r.name.startsWith("keccak256.32B."))).toBe(true);
  });

  it("fails a case whose output is wrong, without timing it", async () => {
    let runs = 0;
    const broken: MicroCase<number> = {
      name: "broken.fastPath",
      run: () => ++runs,
      check(out) {
        if (out !== 42) throw new MicroCheckError("broken.fastPath", `output ${out}, expected 42`);
      },
    };
    const r = await runCase(broken as MicroCase, { timeMs: 5 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/broken\.fastPath: output 1, expected 42/);
    expect(r.opsPerSecond).toBe(0);
    expect(runs).toBe(1);
  });

  it("parses its options and rejects bad ones", () => {
    expect(parseMicroArgs([])).toEqual({ timeMs: 500, txs: 200 });
    expect(parseMicroArgs(["--time=50", "--filter", "rpc.", "--txs", "40", "--json", "a.json", "--out", "d"])).toEqual({
      timeMs: 50,
      filter: "rpc.",
      txs: 40,
      json: "a.json",
      out: "d",
    });
    expect(() => parseMicroArgs(["--time", "0"])).toThrow(/--time must be a positive integer/);
    expect(() => parseMicroArgs(["--bogus"])).toThrow(/unknown option --bogus/);
    expect(() => parseMicroArgs(["--json"])).toThrow(/--json needs a value/);
  });
});
