/**
 * The EEST blockchain fixtures and their loading: the files match MANIFEST.tsv, every test becomes
 * exactly one case of exactly one shard (nothing is skipped), each shard has its test file, every
 * known-failure row names a case, and the genesis built from a case's network has the fork schedule
 * the network names.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { FOLDERS, TESTS_DIR, TRANSITION_TIME, casesOfFile, fixtureFiles, genesisConfig, manifest, networkForks, selects, type Folder } from "./fixtures.js";
import { formatRow, loadKnownFailures, parseKnownFailures } from "./knownFailures.js";
import { SHARDS } from "./run.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The README's totals of the v5.4.0 fixture set. */
const EXPECTED: Record<Folder | "total", { cases: number; blocks: number; invalid: number }> = {
  cancun: { cases: 1_736, blocks: 2_285, invalid: 188 },
  prague: { cases: 1_312, blocks: 1_512, invalid: 198 },
  osaka: { cases: 623, blocks: 663, invalid: 19 },
  total: { cases: 3_671, blocks: 4_460, invalid: 405 },
};

describe("EEST blockchain fixtures", () => {
  const files = fixtureFiles();
  const m = manifest();

  it("match MANIFEST.tsv (same files and sha256)", () => {
    expect(files.filter((f) => !m.has(f)), "files missing from MANIFEST.tsv").toEqual([]);
    expect([...m.keys()].filter((f) => !files.includes(f)), "MANIFEST.tsv files missing from the folder").toEqual([]);
    const bad = files.filter((f) => createHash("sha256").update(readFileSync(path.join(TESTS_DIR, f))).digest("hex") !== m.get(f)?.sha256);
    expect(bad, "files whose sha256 differs from MANIFEST.tsv").toEqual([]);
  });

  it("hold the README's cases, blocks and invalid blocks, per file as MANIFEST.tsv says, each case in one shard", () => {
    const totals = new Map<string, { cases: number; blocks: number; invalid: number }>();
    const add = (k: string, cases: number, blocks: number, invalid: number): void => {
      const t = totals.get(k) ?? { cases: 0, blocks: 0, invalid: 0 };
      totals.set(k, { cases: t.cases + cases, blocks: t.blocks + blocks, invalid: t.invalid + invalid });
    };
    const ids = new Set<string>();
    const problems: string[] = [];
    for (const f of files) {
      const cases = casesOfFile(f);
      const blocks = cases.reduce((n, c) => n + c.blocks.length, 0);
      const invalid = cases.reduce((n, c) => n + c.blocks.filter((b) => b.expectException !== undefined).length, 0);
      const e = m.get(f);
      if (e !== undefined && (e.cases !== cases.length || e.blocks !== blocks || e.invalidBlocks !== invalid)) problems.push(`${f}: ${cases.length}/${blocks}/${invalid}, MANIFEST ${e.cases}/${e.blocks}/${e.invalidBlocks}`);
      for (const c of cases) {
        if (ids.has(c.id)) problems.push(`duplicate case id ${c.id}`);
        ids.add(c.id);
        if (!c.id.startsWith(`tests/${c.folder}/`)) problems.push(`${c.id} is in folder ${c.folder}`);
        const owners = SHARDS.filter((s) => selects(s.selection, c.folder, c.id));
        if (owners.length !== 1) problems.push(`${c.id} is in ${owners.length} shards`);
        for (const b of c.blocks) if ((b.blockHeader === undefined) === (b.expectException === undefined)) problems.push(`${c.id}: a block with neither or both of blockHeader and expectException`);
      }
      add(f.split("/")[0] as string, cases.length, blocks, invalid);
      add("total", cases.length, blocks, invalid);
    }
    expect(problems).toEqual([]);
    expect(Object.fromEntries(totals)).toEqual(EXPECTED);
  });

  it("has a test file per shard, and shards per folder only", () => {
    for (const s of SHARDS) {
      expect(existsSync(path.join(HERE, `${s.name}.test.ts`)), `${s.name}.test.ts`).toBe(true);
      expect(s.selection.folders.every((f) => FOLDERS.includes(f))).toBe(true);
    }
  });

  it("lists known failures of real cases only", () => {
    const ids = new Set(files.flatMap((f) => casesOfFile(f).map((c) => c.id)));
    expect(loadKnownFailures().filter((k) => !ids.has(k.caseId)).map((k) => `line ${k.line}: ${k.caseId}`)).toEqual([]);
  });
});

describe("the genesis config of a network", () => {
  it("schedules every fork up to the network's at genesis, and the transition's second fork at 15,000", () => {
    expect(networkForks("Prague")).toEqual({ atGenesis: "Prague" });
    expect(networkForks("BPO2ToBPO3AtTime15k")).toEqual({ atGenesis: "BPO2", atTransition: "BPO3" });
    expect(() => networkForks("Amsterdam")).toThrow(/unknown network fork Amsterdam/);
    const blob = { target: "0x03", max: "0x06", baseFeeUpdateFraction: "0x32f0ed" };
    const cfg = genesisConfig("CancunToPragueAtTime15k", 1n, { Cancun: blob, Prague: blob });
    expect(cfg).toMatchObject({ chainId: 1, berlinBlock: 0, londonBlock: 0, mergeNetsplitBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: TRANSITION_TIME });
    expect(cfg.osakaTime).toBeUndefined();
    expect(cfg.blobSchedule).toEqual({ cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 }, prague: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 } });
    const berlin = genesisConfig("Berlin", 1n, undefined);
    expect(berlin.berlinBlock).toBe(0);
    expect(berlin.londonBlock).toBeUndefined();
    expect(berlin.terminalTotalDifficulty).toBeUndefined();
  });

  it("gives basalt's Common the fork of each side of a transition", () => {
    const blob = { target: "0x0e", max: "0x15", baseFeeUpdateFraction: "0xb24b3f" };
    const cfg = genesisConfig("BPO3ToBPO4AtTime15k", 1n, { Cancun: blob, Prague: blob, Osaka: blob, BPO1: blob, BPO2: blob, BPO3: blob, BPO4: { ...blob, max: "0x20" } });
    const common = commonFromGenesis({ config: cfg, gasLimit: "0x1", alloc: {} });
    common.setHardforkBy({ blockNumber: 1n, timestamp: BigInt(TRANSITION_TIME - 1) });
    expect(common.hardfork()).toBe("bpo3");
    common.setHardforkBy({ blockNumber: 2n, timestamp: BigInt(TRANSITION_TIME) });
    expect(common.hardfork()).toBe("bpo4");
    expect(common.getBlobGasSchedule().maxBlobGasPerBlock).toBe(32n * 131_072n);
  });
});

describe("the known-failures table", () => {
  const head = "| case | reason |\n|---|---|\n";
  it("reads back the rows the runner prints (a `|` in an id or reason escaped)", () => {
    const row = formatRow("tests/prague/x.py::test_a[fork_Prague-a|b]", "rejected: x | y");
    expect(parseKnownFailures(`${head}${row}\n`, "t.md")).toEqual([{ caseId: "tests/prague/x.py::test_a[fork_Prague-a|b]", reason: "rejected: x | y", line: 3 }]);
  });
  it("refuses malformed rows and duplicates, naming the line", () => {
    expect(() => parseKnownFailures(`${head}| not-code | r |`, "t.md")).toThrow(/t\.md:3: the case id must be inline code/);
    expect(() => parseKnownFailures(`${head}| \`a\` |`, "t.md")).toThrow(/expected 2 cells/);
    expect(() => parseKnownFailures(`${head}| \`a\` | r |\n| \`a\` | s |`, "t.md")).toThrow(/t\.md:4: duplicate entry for a/);
  });
});
