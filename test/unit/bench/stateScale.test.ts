/**
 * The state-scale benchmark (bench/stateScale.ts) at a tiny scale: the synthesized state has
 * exactly the asked counts and verifies (every trie record rebuilt and compared), the same seed
 * gives the same state root, the blocks sealed on a copy import on the original through
 * Chain.importBlock (which checks every header root) with sane per-block records, the JSON
 * report holds the figures; the disk check refuses a run that cannot fit; the arguments and
 * presets parse; the key and slot-count generators keep their promises.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { verifyState } from "../../../src/storage/bulkLoad.js";
import { parseStateScaleArgs } from "../../../bench/state-scale/cli.js";
import { Rng, ascendingKeys } from "../../../bench/state-scale/rng.js";
import { planState, synthesize, zipfSlotCounts } from "../../../bench/state-scale/synth.js";
import { checkDisk, defaultOptions, estimateDisk, formatReport, runStateScale } from "../../../bench/stateScale.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-state-scale-test-");

const ACCOUNTS = 20_000;
const SLOTS = 60_000;

describe("state-scale benchmark", () => {
  it("synthesizes an exact, sound state, imports the sealed blocks and reports every figure", async () => {
    const root = tmp();
    const work = path.join(root, "work");
    const json = path.join(root, "report.json");
    const opts = {
      ...defaultOptions(ACCOUNTS, SLOTS),
      contracts: 20,
      senders: 100,
      blocks: 3,
      txs: 12,
      dir: work,
      keep: true,
      json,
      skipRpc: false,
      rpcRequests: 4,
      verify: true,
      childProcess: false,
    };
    const report = await runStateScale(opts, () => {});

    expect(report.plan.holders).toBe(2000);
    expect(report.synth.accounts).toBe(ACCOUNTS);
    expect(report.synth.slots).toBe(SLOTS);
    expect(report.synth.tables.hashedAccounts.entries).toBe(ACCOUNTS);
    expect(report.synth.tables.hashedStorage.entries).toBe(SLOTS);
    expect(report.verify).toMatchObject({ accounts: ACCOUNTS, slots: SLOTS, problems: [] });
    expect(report.synth.bytesPerAccount).toBeGreaterThan(32);
    expect(report.synth.bytesPerSlot).toBeGreaterThan(32);

    // 12 user transactions per block: 6 ERC-20 transfers, 3 ETH to holders, 3 ETH to new accounts.
    expect(report.blocks.kinds).toEqual({ erc20: 18, ethHolder: 9, ethNew: 9 });
    const blocks = report.import.blocks;
    expect(blocks.map((b) => b.number)).toEqual([1, 2, 3]);
    for (const b of blocks) {
      expect(b.txs).toBe(13); // the L1 attributes deposit and the 12
      expect(b.gas).toBeGreaterThan(12 * 21_000);
      expect(b.cpuMs).toBeGreaterThan(0);
      expect(b.stateRootMs).toBeGreaterThan(0);
      expect(b.trieReads.disk + b.trieReads.cache).toBeGreaterThan(0);
    }
    // Nothing of the state was read before the first block: its trie reads include reads from the store.
    expect(blocks[0]!.trieReads.disk).toBeGreaterThan(0);
    expect(report.import.passes.map((p) => [p.name, p.blocks])).toEqual([
      ["cold", 1],
      ["warm", 1],
      ["steady", 1],
    ]);
    expect(JSON.parse(readFileSync(json, "utf8"))).toEqual(JSON.parse(JSON.stringify(report)));
    expect(formatReport(report)).toContain("steady (3–3)");

    // The RPC passes on a real node: every answer right, the bare handler measured in each pass.
    const rpc = report.rpc!;
    expect(rpc.head).toBe(3);
    expect(rpc.passes.map((p) => p.name)).toEqual(["cold", "warm"]);
    for (const pass of rpc.passes) {
      expect(pass.anchor).toMatchObject({ requests: 4, wrong: 0 });
      expect(pass.anchor.p50Ms).toBeGreaterThan(0);
      for (const f of Object.values(pass.kinds)) {
        expect(f).toMatchObject({ requests: 4, wrong: 0 });
        expect(f.p50Ms).toBeGreaterThan(0);
      }
    }
    expect(formatReport(report)).toContain("bare handler (anchor)");

    // The kept datadir: head 3, and its latest state (after the blocks) is sound too.
    const chain = Chain.open(path.join(work, "datadir"));
    try {
      expect(chain.head.header.number).toBe(3n);
      expect(Buffer.from(chain.head.header.stateRoot).toString("hex")).toBe(report.import.headStateRoot);
      expect(verifyState(chain.store, chain.head.header.stateRoot).problems).toEqual([]);
    } finally {
      await chain.close();
    }

    // The same seed gives the same state.
    const again = await synthesize(path.join(tmp(), "d"), planState({ accounts: ACCOUNTS, slots: SLOTS, contracts: 20, holders: 2000, senders: 100, seed: opts.seed }));
    expect(again.stateRoot).toBe(report.synth.stateRoot);
  }, 60_000);

  it("refuses a run the disk cannot hold, saying what is needed and what is free", () => {
    const dir = os.tmpdir();
    const e = estimateDisk({ accounts: 1e13, slots: 3e13, blocks: 300, txs: 200 }, dir);
    expect(e.neededBytes).toBeGreaterThan(e.freeBytes);
    expect(() => checkDisk(e, dir)).toThrow(expect.objectContaining({ code: "BENCH_STATE_SCALE_DISK", message: expect.stringMatching(/needs about .* GiB.* is free there/) }));
    expect(() => checkDisk(estimateDisk({ accounts: 1000, slots: 1000, blocks: 1, txs: 1 }, dir), dir)).not.toThrow();
  });

  it("refuses a --dir that is not empty, leaving what is in it", async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, "mine.txt"), "x");
    const opts = { ...defaultOptions(ACCOUNTS, SLOTS), contracts: 20, senders: 10, blocks: 1, txs: 1, dir, skipRpc: true, childProcess: false };
    await expect(runStateScale(opts, () => {})).rejects.toMatchObject({ code: "BENCH_STATE_SCALE_ARGS", message: expect.stringContaining("is not empty") });
    expect(readdirSync(dir)).toEqual(["mine.txt"]);
  });

  it("refuses counts that cannot add up", () => {
    expect(() => planState({ accounts: 100, slots: 1000, contracts: 5, holders: 100, senders: 10, seed: 1 })).toThrow(expect.objectContaining({ code: "BENCH_STATE_SCALE_SHAPE" }));
    expect(() => planState({ accounts: 10_000, slots: 100, contracts: 5, holders: 100, senders: 10, seed: 1 })).toThrow(/slots cannot hold/);
  });

  it("parses the options and presets", () => {
    expect(parseStateScaleArgs([])).toMatchObject({ accounts: 10_000_000, slots: 30_000_000, contracts: 3000, holders: 1_000_000, blocks: 300, txs: 200, skipRpc: false, keep: false });
    expect(parseStateScaleArgs(["--preset", "S2"])).toMatchObject({ accounts: 30_000_000, slots: 90_000_000, holders: 1_000_000 });
    expect(parseStateScaleArgs(["--accounts=200_000", "--slots", "600000", "--skip-rpc", "--keep", "--json", "x.json"])).toMatchObject({
      accounts: 200_000,
      slots: 600_000,
      holders: 20_000,
      skipRpc: true,
      keep: true,
      json: "x.json",
    });
    expect(parseStateScaleArgs(["--help"])).toBeUndefined();
    expect(() => parseStateScaleArgs(["--preset", "S9"])).toThrow(/S1, S2 expected/);
    expect(() => parseStateScaleArgs(["--accounts", "-4"])).toThrow(expect.objectContaining({ code: "BENCH_STATE_SCALE_ARGS" }));
    expect(() => parseStateScaleArgs(["--nope"])).toThrow(/unknown option --nope/);
  });

  it("generates strictly ascending keys and Zipf slot counts with the exact total", () => {
    let prev: Buffer | undefined;
    let n = 0;
    for (const k of ascendingKeys(new Rng(7), 5000)) {
      const b = Buffer.from(k);
      if (prev !== undefined) expect(Buffer.compare(prev, b)).toBe(-1);
      prev = b;
      n++;
    }
    expect(n).toBe(5000);
    const counts = zipfSlotCounts(3000, 30_000_000, new Rng(1));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30_000_000);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    // Zipf α = 1: the largest holds total / H(3000) ≈ 3.5 M, the 10th a tenth of it.
    const sorted = [...counts].sort((a, b) => b - a);
    expect(sorted[0]! / sorted[9]!).toBeCloseTo(10, 0);
    expect(zipfSlotCounts(4, 5, new Rng(1)).sort()).toEqual([1, 1, 1, 2]);
  });
});
