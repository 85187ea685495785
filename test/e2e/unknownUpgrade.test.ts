/**
 * End-to-end: a node never runs past an upgrade it does not know. Real `basalt node` processes on
 * the devnet, on loopback.
 * (a) Base's L1 upgrade signal: an L1 JSON-RPC endpoint carrying the `ProtocolVersions` contract
 *     (`helpers/upgradeSignalL1.ts`) first schedules only what basalt knows — nothing is reported,
 *     `basalt doctor` says OK — then schedules Denim a few seconds ahead: the follower reports it
 *     (metric, one WARN), imports every block before it, refuses the first block at it with one
 *     ERROR line, stays there without retrying, keeps serving RPC, and `basalt doctor` FAILs; after
 *     a restart with the L1 unreachable it still stops there.
 * (b) The followed RPC's eth_config: a sequencer whose devnet schedules Cobalt mid-chain
 *     (`--dev.cobalt-time`) announces it as `next`; a follower created with the default schedule
 *     (Cobalt at genesis) has no fork at that time, reports it and stops there — where it would
 *     otherwise have gone on executing the sequencer's blocks under its own rules.
 */
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, runCli, startNode, stopAllProcesses, describeCliResult, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil, waitUntil } from "../helpers/poll.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { rpcResult } from "../helpers/rpc.js";
import { UPGRADE_SIGNAL_CONTRACT, UpgradeSignalL1 } from "../helpers/upgradeSignalL1.js";

type Block = { number: string; timestamp: string; hash: string };

const tempDirs: string[] = [];
const servers: UpgradeSignalL1[] = [];

afterAll(async () => {
  await stopAllProcesses();
  for (const s of servers) await s.close();
  for (const d of tempDirs) await removeDir(d);
});

async function tempDir(): Promise<string> {
  const d = await makeTempDir("basalt-e2e-upgrade-");
  tempDirs.push(d);
  return d;
}

/** Every BASALT_* variable of the test's environment blanked, so only the flags count. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith("BASALT_")) env[k] = "";
  return env;
}

const block = async (url: string, tag: string): Promise<Block> => (await rpcResult(url, "eth_getBlockByNumber", [tag, false])) as Block;

/** The node's /metrics text ("" while the metrics server is not listening yet: it starts last). */
async function scrape(port: number): Promise<string> {
  try {
    return await (await fetch(`http://${LOCALHOST}:${port}/metrics`)).text();
  } catch {
    return "";
  }
}

/** The value of the sample of `name` whose labels include every `labels` pair, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

/** The node's JSON log lines at `level` (40 warn, 50 error) whose message matches `re`. */
function logLines(node: NodeHandle, level: number, re: RegExp): string[] {
  return node
    .stdout()
    .split("\n")
    .flatMap((l) => {
      try {
        const o = JSON.parse(l) as { level: number; msg: string };
        return o.level === level && re.test(o.msg) ? [o.msg] : [];
      } catch {
        return [];
      }
    });
}

interface DoctorCheck {
  id: string;
  verdict: string;
  detail: string;
  fix?: string;
}

async function doctorUpgrades(args: string[]): Promise<DoctorCheck> {
  const full = ["doctor", "--json", ...args];
  const r = await runCli(full, { env: cleanEnv(), timeoutMs: 60_000 });
  const report = JSON.parse(r.stdout) as { checks: DoctorCheck[] };
  const c = report.checks.find((x) => x.id === "upgrades");
  if (c === undefined) throw new Error(`no upgrades check\n${describeCliResult(full, r)}`);
  return c;
}

/** The first block of `url` at or after `t` (polled until the sequencer has sealed it). */
async function firstBlockAtOrAfter(url: string, t: bigint, timeoutMs: number): Promise<Block> {
  await pollUntil(`a block at or after ${t}`, timeoutMs, async () => (BigInt((await block(url, "latest")).timestamp) >= t ? true : undefined), 250);
  let lo = 0n;
  let hi = BigInt((await block(url, "latest")).number);
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (BigInt((await block(url, `0x${mid.toString(16)}`)).timestamp) >= t) hi = mid;
    else lo = mid + 1n;
  }
  return block(url, `0x${hi.toString(16)}`);
}

/** Waits until `node` stops at the block before `first` (`first` is refused) and checks it stays there while the sequencer at `seqUrl` seals more. */
async function expectHaltedBefore(node: NodeHandle, first: Block, seqUrl: string): Promise<void> {
  const before = `0x${(BigInt(first.number) - 1n).toString(16)}`;
  await pollUntil(`the follower at block ${before}\n${node.outputTail(30)}`, 30_000, async () => ((await block(node.url, "latest")).number === before ? true : undefined), 200);
  // It stays there while the sequencer seals three more blocks (the follower polls every 100 ms), and still serves RPC for what it has.
  const sealed = BigInt((await block(seqUrl, "latest")).number);
  await pollUntil(`the sequencer past block ${sealed + 2n}`, 30_000, async () => (BigInt((await block(seqUrl, "latest")).number) >= sealed + 3n ? true : undefined), 200);
  expect((await block(node.url, "latest")).number).toBe(before);
  expect(await rpcResult(node.url, "eth_getBlockByNumber", [first.number, false])).toBeNull();
  expect(await rpcResult(node.url, "eth_blockNumber", [])).toBe(before);
}

describe("a follower at an upgrade Base's L1 signal schedules and basalt does not implement (e2e)", () => {
  it("reports nothing while only known upgrades are scheduled, then stops at Denim and keeps stopping after a restart", async () => {
    const l1 = new UpgradeSignalL1(new Array<bigint>(13).fill(0n));
    servers.push(l1);
    await l1.listen();
    const seq = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--dev.block-time", "1", "--rpc.threads", "1"] });
    const [metricsPort] = (await getFreePorts(1)) as [number];
    const folDir = await tempDir();
    const followerArgs = [
      "--network", "devnet",
      "--follow-rpc", seq.url, "--follow.poll-interval", "100",
      "--l1.rpc", l1.url, "--upgrade-signal.contract", UPGRADE_SIGNAL_CONTRACT, "--upgrade-signal.l1-block-tag", "latest",
      "--metrics", "--metrics.port", String(metricsPort),
      "--rpc.threads", "1", "--log.format", "json",
    ];
    let fol = await startNode({ datadir: folDir, args: followerArgs });

    // (1) Known upgrades only: read, nothing reported, the follower follows, doctor OK.
    await waitUntil("a few followed blocks", 20_000, async () => BigInt((await block(fol.url, "latest")).number) >= 3n, 200);
    let text = await pollUntil("the metrics endpoint", 10_000, async () => {
      const t = await scrape(metricsPort);
      return t === "" ? undefined : t;
    });
    expect(sample(text, "basalt_chain_upgrade_source_reads_total", { source: "l1", result: "ok" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "basalt_chain_upgrade_source_reads_total", { source: "follow-rpc", result: "ok" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "basalt_chain_unknown_upgrade_activation_seconds")).toBeUndefined();
    const doctorArgs = ["--network", "devnet", "--datadir", folDir, "--l1.rpc", l1.url, "--upgrade-signal.contract", UPGRADE_SIGNAL_CONTRACT, "--follow-rpc", seq.url];
    const ok = await doctorUpgrades(doctorArgs);
    expect(ok.verdict, ok.detail).toBe("OK");

    // (2) Denim scheduled a little ahead: learnt at the next poll (12 s at the latest tag), then the follower stops at it.
    const denim = BigInt((await block(seq.url, "latest")).timestamp) + 18n;
    l1.setSchedule([...new Array<bigint>(13).fill(0n), denim]);
    await pollUntil(`the Denim finding in /metrics\n${fol.outputTail(20)}`, 20_000, async () => {
      text = await scrape(metricsPort);
      return sample(text, "basalt_chain_unknown_upgrade_activation_seconds", { source: "l1", upgrade: "denim", kind: "unknown" }) === Number(denim) ? true : undefined;
    }, 250);
    expect(sample(text, "basalt_chain_unknown_upgrade_remaining_seconds", { source: "l1", upgrade: "denim" })).toBeGreaterThan(0);
    expect(logLines(fol, 40, /denim/)).toHaveLength(1);
    const failing = await doctorUpgrades(doctorArgs);
    expect(failing.verdict).toBe("FAIL");
    expect(failing.detail).toContain(`denim at`);
    expect(failing.detail).toContain(`(${denim}) (L1 upgrade signal)`);
    expect(failing.fix).toMatch(/^upgrade basalt to a release that implements denim/);

    const first = await firstBlockAtOrAfter(seq.url, denim, 40_000);
    await expectHaltedBefore(fol, first, seq.url);
    const refusals = logLines(fol, 50, /refusing to import block/);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain(`block ${BigInt(first.number)} (timestamp ${BigInt(first.timestamp)}): denim activates at`);
    expect(refusals[0]).toContain("Base's L1 upgrade signal");
    text = await scrape(metricsPort);
    // One refusal: the follower waits for the findings to change instead of retrying.
    expect(sample(text, "basalt_chain_unknown_upgrade_refused_blocks_total", { action: "import" })).toBe(1);
    expect(sample(text, "basalt_sync_follow_errors_total", { reason: "unknown_upgrade" })).toBe(1);

    // (3) Restarted with the L1 unreachable: the guard is kept in the datadir, the follower stops at the same block.
    await fol.stop();
    l1.failing = true;
    fol = await startNode({ datadir: folDir, args: followerArgs });
    await expectHaltedBefore(fol, first, seq.url);
    expect(logLines(fol, 50, /refusing to import block/)).toHaveLength(1);
    expect(logLines(fol, 40, /cannot read the upgrade source/)).toHaveLength(1);
  }, 180_000);
});

describe("a follower at a fork the followed RPC's eth_config announces and basalt does not have (e2e)", () => {
  it("stops at it instead of following the sequencer's blocks under its own rules", async () => {
    const seqDir = await tempDir();
    // The sequencer's devnet activates Cobalt mid-chain; the follower's has it at genesis (the default).
    const cobalt = BigInt(Math.floor(Date.now() / 1000)) + 14n;
    const seq = await startNode({ datadir: seqDir, args: ["--network", "devnet", "--dev.block-time", "1", "--dev.cobalt-time", String(cobalt), "--rpc.threads", "1"] });
    const [metricsPort] = (await getFreePorts(1)) as [number];
    const folDir = await tempDir();
    const fol = await startNode({
      datadir: folDir,
      args: ["--network", "devnet", "--follow-rpc", seq.url, "--follow.poll-interval", "100", "--metrics", "--metrics.port", String(metricsPort), "--rpc.threads", "1", "--log.format", "json"],
    });
    const text = await pollUntil("the eth_config finding in /metrics", 20_000, async () => {
      const t = await scrape(metricsPort);
      return sample(t, "basalt_chain_unknown_upgrade_activation_seconds", { source: "follow-rpc", kind: "unknown" }) === Number(cobalt) ? t : undefined;
    }, 250);
    expect(text).toMatch(/basalt_chain_unknown_upgrade_activation_seconds\{source="follow-rpc",upgrade="fork 0x[0-9a-f]{8}",kind="unknown"\}/);
    expect(logLines(fol, 40, /eth_config schedules fork 0x[0-9a-f]{8} at/)).toHaveLength(1);
    const doctor = await doctorUpgrades(["--network", "devnet", "--datadir", folDir, "--follow-rpc", seq.url]);
    expect(doctor.verdict).toBe("FAIL");
    expect(doctor.detail).toContain(`(${cobalt}) (--follow-rpc eth_config)`);

    const first = await firstBlockAtOrAfter(seq.url, cobalt, 40_000);
    await expectHaltedBefore(fol, first, seq.url);
    const refusals = logLines(fol, 50, /refusing to import block/);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain("the followed RPC's eth_config");
  }, 120_000);
});
