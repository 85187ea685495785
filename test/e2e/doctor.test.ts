/**
 * End-to-end: `basalt doctor` as a process, against a temp datadir, a fake L1 JSON-RPC and a fake
 * L1 beacon API (node:http on 127.0.0.1), a port held by a plain server, and a running basalt
 * devnet. Checks verdicts, fixes and exit codes through `--json` (and the text form once).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli/args.js";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcCall, rpcResult } from "../helpers/rpc.js";

/** Sepolia's chain id as eth_chainId answers it. */
const SEPOLIA_CHAIN_ID_HEX = "0xaa36a7";
/** Sepolia's beacon genesis time (2022-06-20 14:00:00 UTC). */
const SEPOLIA_BEACON_GENESIS_TIME = "1655733600";
/** Bound of one doctor run (its probes time out after 5 s each, concurrently). */
const DOCTOR_TIMEOUT_MS = 60_000;

interface Check {
  id: string;
  title: string;
  verdict: "OK" | "WARN" | "FAIL" | "SKIP";
  detail: string;
  fix?: string;
  data?: Record<string, unknown>;
}
interface Report {
  ok: boolean;
  exitCode: number;
  counts: Record<string, number>;
  checks: Check[];
}

const servers: http.Server[] = [];
const dirs: string[] = [];
/** What the fake L1 answers to eth_chainId (changed per test). */
let l1ChainId = SEPOLIA_CHAIN_ID_HEX;
let l1Url = "";
let beaconUrl = "";

function listen(server: http.Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, LOCALHOST, () => resolve((server.address() as AddressInfo).port)));
}

/** A fake L1 execution node: eth_chainId (configurable) and eth_syncing (false). */
function fakeL1(): http.Server {
  return http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const call = JSON.parse(body) as { id: number; method: string };
      const result = call.method === "eth_chainId" ? l1ChainId : call.method === "eth_syncing" ? false : undefined;
      const notFound = { code: -32601, message: "method not found" };
      const answer = result === undefined ? { jsonrpc: "2.0", id: call.id, error: notFound } : { jsonrpc: "2.0", id: call.id, result };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
}

/** A fake L1 beacon API: node version and (Sepolia's) genesis. */
/** The fake beacon's MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS (Ethereum's 4096 unless a test changes it). */
let retentionEpochs = 4096;

function fakeBeacon(): http.Server {
  return http.createServer((req, res) => {
    const json = (o: unknown): void => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(o));
    if (req.url === "/eth/v1/node/version") return json({ data: { version: "FakeBeacon/v1.0.0" } });
    if (req.url === "/eth/v1/config/spec") return json({ data: { MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS: String(retentionEpochs), SLOTS_PER_EPOCH: "32", SECONDS_PER_SLOT: "12" } });
    if (req.url === "/eth/v1/beacon/genesis") {
      const root = `0x${"00".repeat(32)}`;
      return json({ data: { genesis_time: SEPOLIA_BEACON_GENESIS_TIME, genesis_validators_root: root, genesis_fork_version: "0x90000069" } });
    }
    res.writeHead(404).end();
  });
}

/** Every inherited BASALT_* variable blanked (the parser ignores empty values), so only the test's options count. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith("BASALT_")) env[k] = "";
  return { ...env, ...extra };
}

/** Four free ports for http, authrpc, rollup and the devnet flashblocks server, as doctor/node flags. */
async function portArgs(): Promise<{ args: string[]; http: number; auth: number; rollup: number; flashblocks: number }> {
  const [h, a, r, f] = (await getFreePorts(4)) as [number, number, number, number];
  return {
    args: ["--http.port", String(h), "--authrpc.port", String(a), "--rollup.port", String(r), "--flashblocks.port", String(f)],
    http: h,
    auth: a,
    rollup: r,
    flashblocks: f,
  };
}

async function doctor(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; report: Report; stdout: string }> {
  const full = ["doctor", "--json", ...args];
  const r = await runCli(full, { env: cleanEnv(env), timeoutMs: DOCTOR_TIMEOUT_MS });
  expect(r.timedOut, describeCliResult(full, r)).toBe(false);
  let report: Report;
  try {
    report = JSON.parse(r.stdout) as Report;
  } catch {
    throw new Error(`doctor printed no JSON\n${describeCliResult(full, r)}`);
  }
  return { code: r.code, report, stdout: r.stdout };
}

function check(report: Report, id: string): Check {
  const c = report.checks.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no check ${id} in ${JSON.stringify(report.checks.map((x) => x.id))}`);
  return c;
}

async function tempDir(): Promise<string> {
  const d = await makeTempDir("basalt-doctor-");
  dirs.push(d);
  return d;
}

beforeAll(async () => {
  l1Url = `http://${LOCALHOST}:${await listen(fakeL1())}`;
  beaconUrl = `http://${LOCALHOST}:${await listen(fakeBeacon())}/`;
});

afterAll(async () => {
  await stopAllProcesses();
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  await Promise.all(dirs.map(removeDir));
});

describe("basalt doctor arguments", () => {
  it("takes every option of `basalt node` and --json, and no positional argument", () => {
    const p = parseCli(["doctor", "--json", "--http.port", "1234", "--dev.block-time", "1"], { BASALT_L1_ETH_RPC: "http://l1.example" });
    expect(p.command).toBe("doctor");
    expect(p.json).toBe(true);
    expect(p.options["http.port"]).toBe(1234);
    expect(p.options["l1.rpc"]).toBe("http://l1.example");
    expect(p.sources["l1.rpc"]).toBe("env");
    expect(() => parseCli(["node", "--json"], {})).toThrow(/--json does not apply to `basalt node`/);
    expect(() => parseCli(["doctor", "extra"], {})).toThrow(/unexpected argument "extra" for `basalt doctor`/);
  });
});

describe("basalt doctor", () => {
  it("passes every check for a fresh devnet datadir with a reachable L1 and beacon (env file), exit 0", async () => {
    const dir = await tempDir();
    const envFile = path.join(dir, "basalt.env");
    await writeFile(envFile, `BASALT_L1_ETH_RPC=${l1Url}\nBASALT_L1_BEACON=${beaconUrl}\n`);
    const ports = await portArgs();
    const { code, report } = await doctor(["--datadir", path.join(dir, "data"), "--env-file", envFile, ...ports.args]);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.counts.FAIL).toBe(0);
    expect(report.checks.filter((c) => c.verdict === "WARN" || c.verdict === "FAIL")).toEqual([]);
    expect(check(report, "datadir").verdict).toBe("OK");
    expect(check(report, "genesis").detail).toContain("not initialized");
    for (const id of ["port.http", "port.authrpc", "port.rollup", "port.flashblocks"]) expect(check(report, id).verdict).toBe("OK");
    const l1 = check(report, "l1.rpc");
    expect(l1.verdict).toBe("OK");
    expect(l1.data?.chainId).toBe(11155111);
    expect(typeof l1.data?.latencyMs).toBe("number");
    expect(check(report, "l1.beacon").verdict).toBe("OK");
    expect(check(report, "l1.beacon").detail).toContain("FakeBeacon/v1.0.0");
    // The options check reports where the key options came from.
    const sources = check(report, "options").data?.options as Record<string, { source: string }>;
    expect(sources["l1.rpc"]?.source).toBe("env-file");
    expect(sources["http.port"]?.source).toBe("cli");
    expect(sources["network"]?.source).toBe("default");
    expect(check(report, "sync").verdict).toBe("SKIP");
    expect(check(report, "flashblocks").verdict).toBe("SKIP");
  });

  it("accepts the right L1 for base-sepolia and FAILs a wrong one, naming expected and actual with a fix, exit 1", async () => {
    const dir = await tempDir();
    const ports = await portArgs();
    const args = ["--network", "base-sepolia", "--datadir", path.join(dir, "data"), "--l1.rpc", l1Url, "--l1.beacon", beaconUrl, ...ports.args];
    l1ChainId = SEPOLIA_CHAIN_ID_HEX;
    const right = await doctor(args);
    expect(check(right.report, "l1.rpc").verdict).toBe("OK");
    expect(check(right.report, "l1.beacon").verdict).toBe("OK");
    expect(check(right.report, "l1.beacon").detail).toContain("keeps blobs 18.2 days");
    // A beacon that prunes blobs sooner than a sequencing window plus a channel timeout (12.2 h on Base): WARN.
    retentionEpochs = 16;
    try {
      const short = check((await doctor(args)).report, "l1.beacon");
      expect(short.verdict).toBe("WARN");
      expect(short.detail).toContain("needs blobs of the last 12.2 hours");
    } finally {
      retentionEpochs = 4096;
    }

    l1ChainId = "0x1";
    try {
      const wrong = await doctor(args);
      expect(wrong.code).toBe(1);
      const c = check(wrong.report, "l1.rpc");
      expect(c.verdict).toBe("FAIL");
      expect(c.detail).toContain("1 (Ethereum mainnet)");
      expect(c.detail).toContain("expected 11155111 (Sepolia)");
      expect(c.fix).toContain("BASALT_L1_ETH_RPC");
      // The text form shows the verdict and the fix.
      const text = await runCli(["doctor", ...args], { env: cleanEnv(), timeoutMs: DOCTOR_TIMEOUT_MS });
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/^FAIL\s+L1 RPC\s+.*expected 11155111/m);
      expect(text.stdout).toMatch(/fix: set BASALT_L1_ETH_RPC/);
    } finally {
      l1ChainId = SEPOLIA_CHAIN_ID_HEX;
    }
  });

  it("FAILs an unreachable L1 RPC, beacon and flashblocks stream, exit 1", async () => {
    const dir = await tempDir();
    const ports = await portArgs();
    const [dead] = (await getFreePorts(1)) as [number];
    const { code, report } = await doctor([
      "--datadir",
      path.join(dir, "data"),
      "--l1.rpc",
      `http://${LOCALHOST}:${dead}`,
      "--l1.beacon",
      `http://${LOCALHOST}:${dead}`,
      "--flashblocks-url",
      `ws://${LOCALHOST}:${dead}/ws`,
      ...ports.args,
    ]);
    expect(code).toBe(1);
    for (const id of ["l1.rpc", "l1.beacon", "flashblocks"]) {
      const c = check(report, id);
      expect(c.verdict, id).toBe("FAIL");
      expect(c.detail, id).toContain("ECONNREFUSED");
      expect(c.fix, id).toBeDefined();
    }
  });

  it("FAILs a port held by another program, naming the port, exit 1", async () => {
    const dir = await tempDir();
    const ports = await portArgs();
    const plain = http.createServer((_req, res) => res.writeHead(404).end());
    const taken = await listen(plain);
    const args = ["--datadir", path.join(dir, "data"), ...ports.args, "--authrpc.port", String(taken)];
    const { code, report } = await doctor(args);
    expect(code).toBe(1);
    const c = check(report, "port.authrpc");
    expect(c.verdict).toBe("FAIL");
    expect(c.detail).toContain(`port ${taken}`);
    expect(c.fix).toContain("--authrpc.port");
    expect(check(report, "port.http").verdict).toBe("OK");
  });

  it("FAILs a datadir whose genesis is not the one of --network", async () => {
    const dir = await tempDir();
    const datadir = path.join(dir, "data");
    const init = await runCli(["init", "--datadir", datadir], { env: cleanEnv(), timeoutMs: DOCTOR_TIMEOUT_MS });
    expect(init.code, describeCliResult(["init"], init)).toBe(0);
    const ports = await portArgs();
    const devnet = await doctor(["--datadir", datadir, ...ports.args]);
    expect(check(devnet.report, "genesis").verdict).toBe("OK");
    const sepolia = await doctor(["--network", "base-sepolia", "--datadir", datadir, ...ports.args]);
    const c = check(sepolia.report, "genesis");
    expect(c.verdict).toBe("FAIL");
    expect(c.detail).toContain("base-sepolia");
    expect(sepolia.code).toBe(1);
  });

  it("reports the ports of a running devnet as in use by basalt, its sync lag, and its flashblocks stream", async () => {
    const dir = await tempDir();
    const datadir = path.join(dir, "data");
    const ports = await portArgs();
    // Both P2P layers on free loopback ports, so the P2P checks probe a real running node.
    const [cl, el] = await getFreePorts(2);
    const [v5] = await getFreePorts(1);
    const p2p = ["--p2p.listen.ip", "127.0.0.1", "--p2p.listen.tcp", String(cl), "--p2p.listen.udp", String(cl), "--addr", "127.0.0.1", "--port", String(el), "--discovery.addr", "127.0.0.1", "--discovery.port", String(el), "--discovery.v5.port", String(v5), "--rollup.discovery.v4"];
    ports.args.push(...p2p);
    const node = await startNode({ datadir, args: [...ports.args, "--dev.block-time", "1"], env: cleanEnv() });
    // P2P starts after the RPC answers.
    await pollUntil("the P2P thread", 30_000, async () => ((await rpcCall(node.rollupUrl, "opp2p_self")).result !== undefined ? true : undefined));
    // The lag is measured on the head: wait for a block sealed now (the devnet genesis time is when the datadir was made).
    await pollUntil("devnet block 1", 15_000, async () => (BigInt((await rpcResult(node.url, "eth_blockNumber")) as string) >= 1n ? true : undefined));
    const { code, report } = await doctor(["--datadir", datadir, ...ports.args, "--dev.block-time", "1", "--flashblocks-url", node.flashblocksUrl]);
    expect(code, JSON.stringify(report.checks, null, 2)).toBe(0);
    for (const id of ["port.http", "port.authrpc", "port.flashblocks"]) {
      const c = check(report, id);
      expect(c.verdict, id).toBe("OK");
      expect(c.detail, id).toContain("in use by basalt (running");
    }
    expect(check(report, "genesis").verdict).toBe("OK");
    expect(check(report, "datadir").verdict).toBe("OK");
    const sync = check(report, "sync");
    expect(check(report, "port.rollup").detail).toContain("in use by basalt (running");
    // The verdict follows the measured lag (a node stalled on a busy machine is reported, not a test failure).
    const lag = sync.data?.lagSeconds as number;
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(sync.verdict, sync.detail).toBe(lag <= (sync.data?.okBelowSeconds as number) ? "OK" : "WARN");
    const fb = check(report, "flashblocks");
    expect(fb.verdict, fb.detail).toBe("OK");
    expect(fb.detail).toContain("first frame");
    // Reachable from the node itself: TCP accepts on both layers, discv5 (consensus and basev0) and discv4 answer a PING.
    for (const id of ["p2p.libp2p", "p2p.discv5", "p2p.rlpx", "p2p.basev0", "p2p.discv4"]) expect(check(report, id).verdict, `${id}: ${check(report, id).detail}`).toBe("OK");
    await node.stop();
  });
});
