/**
 * The unknown-upgrade guard on real devnet chains: a block at or after the activation of an upgrade
 * a source schedules (and basalt does not implement) is refused on import, on build (the devnet
 * sequencer, `buildOpOnHead`) and by derivation, with `CHAIN_UNKNOWN_UPGRADE`; blocks before it
 * run; one WARN when found, one ERROR at the first refusal; the findings survive a restart and
 * are dropped with their source; the gauges report them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Block } from "@ethereumjs/block";
import pino from "pino";
import { register } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { buildOpOnHead } from "../../../src/blockchain/opBuilder.js";
import { bindUpgradeGuardMetrics } from "../../../src/blockchain/upgradeGuard.js";
import { UnknownUpgradeError } from "../../../src/chain/errors.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import type { UpgradeFinding } from "../../../src/chain/op/upgradeSchedule.js";
import { applyDerivedAttributes } from "../../../src/derivation/engine.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";

interface LogLine {
  level: number;
  msg: string;
  upgrade?: string;
}

/** A pino logger whose lines (debug and up) land in `lines`. */
function capturingLogger(lines: LogLine[]): pino.Logger {
  return pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
}

const WARN = 40;
const ERROR = 50;
const dirs: string[] = [];

async function newChain(logger?: pino.Logger): Promise<{ chain: Chain; dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-guard-"));
  dirs.push(dir);
  await Chain.init(dir, devnetGenesis());
  return { chain: Chain.open(dir, { logger: logger ?? pino({ level: "silent" }) }), dir };
}

const denimAt = (activation: bigint, source: UpgradeFinding["source"] = "l1"): UpgradeFinding => ({
  source,
  upgrade: "denim",
  activation,
  kind: "unknown",
  detail: `scheduled at ${activation}`,
});

function refusedCount(action: string): number {
  const m = register.getSingleMetric("basalt_chain_unknown_upgrade_refused_blocks_total") as unknown as { hashMap: Record<string, { value: number; labels: { action: string } }> };
  return Object.values(m.hashMap).find((v) => v.labels.action === action)?.value ?? 0;
}

describe("the unknown-upgrade guard", () => {
  let producer: Chain;
  let seq: OpDevSequencer;
  const blocks: Block[] = [];

  beforeAll(async () => {
    producer = (await newChain()).chain;
    const silent = pino({ level: "silent" });
    seq = new OpDevSequencer(producer, new TxPool(producer), 0, silent);
    for (let i = 0; i < 3; i++) {
      const n = await seq.sealOne();
      blocks.push(producer.getBlockByNumber(n)!);
    }
  });

  afterAll(async () => {
    await seq.stop();
    await producer.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("imports the blocks before the activation, refuses the first one at it, and keeps the finding across a restart", async () => {
    const lines: LogLine[] = [];
    const { chain, dir } = await newChain(capturingLogger(lines));
    const activation = blocks[2]!.header.timestamp;
    chain.upgrades.report("l1", [denimAt(activation)]);
    expect(lines.filter((l) => l.level === WARN && l.msg.includes("denim"))).toHaveLength(1);
    await chain.importBlock(blocks[0]!);
    await chain.importBlock(blocks[1]!);
    const before = refusedCount("import");
    const err = await chain.importBlock(blocks[2]!).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnknownUpgradeError);
    expect((err as UnknownUpgradeError).code).toBe("CHAIN_UNKNOWN_UPGRADE");
    expect((err as UnknownUpgradeError).meta).toMatchObject({ upgrade: "denim", activation: activation.toString(), source: "l1", action: "import", number: "3" });
    expect((err as Error).message).toMatch(/refusing to import block 3 .*denim activates at .*L1 upgrade signal.*upgrade basalt/);
    expect(chain.head.header.number).toBe(2n);
    // The engine path (insertBlock) is refused too; the ERROR line is written once.
    await expect(chain.insertBlock(blocks[2]!)).rejects.toBeInstanceOf(UnknownUpgradeError);
    expect(lines.filter((l) => l.level === ERROR)).toHaveLength(1);
    expect(refusedCount("import")).toBe(before + 2);

    await chain.close();
    const reopened = Chain.open(dir, { logger: pino({ level: "silent" }) });
    try {
      expect(reopened.upgrades.findings()).toEqual([denimAt(activation)]);
      await expect(reopened.importBlock(blocks[2]!)).rejects.toBeInstanceOf(UnknownUpgradeError);
      // A run without the L1 source drops what it reported: nothing could lift it.
      reopened.upgrades.retainSources(["follow-rpc"]);
      expect(reopened.upgrades.findings()).toEqual([]);
      await reopened.importBlock(blocks[2]!);
      expect(reopened.head.header.number).toBe(3n);
    } finally {
      await reopened.close();
    }
  });

  it("replaces a source's findings with its latest answer and wakes waiters on a change", async () => {
    const { chain } = await newChain();
    try {
      chain.upgrades.report("follow-rpc", [denimAt(5_000_000_000n, "follow-rpc")]);
      chain.upgrades.report("l1", [denimAt(4_000_000_000n)]);
      expect(chain.upgrades.earliest()?.activation).toBe(4_000_000_000n);
      const woke = chain.upgrades.changed();
      chain.upgrades.report("l1", []);
      await woke;
      expect(chain.upgrades.findings().map((f) => f.source)).toEqual(["follow-rpc"]);
      // The same answer again is no change.
      let changes = 0;
      const off = chain.upgrades.onChange(() => changes++);
      chain.upgrades.report("follow-rpc", [denimAt(5_000_000_000n, "follow-rpc")]);
      off();
      expect(changes).toBe(0);
      const aborted = new AbortController();
      const waiting = chain.upgrades.changed(aborted.signal);
      aborted.abort();
      await waiting;
    } finally {
      await chain.close();
    }
  });

  it("refuses to build at or after the activation: the devnet sequencer and buildOpOnHead", async () => {
    const { chain } = await newChain();
    const silent = pino({ level: "silent" });
    const s = new OpDevSequencer(chain, new TxPool(chain), 0, silent);
    try {
      await s.sealOne();
      const next = chain.head.header.timestamp + 1n;
      chain.upgrades.report("follow-rpc", [denimAt(next, "follow-rpc")]);
      const before = refusedCount("build");
      await expect(s.sealOne()).rejects.toBeInstanceOf(UnknownUpgradeError);
      const attrs = { timestamp: next + 5n, prevRandao: new Uint8Array(32), suggestedFeeRecipient: new Uint8Array(20), transactions: [], noTxPool: true, gasLimit: 30_000_000n };
      await expect(buildOpOnHead(chain, undefined, attrs)).rejects.toMatchObject({ code: "CHAIN_UNKNOWN_UPGRADE", meta: { action: "build", source: "follow-rpc" } });
      expect(refusedCount("build")).toBe(before + 2);
      expect(chain.head.header.number).toBe(1n);
    } finally {
      await s.stop();
      await chain.close();
    }
  });

  it("stops derivation at the activation instead of building the deposits-only block", async () => {
    const { chain } = await newChain();
    try {
      chain.upgrades.report("l1", [denimAt(blocks[0]!.header.timestamp)]);
      const attrs = { timestamp: blocks[0]!.header.timestamp, prevRandao: new Uint8Array(32), suggestedFeeRecipient: new Uint8Array(20), transactions: [], noTxPool: true, gasLimit: 30_000_000n };
      await expect(applyDerivedAttributes(chain, attrs, chain.genesisHash)).rejects.toBeInstanceOf(UnknownUpgradeError);
      expect(chain.head.header.number).toBe(0n);
    } finally {
      await chain.close();
    }
  });

  it("logs a conflict with basalt's table at error and reports every finding in the gauges", async () => {
    const lines: LogLine[] = [];
    const { chain } = await newChain(capturingLogger(lines));
    try {
      const now = BigInt(Math.floor(Date.now() / 1000));
      chain.upgrades.report("l1", [
        denimAt(now + 3600n),
        { source: "l1", upgrade: "cobalt", activation: now + 7200n, kind: "conflict", detail: "differs" },
      ]);
      expect(lines.filter((l) => l.level === ERROR && l.msg.includes("cobalt") && l.msg.includes("differently"))).toHaveLength(1);
      bindUpgradeGuardMetrics(chain.upgrades);
      const activation = await (register.getSingleMetric("basalt_chain_unknown_upgrade_activation_seconds") as unknown as { get(): Promise<{ values: { value: number; labels: Record<string, string> }[] }> }).get();
      expect(activation.values).toEqual([
        { value: Number(now + 3600n), labels: { source: "l1", upgrade: "denim", kind: "unknown" } },
        { value: Number(now + 7200n), labels: { source: "l1", upgrade: "cobalt", kind: "conflict" } },
      ]);
      const remaining = await (register.getSingleMetric("basalt_chain_unknown_upgrade_remaining_seconds") as unknown as { get(): Promise<{ values: { value: number }[] }> }).get();
      expect(remaining.values[0]!.value).toBeGreaterThan(3000);
      expect(remaining.values[0]!.value).toBeLessThanOrEqual(3600);
      chain.upgrades.report("l1", []);
      expect((await (register.getSingleMetric("basalt_chain_unknown_upgrade_activation_seconds") as unknown as { get(): Promise<{ values: unknown[] }> }).get()).values).toEqual([]);
    } finally {
      bindUpgradeGuardMetrics(undefined);
      await chain.close();
    }
  });
});

describe("upgrades Base announced that basalt does not implement", () => {
  it("a Base mainnet datadir knows Denim at 1793901600 with no source configured, and refuses blocks from then on", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-guard-mainnet-"));
    dirs.push(dir);
    const { readFileSync } = await import("node:fs");
    const { withNetworkConfig } = await import("../../../src/chain/op/networks.js");
    const file = path.join(path.dirname(new URL(import.meta.url).pathname), "../../../../shared/fixtures/op/base-genesis/base-mainnet-genesis.json");
    await Chain.init(dir, withNetworkConfig("base-mainnet", JSON.parse(readFileSync(file, "utf8"))));
    const chain = Chain.open(dir, { logger: pino({ level: "silent" }) });
    try {
      const announced = chain.upgrades.findings().filter((f) => f.source === "announced");
      expect(announced.map((f) => [f.upgrade, f.activation])).toEqual([["denim", 1793901600n]]);
      expect(() => chain.upgrades.check(1793901599n, { number: 1n, action: "import" })).not.toThrow();
      expect(() => chain.upgrades.check(1793901600n, { number: 1n, action: "import" })).toThrow(UnknownUpgradeError);
      // Not a configured source, so a run's source list never drops it.
      chain.upgrades.retainSources([]);
      expect(chain.upgrades.findings().some((f) => f.source === "announced")).toBe(true);
    } finally {
      await chain.close();
    }
  }, 120_000);
});
