/**
 * Bench: the historical proofs extension on a devnet chain of `blocks` blocks of mixed traffic
 * (a transfer to a new account, an ERC-20 transfer and a balance written and cleared per block).
 *
 * 1. In-process, on the built chain:
 *    - init: the baseline at the head, then the backward backfill to genesis (blocks/s);
 *    - forward sync of `forward` more blocks (ms per block);
 *    - the store's size on disk per block of window.
 * 2. A `basalt node --historical-proofs` on that datadir: sequential `eth_getProof` latency
 *    (one account, two storage slots) at the window's far end (block 1) against `latest`, and
 *    throughput with `concurrency` requests in flight for `seconds` each.
 *
 * Usage: node dist/bench/proofs.js [blocks=300] [forward=50] [requests=300] [seconds=3] [concurrency=8]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, createAddressFromString, createContractAddress, hexToBytes } from "@ethereumjs/util";
import { pino } from "pino";
import { Chain } from "../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { startNode } from "../src/cli/commands/node.js";
import { tableDefaults, type BasaltOptions } from "../src/config/options.js";
import { ProofsStore } from "../src/proofs/store.js";
import { ProofsSync } from "../src/proofs/sync.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";
import { keccak256 } from "../src/util/keccak.js";
import { balanceSlot, tokenInitCode, transferCalldata } from "./workload/contracts.js";

const log = pino({ level: "silent" });
const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): Uint8Array => hexToBytes(accounts[i]!.address as `0x${string}`);

function pct(xs: number[]): { n: number; p50: number; p99: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number => Number(s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!.toFixed(3));
  return { n: s.length, p50: q(50), p99: q(99), mean: Number((s.reduce((a, b) => a + b, 0) / s.length).toFixed(3)) };
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const j = (await r.json()) as { result?: unknown; error?: { message: string } };
  if (j.error !== undefined) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

/** Builds `blocks` blocks of traffic on the chain. */
async function buildChain(chain: Chain, blocks: number, from = 0): Promise<Uint8Array> {
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, log);
  const nonces = [0n, 0n, 0n].map((_, i) => chain.stateAt(chain.head.header).account(addr(i))?.nonce ?? 0n);
  const send = async (i: number, to: Uint8Array | undefined, data: Uint8Array, value: bigint): Promise<void> => {
    const common = chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n);
    const tx = createFeeMarket1559Tx({ chainId: chain.chainId, nonce: nonces[i]!++, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 500_000n, to, data, value }, { common }).sign(key(i));
    await pool.addRaw(tx.serialize());
  };
  const token = createContractAddress(createAddressFromString(bytesToHex(addr(0))), 0n).bytes;
  for (let b = from; b < from + blocks; b++) {
    if (b === 0) await send(0, undefined, tokenInitCode(10n ** 24n), 0n);
    else {
      await send(1, keccak256(Uint8Array.of(b >> 8, b & 0xff, 9)).subarray(12), new Uint8Array(0), 1n);
      await send(0, token, transferCalldata(keccak256(Uint8Array.of(b >> 8, b & 0xff, 7)).subarray(12), 5n), 0n);
      if (b % 2 === 1) await send(0, token, transferCalldata(addr(2), 50n), 0n);
      else await send(2, token, transferCalldata(addr(0), 50n), 0n);
    }
    await seq.sealOne();
  }
  return token;
}

function duBytes(dir: string): number {
  return Number(execFileSync("du", ["-sb", dir]).toString().split("\t")[0]);
}

async function main(): Promise<void> {
  const blocks = Number(process.argv[2] ?? 300);
  const forward = Number(process.argv[3] ?? 50);
  const requests = Number(process.argv[4] ?? 300);
  const seconds = Number(process.argv[5] ?? 3);
  const concurrency = Number(process.argv[6] ?? 8);
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-proofs-"));
  try {
    await Chain.init(datadir, devnetGenesis(), { archive: true });
    let chain = Chain.open(datadir, { logger: log });
    const token = await buildChain(chain, blocks);

    // 1. In-process: init (baseline + backward backfill), forward sync, size.
    const proofsDir = join(datadir, "proofs");
    const store = await ProofsStore.open(proofsDir, { chainId: chain.chainId, genesisHash: chain.genesisHash });
    const sync = new ProofsSync(chain, store, 1_000_000n, log);
    let t0 = performance.now();
    const baseline = await sync.initBaseline();
    const baselineMs = performance.now() - t0;
    t0 = performance.now();
    let back = 0;
    for (let n = await sync.backfill(100); n > 0; n = await sync.backfill(100)) back += n;
    const backfillMs = performance.now() - t0;
    await buildChain(chain, forward, blocks);
    t0 = performance.now();
    const f = await sync.forward(forward);
    const forwardMs = performance.now() - t0;
    const cf = (await store.stats()).columnFamilies;
    const entries = Object.values(cf).reduce((a, c) => a + c.estimatedKeys, 0);
    const liveBytes = Object.values(cf).reduce((a, c) => a + c.bytes, 0);
    await store.close();
    const bytes = duBytes(proofsDir);
    const window = blocks + forward + 1;
    await chain.close();

    // 2. A node with the extension: eth_getProof latency and throughput at both ends of the window.
    const opts = { ...tableDefaults(), rollup: false, datadir, network: "devnet", "http.port": 0, "authrpc.port": 0, "authrpc.jwtsecret": join(datadir, "jwt.hex"), "dev.block-time": 0, "flashblocks.interval": 0, "historical-proofs": true, "log.level": "warn" } as BasaltOptions;
    const node = await startNode(opts, log, false);
    const url = `http://127.0.0.1:${node.httpPort}`;
    chain = node.chain;
    const params = (block: string): unknown[] => [bytesToHex(token), [bytesToHex(balanceSlot(addr(0))), bytesToHex(balanceSlot(addr(2)))], block];
    for (let i = 0; i < 50; i++) await rpc(url, "eth_getProof", params("latest"));
    const latency = async (block: string): Promise<ReturnType<typeof pct>> => {
      const xs: number[] = [];
      for (let i = 0; i < requests; i++) {
        const s = performance.now();
        await rpc(url, "eth_getProof", params(block));
        xs.push(performance.now() - s);
      }
      return pct(xs);
    };
    const throughput = async (block: string): Promise<number> => {
      const end = performance.now() + seconds * 1000;
      let n = 0;
      const w = async (): Promise<void> => {
        while (performance.now() < end) {
          await rpc(url, "eth_getProof", params(block));
          n++;
        }
      };
      const s = performance.now();
      await Promise.all(Array.from({ length: concurrency }, w));
      return Math.round(n / ((performance.now() - s) / 1000));
    };
    const status = (await rpc(url, "debug_proofsSyncStatus", [])) as { earliest: number; latest: number };
    const far = "0x1";
    const result = {
      bench: "proofs",
      machine: { cpus: cpus().length, model: cpus()[0]?.model },
      chain: { blocks: blocks + forward, status },
      init: { baselineNodes: baseline.nodes, baselineMs: Math.round(baselineMs), backfillBlocks: back, backfillBlocksPerSecond: Math.round((back * 1000) / backfillMs) },
      forward: { blocks: f.forward, msPerBlock: Number((forwardMs / Math.max(1, f.forward)).toFixed(3)) },
      // On disk (`du`: with RocksDB's write-ahead log and fixed-size files), and the column families' own data (SST + memtables).
      disk: { bytes, liveBytes, entries, blocksInWindow: window, bytesPerBlock: Math.round(bytes / window), liveBytesPerBlock: Math.round(liveBytes / window) },
      getProof: {
        farEnd: { block: 1, ...(await latency(far)), rps: await throughput(far) },
        latest: { ...(await latency("latest")), rps: await throughput("latest") },
        concurrency,
      },
    };
    console.log(JSON.stringify(result));
    await node.stop();
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
