/**
 * End-to-end: a real `basalt node --metrics --public` on the devnet (1 s blocks). After some
 * traffic, /metrics lists every family the operations guide and the Grafana dashboard rely on
 * (RPC, execution pool, response cache, flashblocks, public mode, chain, storage, process); the
 * head gauge agrees with eth_blockNumber; the public port refuses eth_getBlockReceipts (403) and
 * debug_* (-32601), and a burst above the per-IP limit gets 429s with Retry-After.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { postRaw, rpcCall, rpcResult } from "../helpers/rpc.js";

/** Burst of the node under test: room for the readiness probes and the traffic below, small enough to exceed quickly. */
const BURST = 30;
/** Sustained rate: slow enough that a 100-request burst cannot be absorbed by refill while it is in flight. */
const RATE = 2;
/** Requests fired at once to exceed the limit. */
const FLOOD = 100;

let node: NodeHandle;
let datadir = "";
let metricsUrl = "";

async function scrape(): Promise<string> {
  const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type") ?? "").toMatch(/^text\/plain/);
  return res.text();
}

/** Value of an unlabelled sample in the exposition text. */
function sample(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  if (m === null) throw new Error(`no sample ${name} in /metrics`);
  return Number(m[1]);
}

beforeAll(async () => {
  datadir = await makeTempDir("basalt-metrics-");
  const [metricsPort, rollupPort] = (await getFreePorts(2)) as [number, number];
  metricsUrl = `http://${LOCALHOST}:${metricsPort}/metrics`;
  node = await startNode({
    datadir,
    args: [
      "--dev.block-time", "1",
      "--metrics", "--metrics.port", String(metricsPort),
      "--rollup.port", String(rollupPort),
      "--public", "--public.rate", String(RATE), "--public.burst", String(BURST),
      "--log.level", "warn",
    ],
  });
});

afterAll(async () => {
  await stopAllProcesses();
  if (datadir !== "") await removeDir(datadir);
});

describe("basalt node --metrics --public", () => {
  it("exports every metric family after some traffic", async () => {
    const [a0, a1] = devAccounts();
    await rpcResult(node.url, "eth_chainId");
    await rpcResult(node.url, "eth_getBlockByNumber", ["latest", false]);
    await rpcResult(node.url, "eth_getBlockByNumber", ["latest", false]);
    await rpcResult(node.url, "eth_call", [{ from: a0!.address, to: a1!.address, data: "0x" }, "latest"]);
    expect((await rpcCall(node.url, "eth_getBalance", ["not an address"])).error).toBeDefined();

    const text = await scrape();
    const dashboard = readFileSync(new URL("../../deploy/grafana/basalt.json", import.meta.url), "utf8");
    const names = new Set([
      "basalt_rpc_requests_total",
      "basalt_rpc_request_duration_seconds",
      "basalt_rpc_errors_total",
      "basalt_rpc_rate_limited_total",
      "basalt_rpc_forbidden_total",
      "basalt_rpc_connections_rejected_total",
      "basalt_rpc_open_connections",
      "basalt_rpc_response_cache_hits_total",
      "basalt_rpc_response_cache_misses_total",
      "basalt_execution_pool_queued_requests",
      "basalt_execution_pool_busy_workers",
      "basalt_execution_pool_tasks_total",
      "basalt_flashblocks_received_total",
      "basalt_flashblocks_applied_total",
      "basalt_flashblocks_rejected_total",
      "basalt_flashblocks_visible_latency_seconds",
      "basalt_chain_head_number",
      "basalt_chain_safe_number",
      "basalt_chain_finalized_number",
      "basalt_chain_head_age_seconds",
      "basalt_chain_head_used_gas",
      "basalt_storage_db_bytes",
      "basalt_process_resident_memory_bytes",
      "basalt_process_cpu_seconds_total",
      // Everything the dashboard queries, by family name.
      ...[...dashboard.matchAll(/\bbasalt_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, "")),
    ]);
    const exported = (n: string): boolean => text.includes(`# TYPE ${n} `);
    const missing = [...names].filter((n) => !exported(n));
    expect(missing).toEqual([]);
    // The traffic above shows up as samples, not just families.
    expect(text).toMatch(/^basalt_rpc_requests_total\{method="eth_call",transport="http"\} [1-9]/m);
    expect(text).toMatch(/^basalt_rpc_errors_total\{method="eth_getBalance",code="-32602"\} [1-9]/m);
    expect(text).toMatch(/^basalt_execution_pool_tasks_total\{method="eth_call",outcome="ok"\} [1-9]/m);
    expect(sample(text, "basalt_storage_db_bytes")).toBeGreaterThan(0);
    expect(sample(text, "basalt_execution_pool_workers")).toBeGreaterThan(0);
  });

  it("reports the head number eth_blockNumber answers, and safe ≤ head", async () => {
    const before = Number(await rpcResult(node.url, "eth_blockNumber"));
    const text = await scrape();
    const after = Number(await rpcResult(node.url, "eth_blockNumber"));
    const head = sample(text, "basalt_chain_head_number");
    expect(head).toBeGreaterThanOrEqual(before);
    expect(head).toBeLessThanOrEqual(after);
    expect(sample(text, "basalt_chain_safe_number")).toBeLessThanOrEqual(head);
    expect(sample(text, "basalt_chain_finalized_number")).toBeLessThanOrEqual(head);
  });

  it("refuses eth_getBlockReceipts with 403 and debug_* with -32601 on the public port", async () => {
    const receipts = await postRaw(node.url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockReceipts", params: ["latest"] }));
    expect(receipts.status).toBe(403);
    expect(JSON.parse(receipts.body)).toMatchObject({ id: null, error: { code: -32601 } });
    const debug = await rpcCall(node.url, "debug_getRawHeader", ["latest"]);
    expect(debug.error).toEqual({ code: -32601, message: "the method debug_getRawHeader does not exist/is not available" });
  });

  it("answers 429 with Retry-After to a burst above the per-IP limit", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, () =>
        fetch(node.url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(10_000) }),
      ),
    );
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const message = expect.stringMatching(/^rate limit exceeded: 2 requests\/s per client/);
    expect(await limited[0]!.json()).toMatchObject({ id: null, error: { code: -32005, message } });
    await Promise.all(answers.filter((r) => !r.bodyUsed).map((r) => r.text()));
    const text = await scrape();
    expect(text).toMatch(/^basalt_rpc_rate_limited_total\{transport="http"\} [1-9]/m);
    expect(text).toMatch(/^basalt_rpc_forbidden_total\{method="eth_getBlockReceipts"\} [1-9]/m);
  });
});
