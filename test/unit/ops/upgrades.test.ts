/**
 * The sources of scheduled upgrades, read over loopback: Base's L1 upgrade signal from an L1
 * JSON-RPC endpoint carrying the contract (`helpers/upgradeSignalL1.ts`), and a trusted node's
 * eth_config (basalt's own `ethConfig` of a real devnet chain, served over HTTP). Covers the read
 * (both calls pinned to one L1 block), basalt's fork ids as eth_config shows them (Base mainnet's
 * `0x68647e86` at Cobalt, also without a datadir), the watcher's loop (findings handed to the
 * chain's guard, a failing source warned once and retried with backoff, its last findings kept),
 * and `basalt doctor`'s "upgrades" check (FAIL with the upgrade, its time and the fix; OK when the
 * sources agree; WARN when they cannot be read; SKIP without sources).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { OP_NETWORKS } from "../../../src/chain/op/networks.js";
import { compareEthConfig, type UpgradeFinding } from "../../../src/chain/op/upgradeSchedule.js";
import { parseCli } from "../../../src/cli/args.js";
import { checkUpgrades } from "../../../src/ops/doctor/upgrades.js";
import { upgradeSignalContract } from "../../../src/ops/upgrades/fromOptions.js";
import { knownUpgradeSchedule, localForkView, networkSchedule, readL1Schedule } from "../../../src/ops/upgrades/sources.js";
import { UpgradeSourceWatcher } from "../../../src/ops/upgrades/watcher.js";
import { ethConfig } from "../../../src/rpc/methods/ethConfig.js";
import { HttpRpcClient } from "../../../src/util/rpcClient.js";
import { settle, waitUntil } from "../../helpers/poll.js";
import { LOCALHOST } from "../../helpers/ports.js";
import { UPGRADE_SIGNAL_CONTRACT, UpgradeSignalL1 } from "../../helpers/upgradeSignalL1.js";

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A devnet chain in a temporary datadir (its Cobalt at `cobalt` when given). */
async function devChain(cobalt?: bigint): Promise<{ chain: Chain; dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-upgrades-"));
  dirs.push(dir);
  await Chain.init(dir, devnetGenesis(cobalt === undefined ? {} : { cobalt }));
  const chain = Chain.open(dir, { logger: pino({ level: "silent" }) });
  closers.push(() => chain.close());
  return { chain, dir };
}

/** Serves `eth_config` (basalt's answer for `chain` at `now`) over HTTP on loopback. */
async function ethConfigServer(chain: Chain, now: () => bigint): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const r = JSON.parse(body) as { id: unknown; method: string };
      const answer = r.method === "eth_config" ? { result: ethConfig(chain, now()) } : { error: { code: -32601, message: "method not found" } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: r.id, ...answer }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, LOCALHOST, resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://${LOCALHOST}:${(server.address() as { port: number }).port}`;
}

/** Thirteen unscheduled entries (ids 0–12), then `later` (Denim at 13, …). */
const schedule = (...later: bigint[]): bigint[] => [...new Array<bigint>(13).fill(0n), ...later];

async function fakeL1(s: bigint[]): Promise<UpgradeSignalL1> {
  const l1 = new UpgradeSignalL1(s);
  await l1.listen();
  closers.push(() => l1.close());
  return l1;
}

const DENIM = 1_900_000_000n;

describe("reading Base's L1 upgrade signal", () => {
  it("reads both calls at the tag's block hash and reports Denim on a devnet schedule", async () => {
    const { chain } = await devChain();
    const l1 = await fakeL1(schedule(DENIM));
    const client = new HttpRpcClient(l1.url);
    const r = await readL1Schedule((m, p) => client.call(m, p), UPGRADE_SIGNAL_CONTRACT, "finalized", knownUpgradeSchedule(chain)!);
    expect(r.timestamps).toEqual(schedule(DENIM));
    expect(r.findings).toEqual([expect.objectContaining({ source: "l1", upgrade: "denim", activation: DENIM, kind: "unknown" })]);
    expect(r.l1Block.hash).toBe(l1.blockHash);
    expect(l1.calls[0]).toEqual({ method: "eth_getBlockByNumber", params: ["finalized", false] });
    const calls = l1.calls.filter((c) => c.method === "eth_call");
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(c.params[1]).toEqual({ blockHash: l1.blockHash });
  });

  it("takes the Base network's registry by default, an address or none from the option", () => {
    expect(upgradeSignalContract(undefined, OP_NETWORKS["base-mainnet"].genesisHash)).toBe("0x7480Afc8D99a5c645c247dB5A1e4a4f440e6e095");
    expect(upgradeSignalContract(undefined, OP_NETWORKS["base-sepolia"].genesisHash)).toBe("0x15B721B12CF3b0C4400c8a2935A0Ae391c2eF65b");
    expect(upgradeSignalContract(undefined, `0x${"ab".repeat(32)}`)).toBeUndefined();
    expect(upgradeSignalContract("none", OP_NETWORKS["base-mainnet"].genesisHash)).toBeUndefined();
    expect(upgradeSignalContract(UPGRADE_SIGNAL_CONTRACT, `0x${"ab".repeat(32)}`)).toBe(UPGRADE_SIGNAL_CONTRACT);
    expect(() => upgradeSignalContract("0x1234", `0x${"ab".repeat(32)}`)).toThrow(/expected a 0x-prefixed 20-byte address or none/);
  });
});

describe("basalt's forks as eth_config shows them", () => {
  it("gives Base mainnet's fork ids from the built-in table alone (no datadir)", () => {
    const n = OP_NETWORKS["base-mainnet"];
    const view = localForkView(networkSchedule(n));
    expect(view.forkIdAt(n.forkTimes.cobalt!)).toBe("0x68647e86");
    expect(view.forkIdAt(n.forkTimes.beryl!)).toBe("0xea0159eb");
    expect(view.times).toContain(n.forkTimes.cobalt!);
  });

  it("finds the fork a node with a later schedule announces, and nothing against its own", async () => {
    const cobalt = 2_000_000_000n;
    const { chain: later } = await devChain(cobalt);
    const { chain: mine } = await devChain();
    const answer = ethConfig(later, cobalt - 10n);
    expect(compareEthConfig(answer, localForkView(mine), "http://src")).toEqual([
      expect.objectContaining({ source: "follow-rpc", activation: cobalt, kind: "unknown", upgrade: `fork ${(answer.next as { forkId: string }).forkId}` }),
    ]);
    expect(compareEthConfig(answer, localForkView(later), "http://src")).toEqual([]);
    expect(compareEthConfig(ethConfig(mine), localForkView(mine), "http://src")).toEqual([]);
  });
});

describe("the upgrade source watcher", () => {
  it("hands each read to the guard, warns once while the source fails, backs off, and keeps the last findings", async () => {
    const { chain } = await devChain();
    const l1 = await fakeL1(schedule(DENIM));
    const client = new HttpRpcClient(l1.url, { timeoutMs: 2_000 });
    const known = knownUpgradeSchedule(chain)!;
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
    const reads: number[] = [];
    const watcher = new UpgradeSourceWatcher(
      {
        source: "l1",
        what: "the fake L1",
        intervalMs: 40,
        initialBackoffMs: 10,
        read: async () => {
          reads.push(Date.now());
          return (await readL1Schedule((m, p) => client.call(m, p), UPGRADE_SIGNAL_CONTRACT, "latest", known)).findings;
        },
      },
      chain,
      logger,
    );
    closers.push(() => watcher.stop());
    await watcher.start();
    expect(chain.upgrades.findings().map((f: UpgradeFinding) => f.upgrade)).toEqual(["denim"]);
    l1.failing = true;
    const failedFrom = reads.length;
    await waitUntil("four failed reads", 5_000, () => reads.length >= failedFrom + 4);
    expect(lines.filter((l) => l.level === 40 && l.msg.includes("cannot read the upgrade source"))).toHaveLength(1);
    expect(chain.upgrades.findings().map((f) => f.upgrade)).toEqual(["denim"]);
    // Denim unscheduled again: the next good read lifts it.
    l1.failing = false;
    l1.setSchedule(schedule());
    await waitUntil("the guard cleared", 5_000, () => chain.upgrades.findings().length === 0);
    expect(lines.some((l) => l.level === 30 && l.msg.includes("answers again"))).toBe(true);
    await watcher.stop();
    const stoppedAt = reads.length;
    await settle(100, "a stopped watcher reads nothing more (a negative check)");
    expect(reads.length).toBe(stoppedAt);
  });
});

describe("basalt doctor: scheduled upgrades", () => {
  const ctxOf = (args: string[]): Parameters<typeof checkUpgrades>[0] => {
    const { options, sources } = parseCli(["doctor", ...args], {});
    return { options, sources, timeoutMs: 3_000, now: () => Date.now() };
  };
  let datadir: string;
  let l1: UpgradeSignalL1;

  beforeAll(async () => {
    datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-doctor-upgrades-"));
    dirs.push(datadir);
    l1 = await fakeL1(schedule(DENIM));
  });

  it("FAILs with the upgrade, its activation and the fix when L1 schedules one basalt lacks", async () => {
    const r = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", datadir, "--l1.rpc", l1.url, "--upgrade-signal.contract", UPGRADE_SIGNAL_CONTRACT]));
    expect(r.verdict).toBe("FAIL");
    expect(r.detail).toContain("denim at 2030-03-17 17:46:40 UTC (1900000000) (L1 upgrade signal)");
    expect(r.fix).toMatch(/^upgrade basalt to a release that implements denim before 2030-03-17/);
  });

  it("is OK when the sources schedule nothing basalt lacks, WARN when they cannot be read, SKIP without sources", async () => {
    const quiet = await fakeL1(schedule(0n));
    const ok = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", datadir, "--l1.rpc", quiet.url, "--upgrade-signal.contract", UPGRADE_SIGNAL_CONTRACT]));
    expect(ok.verdict).toBe("OK");
    expect(ok.detail).toMatch(/no upgrade basalt lacks is scheduled \(L1 ProtocolVersions 0x7480\w+ \(14 upgrades at L1 block \d+, minimum node v1\.4\.1\)\)/);
    quiet.failing = true;
    const warn = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", datadir, "--l1.rpc", quiet.url, "--upgrade-signal.contract", UPGRADE_SIGNAL_CONTRACT]));
    expect(warn.verdict).toBe("WARN");
    expect(warn.detail).toMatch(/cannot read the L1 upgrade signal/);
    const skip = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", datadir]));
    expect(skip.verdict).toBe("SKIP");
  });

  it("reads the followed node's eth_config: FAIL for a fork basalt does not have, OK for its own schedule", async () => {
    const cobalt = 2_000_000_000n;
    const { chain: later } = await devChain(cobalt);
    const url = await ethConfigServer(later, () => cobalt - 10n);
    const r = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", datadir, "--follow-rpc", url]));
    expect(r.verdict).toBe("FAIL");
    expect(r.detail).toContain("at 2033-05-18 03:33:20 UTC (2000000000) (--follow-rpc eth_config)");
    const { chain: same } = await devChain();
    const url2 = await ethConfigServer(same, () => same.head.header.timestamp);
    const ok = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", datadir, "--follow-rpc", url2]));
    expect(ok.verdict).toBe("OK");
  });

  it("reads Base mainnet's registry by default, from basalt's table when the datadir is new", async () => {
    // Base mainnet's registry as initialised (base/contract-deployments 2026-09-21-deploy-protocol-versions), then Denim.
    const mainnet = [1686789347n, 1704992401n, 1708560000n, 1710374401n, 1720627201n, 1726070401n, 1736445601n, 0n, 1746806401n, 1764691201n, 1779991200n, 1782410400n, 1790791200n];
    const registry = await fakeL1([...mainnet, 1793901600n]);
    const empty = mkdtempSync(path.join(os.tmpdir(), "basalt-doctor-mainnet-"));
    dirs.push(empty);
    const r = await checkUpgrades(ctxOf(["--network", "base-mainnet", "--datadir", empty, "--l1.rpc", registry.url]));
    expect(r.verdict).toBe("FAIL");
    expect(r.detail).toBe("this basalt cannot run denim at 2026-11-05 18:00:00 UTC (1793901600) (L1 upgrade signal)");
    // Without Denim on L1, basalt's own table of what Base announced still names it (Denim is live on mainnet).
    registry.setSchedule(mainnet);
    const announced = await checkUpgrades(ctxOf(["--network", "base-mainnet", "--datadir", empty, "--l1.rpc", registry.url]));
    expect(announced.verdict).toBe("FAIL");
    expect(announced.detail).toBe("this basalt cannot run denim at 2026-11-05 18:00:00 UTC (1793901600) (announced by Base)");
    // --upgrade-signal.contract none: nothing is read, the announced upgrade is still reported.
    const none = await checkUpgrades(ctxOf(["--network", "base-mainnet", "--datadir", empty, "--l1.rpc", registry.url, "--upgrade-signal.contract", "none"]));
    expect([none.verdict, none.detail]).toEqual(["FAIL", announced.detail]);
  });

  it("reports what a node on the datadir learnt before, without any source", async () => {
    const { chain, dir } = await devChain();
    chain.upgrades.report("l1", [{ source: "l1", upgrade: "denim", activation: DENIM, kind: "unknown", detail: "from L1" }]);
    const r = await checkUpgrades(ctxOf(["--network", "devnet", "--datadir", dir]));
    expect(r.verdict).toBe("FAIL");
    expect(r.detail).toContain("denim at 2030-03-17 17:46:40 UTC");
  });
});
