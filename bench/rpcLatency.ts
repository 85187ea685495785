/**
 * Bench: single-request latency (sequential, one in flight) of eth_getBlockByNumber(latest,
 * true) and eth_estimateGas on the imported execution-apis chain, against a real node
 * started in-process on a free loopback port.
 *
 * Usage: node dist/bench/rpcLatency.js [requests=500]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { decodeBlockFromRlp } from "../src/chain/blockCodec.js";
import { Chain } from "../src/blockchain/chain.js";
import { splitRlpItems } from "../src/chain/rlpFile.js";
import { startNode } from "../src/cli/commands/node.js";
import { tableDefaults, type BasaltOptions } from "../src/config/options.js";
import { sharedFixture } from "./fixtures.js";

interface Stats {
  method: string;
  requests: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

function stats(method: string, samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number): number => Number(s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))].toFixed(3));
  return { method, requests: s.length, p50Ms: q(50), p90Ms: q(90), p99Ms: q(99), maxMs: Number(s[s.length - 1].toFixed(3)), meanMs: Number((s.reduce((a, b) => a + b, 0) / s.length).toFixed(3)) };
}

async function measure(url: string, body: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + 20; i++) {
    const t0 = performance.now();
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    const j = (await r.json()) as { error?: unknown };
    const dt = performance.now() - t0;
    if (j.error !== undefined) throw new Error(`request failed: ${JSON.stringify(j.error)}`);
    if (i >= 20) out.push(dt); // first 20 are warm-up
  }
  return out;
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 500);
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-rpc-"));
  try {
    await Chain.init(datadir, JSON.parse(readFileSync(sharedFixture("execution-apis/prague/genesis.json"), "utf8")), { archive: true });
    const chain = Chain.open(datadir);
    for (const { bytes } of splitRlpItems(readFileSync(sharedFixture("execution-apis/prague/chain.rlp")))) await chain.importBlock(decodeBlockFromRlp(chain, bytes));
    await chain.close();
    const opts = { ...tableDefaults(), rollup: false, datadir, network: "devnet", "http.port": 0, "authrpc.port": 0, "authrpc.jwtsecret": join(datadir, "jwt.hex") } as BasaltOptions;
    const node = await startNode(opts, pino({ level: "warn" }), false);
    const url = `http://127.0.0.1:${node.httpPort}`;
    const results = [
      stats("eth_getBlockByNumber(latest,true)", await measure(url, '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",true]}', n)),
      stats(
        "eth_estimateGas(transfer)",
        await measure(url, '{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f","to":"0x0100000000000000000000000000000000000000","value":"0x1"}]}', n),
      ),
      stats(
        "eth_estimateGas(contract call)",
        await measure(url, '{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f","to":"0x7dcd17433742f4c0ca53122ab541d0ba67fc27df","input":"0xff"}]}', n),
      ),
    ];
    for (const r of results) console.log(JSON.stringify({ bench: "rpc-latency", ...r }));
    await node.stop();
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
