/**
 * The EEST harness's own logic: outcome comparison, the known-failures table format, sharding,
 * the pass-count table, and the reference engine's chain setup.
 */
import { Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { ENGINES, REFERENCE_ENGINE } from "./engines.js";
import { casesOfFile, hexBytes, shard, shardOf, toHex, type StateTestCase } from "./fixtures.js";
import { forkOfId, formatRow, loadKnownFailures, parseKnownFailures, type KnownFailure } from "./knownFailures.js";
import { commonFor, executeCase, genesisConfigFor, stateTestBlockHash } from "./referenceEngine.js";
import { formatCounts, mergeCounts } from "./report.js";
import { judge, regressions, staleEntries, unlistedFailures, type CaseResult } from "./run.js";

const ROOT_A = hexBytes("0x" + "aa".repeat(32));
const ROOT_B = hexBytes("0x" + "bb".repeat(32));
const NO_LOGS = hexBytes("0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");
const SOME_LOGS = hexBytes("0x" + "cc".repeat(32));

function fakeCase(expectException?: string): StateTestCase {
  return { expectedRoot: ROOT_A, expectedLogsHash: NO_LOGS, expectException } as StateTestCase;
}

describe("judge", () => {
  it("passes an outcome with the expected root and logs", () => {
    expect(judge(fakeCase(), { stateRoot: ROOT_A, logsHash: NO_LOGS })).toBeUndefined();
  });

  it("names a wrong root and wrong logs with expected and actual values", () => {
    const why = judge(fakeCase(), { stateRoot: ROOT_B, logsHash: SOME_LOGS }) ?? "";
    expect(why).toContain(`state root ${toHex(ROOT_B)}, expected ${toHex(ROOT_A)}`);
    expect(why).toContain(`logs hash ${toHex(SOME_LOGS)}, expected ${toHex(NO_LOGS)}`);
  });

  it("requires the rejection the fixture expects, and the unchanged root with it", () => {
    const c = fakeCase("TransactionException.INTRINSIC_GAS_TOO_LOW");
    expect(judge(c, { stateRoot: ROOT_A, logsHash: NO_LOGS, rejected: "intrinsic gas" })).toBeUndefined();
    expect(judge(c, { stateRoot: ROOT_A, logsHash: NO_LOGS })).toContain("accepted a transaction the fixture rejects (TransactionException.INTRINSIC_GAS_TOO_LOW)");
    expect(judge(c, { stateRoot: ROOT_B, logsHash: NO_LOGS, rejected: "x" })).toContain("state root");
  });

  it("fails a rejection of a valid transaction, on one line", () => {
    const why = judge(fakeCase(), { stateRoot: ROOT_A, logsHash: NO_LOGS, rejected: "nonce\ntoo low" });
    expect(why).toBe("rejected a valid transaction: nonce too low");
  });
});

describe("gate checks", () => {
  const result = (id: string, passed: boolean, engine = REFERENCE_ENGINE): CaseResult => ({ id, fork: "Prague", engine, passed, reason: passed ? undefined : "root", ms: 1 });
  const entry = (caseId: string): KnownFailure => ({ engine: REFERENCE_ENGINE, caseId, fork: "Prague", reason: "r", line: 9 });
  const results = [result("a::t::Prague::d0g0v0", true), result("b::t::Prague::d0g0v0", false), result("c::t::Prague::d0g0v0", false)];

  it("finds failures missing from the list", () => {
    expect(unlistedFailures(results, [entry("b::t::Prague::d0g0v0")]).map((r) => r.id)).toEqual(["c::t::Prague::d0g0v0"]);
    expect(unlistedFailures(results, [entry("b::t::Prague::d0g0v0"), entry("c::t::Prague::d0g0v0")])).toEqual([]);
  });

  it("finds stale entries: passing cases and cases that do not exist", () => {
    const stale = staleEntries(results, [entry("a::t::Prague::d0g0v0"), entry("b::t::Prague::d0g0v0"), entry("z::t::Prague::d0g0v0")]);
    expect(stale.map((s) => `${s.entry.caseId} ${s.why}`)).toEqual(["a::t::Prague::d0g0v0 now passes", "z::t::Prague::d0g0v0 is no case of the fixtures"]);
  });

  it("finds the cases another engine fails but the reference passes", () => {
    const fast = [result("a::t::Prague::d0g0v0", false, "fast"), result("b::t::Prague::d0g0v0", false, "fast"), result("c::t::Prague::d0g0v0", true, "fast")];
    expect(regressions(fast, results).map((r) => r.id)).toEqual(["a::t::Prague::d0g0v0"]);
  });
});

describe("known-failures table", () => {
  const id = "static/x.json::tests/static/xFiller.json::x[fork_Prague-state_test-a|b]::Prague::d1g0v2";

  it("round-trips rows with pipes in the case id", () => {
    const text = ["# title", "", "| engine | case | reason |", "|---|---|---|", formatRow("reference", id, "a | b reason"), "", "after"].join("\n");
    expect(parseKnownFailures(text, "t.md")).toEqual([{ engine: "reference", caseId: id, fork: "Prague", reason: "a | b reason", line: 5 }]);
  });

  it("rejects malformed rows, ids without a fork, and duplicates", () => {
    const head = "| engine | case | reason |\n|---|---|---|\n";
    expect(() => parseKnownFailures(head + "| reference | not-code | r |", "t.md")).toThrow(/inline code/);
    expect(() => parseKnownFailures(head + "| reference | `a::b::Frontier::d0g0v0` | r |", "t.md")).toThrow(/malformed case id/);
    expect(() => parseKnownFailures(head + "| reference | `a::b::Prague::d0g0v0` |", "t.md")).toThrow(/3 cells/);
    const row = formatRow("reference", id, "r");
    expect(() => parseKnownFailures(`${head}${row}\n${row}`, "t.md")).toThrow(/duplicate/);
  });

  it("reads the fork from a case id", () => {
    expect(forkOfId(id)).toBe("Prague");
    expect(forkOfId("a::b::Osaka::d0g0v0")).toBe("Osaka");
    expect(forkOfId("a::b::Osaka")).toBeUndefined();
  });

  it("the repository's list parses and names only engines under test", () => {
    const names = new Set(ENGINES.map((e) => e.name));
    const unknown = loadKnownFailures().filter((k) => !names.has(k.engine));
    expect(unknown.map((k) => `line ${k.line}: ${k.engine}`)).toEqual([]);
  });
});

describe("sharding", () => {
  it("is stable and in range", () => {
    expect(shardOf("a", 1)).toBe(0);
    const s = shardOf("some case id", 5);
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThan(5);
    expect(shardOf("some case id", 5)).toBe(s);
    expect(() => shard(2, 2)).toThrow();
    expect(() => shard(0, 0)).toThrow();
  });

  it("spreads ids over the shards", () => {
    const n = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) n[shardOf(`case ${i}`, 4)]!++;
    for (const k of n) expect(k).toBeGreaterThan(800);
  });
});

describe("pass-count table", () => {
  it("sums shards and prints one row per fork, one column per engine", () => {
    const counts = mergeCounts([
      [{ engine: REFERENCE_ENGINE, fork: "Prague", total: 10, passed: 9, fellBack: 0 }],
      [
        { engine: REFERENCE_ENGINE, fork: "Prague", total: 5, passed: 5, fellBack: 0 },
        { engine: REFERENCE_ENGINE, fork: "Cancun", total: 2, passed: 2, fellBack: 0 },
        { engine: "fast", fork: "Cancun", total: 2, passed: 2, fellBack: 1 },
      ],
    ]);
    const lines = formatCounts(counts, "title").split("\n");
    expect(lines[0]).toBe("title");
    expect(lines[1]).toMatch(/^fork\s+fast\s+reference$/);
    expect(lines[2]).toMatch(/^Cancun\s+2\/2 \(1 fell back\)\s+2\/2$/);
    expect(lines[3]).toMatch(/^Prague\s+-\s+14\/15$/);
    expect(lines[4]).toMatch(/^total\s+2\/2 \(1 fell back\)\s+16\/17$/);
  });
});

describe("reference engine setup", () => {
  const config = { chainId: 1n, blobSchedule: { Cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 }, Prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 } } };

  it("activates exactly the forks up to the case's fork", () => {
    const paris = genesisConfigFor("Paris", config);
    expect(paris.mergeNetsplitBlock).toBe(0);
    expect(paris.shanghaiTime).toBeUndefined();
    expect(genesisConfigFor("London", config).mergeNetsplitBlock).toBeUndefined();
    expect(genesisConfigFor("Prague", config).pragueTime).toBe(0);
    expect(genesisConfigFor("Prague", config).osakaTime).toBeUndefined();
  });

  it("builds a Common at the fork with the fixture's chain id and blob schedule", () => {
    const c = commonFor("Prague", config);
    expect(c.hardfork()).toBe("prague");
    expect(c.chainId()).toBe(1n);
    expect(c.getBlobGasSchedule().maxBlobGasPerBlock).toBe(9n * 131072n);
    expect(commonFor("Cancun", config).getBlobGasSchedule().targetBlobGasPerBlock).toBe(3n * 131072n);
    expect(commonFor("Berlin", { chainId: 1n, blobSchedule: {} }).isActivatedEIP(1559)).toBe(false);
  });

  it("answers BLOCKHASH with keccak256 of the decimal block number", async () => {
    // keccak256("0")
    const KECCAK_OF_0 = "0x044852b2a670ade5407e78fb2863c51de9fcb96542a07186fe3aeda6bb8a116d";
    expect(toHex(stateTestBlockHash(0n))).toBe(KECCAK_OF_0);
    // A fixture case whose called contract is swapped for `SSTORE(0, BLOCKHASH(0))` at block 1.
    const base = casesOfFile("cancun/eip1153_tstore/test_basic_tload_works.json", { forks: ["Prague"] })[0]!;
    const to = toHex(base.tx.to!);
    const pre = new Map(base.pre);
    pre.set(to, { ...pre.get(to)!, code: hexBytes("0x600040600055"), storage: [] });
    expect(base.env.number).toBe(1n);
    const { outcome, state } = await executeCase({ ...base, pre });
    expect(outcome.rejected).toBeUndefined();
    const slot0 = await state.getStorage(new Address(base.tx.to!), new Uint8Array(32));
    expect(toHex(slot0)).toBe(KECCAK_OF_0);
  });
});
