/**
 * Bench: eth_getLogs over a 10,000-block range through the real JSON-RPC server, with the log
 * index (storage/logIndex.ts) and without it (the bloom scan), on a generated log-heavy devnet
 * chain (bench/logChain.ts: ~150 logs a block over a few thousand tokens and a few hundred pools).
 *
 * Queries (each request body distinct):
 * - selective: one token (not one of the hot ones; a different token per request) and the
 *   Transfer topic at position 0;
 * - broad: the Mint topic at position 0 over every address (~1.6 logs a block: within the
 *   response cap), the range shifted by one block per request.
 * Both paths run on one node, request by request (the index, then the same body scanned — the
 * index's coverage moved for it, as on a datadir that predates the index), so machine load hits
 * both alike; the scan runs for every `--scan-every`th selective body (default 5: 10 of 50).
 * Prints one JSON line per (query, path) with p50/p99, plus the chain's size and the index's
 * bytes and write time per block. Refuses to run without enough free disk.
 *
 * Usage: node dist/bench/getLogs.js [--blocks N] [--requests N] [--scan-every K] [--broad-requests N] [--dir D]
 */
import { mkdtempSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { startNode } from "../src/cli/commands/node.js";
import { tableDefaults, type BasaltOptions } from "../src/config/options.js";
import { ChainStore, MetaKey } from "../src/storage/store.js";
import { logIndexWriteBytesTotal, logIndexWriteSeconds } from "../src/storage/logIndexMetrics.js";
import { TOPICS, writeLogChain, type LogChain } from "./logChain.js";
import { recordSummary } from "./summary.js";

/** Blocks of the queried range (the anchors' 10k-block eth_getLogs). */
const RANGE_BLOCKS = 10_000;
/** Generous bytes per generated block on disk (receipts ~25 KB, body ~9 KB, index ~6 KB, LMDB slack). */
const EST_BYTES_PER_BLOCK = 80_000;
/** Free space kept beyond the estimate. */
const DISK_MARGIN_BYTES = 2 * 1024 ** 3;
/** The anchor (ethrex#6749, L1 mainnet, one box): reth's 10k-block eth_getLogs, ms. */
const RETH_10K_BLOCKS_MS = 507;
/** Requests before the timed ones (JIT, page cache). */
const WARMUP_REQUESTS = 3;

interface Stats {
  query: string;
  path: "index" | "scan";
  requests: number;
  logsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");
const q = (n: bigint): string => "0x" + n.toString(16);

function stats(query: string, path: "index" | "scan", samples: number[], logs: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number): number => Number(s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!.toFixed(1));
  return {
    query,
    path,
    requests: s.length,
    logsPerRequest: Math.round(logs.reduce((a, b) => a + b, 0) / logs.length),
    p50Ms: at(50),
    p99Ms: at(99),
    meanMs: Number((s.reduce((a, b) => a + b, 0) / s.length).toFixed(1)),
  };
}

async function post(url: string, body: string): Promise<number> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const j = (await r.json()) as { result?: unknown[]; error?: unknown };
  if (j.error !== undefined) throw new Error(`eth_getLogs failed: ${JSON.stringify(j.error)}`);
  return j.result!.length;
}

/**
 * Times `bodies` sequentially (one in flight), each on both paths one after the other (the index,
 * then the scan: `setIndexed` moves the index's coverage, which every query reads), so both see
 * the same machine load; after a warm-up on other bodies. Fewer scan samples when `scanEvery` > 1.
 */
async function measurePaired(
  url: string,
  bodies: string[],
  warmup: string[],
  setIndexed: (on: boolean) => void,
  scanEvery: number,
): Promise<Record<"index" | "scan", { ms: number[]; logs: number[] }>> {
  for (const b of warmup) {
    setIndexed(true);
    await post(url, b);
    setIndexed(false);
    await post(url, b);
  }
  const out = { index: { ms: [] as number[], logs: [] as number[] }, scan: { ms: [] as number[], logs: [] as number[] } };
  for (let i = 0; i < bodies.length; i++) {
    for (const path of i % scanEvery === 0 ? (["index", "scan"] as const) : (["index"] as const)) {
      setIndexed(path === "index");
      const t0 = performance.now();
      out[path].logs.push(await post(url, bodies[i]!));
      out[path].ms.push(performance.now() - t0);
    }
  }
  setIndexed(true);
  return out;
}

function selectiveBodies(c: LogChain, head: bigint, n: number, offset: number): string[] {
  const from = head - BigInt(RANGE_BLOCKS) + 1n;
  // Tokens past the hot five, spread over the list: a different one per request.
  return Array.from({ length: n }, (_, i) => {
    const token = c.tokens[5 + ((offset + i) * 53) % (c.tokens.length - 5)]!;
    return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getLogs", params: [{ fromBlock: q(from), toBlock: q(head), address: hex(token), topics: [hex(TOPICS.transfer)] }] });
  });
}

function broadBodies(head: bigint, n: number, offset: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const to = head - BigInt(offset + i);
    const from = to - BigInt(RANGE_BLOCKS) + 1n;
    return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getLogs", params: [{ fromBlock: q(from), toBlock: q(to), topics: [hex(TOPICS.mint)] }] });
  });
}

async function runQueries(datadir: string, c: LogChain, counts: { selective: number; scanEvery: number; broad: number }): Promise<Stats[]> {
  const opts = { ...tableDefaults(), rollup: false, sequencer: false, datadir, network: "devnet", "http.port": 0, "authrpc.port": 0, "authrpc.jwtsecret": join(datadir, "jwt.hex") } as BasaltOptions;
  const node = await startNode(opts, pino({ level: "warn" }), false);
  // The scan path: the index covering no block (as on a datadir that predates it).
  const setIndexed = (on: boolean): void => node.chain.store.putMetaSync(MetaKey.logIndexFrom, on ? "0" : (c.head + 1n).toString());
  try {
    const url = `http://127.0.0.1:${node.httpPort}`;
    const sel = await measurePaired(url, selectiveBodies(c, c.head, counts.selective, 0), selectiveBodies(c, c.head, WARMUP_REQUESTS, 1000), setIndexed, counts.scanEvery);
    const broad = await measurePaired(url, broadBodies(c.head, counts.broad, 0), broadBodies(c.head, 1, counts.broad + 1), setIndexed, 1);
    return (["index", "scan"] as const).flatMap((path) => [
      stats("selective: one token + Transfer topic", path, sel[path].ms, sel[path].logs),
      stats("broad: Mint topic, any address", path, broad[path].ms, broad[path].logs),
    ]);
  } finally {
    await node.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      blocks: { type: "string", default: String(RANGE_BLOCKS + 64) },
      requests: { type: "string", default: "50" },
      "scan-every": { type: "string", default: "5" },
      "broad-requests": { type: "string", default: "10" },
      dir: { type: "string", default: tmpdir() },
    },
  });
  const blocks = Number(values.blocks);
  if (blocks < RANGE_BLOCKS + 16) throw new Error(`--blocks must be at least ${RANGE_BLOCKS + 16} (the range and the shifted broad queries)`);
  const fs = statfsSync(values.dir);
  const free = fs.bavail * fs.bsize;
  const needed = blocks * EST_BYTES_PER_BLOCK + DISK_MARGIN_BYTES;
  if (free < needed) {
    throw new Error(`the run needs about ${(needed / 1024 ** 3).toFixed(1)} GiB free in ${values.dir} (${blocks} blocks and a margin); ${(free / 1024 ** 3).toFixed(1)} GiB is free: give --dir elsewhere or fewer --blocks`);
  }
  const datadir = mkdtempSync(join(values.dir, "basalt-bench-getlogs-"));
  try {
    const t0 = performance.now();
    const c = await writeLogChain(datadir, { blocks, txsPerBlock: 80, tokens: 3000, pools: 300, users: 20_000, seed: 1 });
    const genSeconds = (performance.now() - t0) / 1000;
    const write = await logIndexWriteSeconds.get();
    const sum = write.values.find((v) => v.metricName?.endsWith("_sum"))?.value ?? 0;
    const count = write.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 1;
    const writtenBytes = (await logIndexWriteBytesTotal.get()).values[0]?.value ?? 0;
    const store = ChainStore.open(datadir);
    const index = store.logIndexStats();
    await store.close();
    console.log(
      JSON.stringify({
        bench: "getLogs-chain",
        blocks,
        logs: c.logs,
        logsPerBlock: Math.round(c.logs / blocks),
        generateSeconds: Number(genSeconds.toFixed(1)),
        datadirBytesPerBlock: Math.round(statSync(join(datadir, "chain", "data.mdb")).size / blocks),
        indexShards: index.entries,
        indexBytes: index.bytes,
        indexBytesPerBlock: Math.round(index.bytes / blocks),
        indexWriteMsPerBlock: Number(((sum / count) * 1000).toFixed(3)),
        indexWrittenBytesPerBlock: Math.round(writtenBytes / count),
      }),
    );
    const results = await runQueries(datadir, c, { selective: Number(values.requests), scanEvery: Number(values["scan-every"]), broad: Number(values["broad-requests"]) });
    for (const r of results) console.log(JSON.stringify({ bench: "getLogs", rangeBlocks: RANGE_BLOCKS, ...r }));
    const sel = results.find((r) => r.query.startsWith("selective") && r.path === "index");
    const scan = results.find((r) => r.query.startsWith("selective") && r.path === "scan");
    const broad = results.find((r) => r.query.startsWith("broad") && r.path === "index");
    const lines = [];
    if (sel !== undefined) {
      lines.push({
        bench: "getLogs",
        target: `eth_getLogs over ${RANGE_BLOCKS} blocks, one address + topic: faster than reth's ${RETH_10K_BLOCKS_MS} ms (ethrex#6749)`,
        measured: `p50 ${sel.p50Ms} ms, p99 ${sel.p99Ms} ms (${sel.logsPerRequest} logs; scan path p50 ${scan?.p50Ms ?? "-"} ms)`,
        verdict: sel.p50Ms < RETH_10K_BLOCKS_MS ? "PASS" : "MISS",
      });
    }
    if (broad !== undefined) {
      lines.push({ bench: "getLogs", target: `eth_getLogs over ${RANGE_BLOCKS} blocks, one topic, any address (informational)`, measured: `p50 ${broad.p50Ms} ms, p99 ${broad.p99Ms} ms (${broad.logsPerRequest} logs)`, verdict: "N/A" });
    }
    recordSummary(lines);
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
