/**
 * Bench: block import throughput (execution + verification of every root + commit), in Mgas/s
 * of wall time, Mgas per CPU-second ("per core": the process's CPU time over the run, the
 * execution pool's threads included, so a figure spread over two cores is not counted twice)
 * and transactions/s, on two workloads:
 * - `erc20`: 100 % ERC-20 transfers (the import target of issue 12: ≥ 150 Mgas/s per core);
 * - `swaps`: 100 % swaps on constant-product pools (storage-heavy: reserves, two token
 *   balances and allowances per swap; the figure the issue asks to state).
 *
 * A chain of each workload's blocks (`buildWorkload`, 200 transactions per block) is sealed
 * once by the devnet sequencer in-process; its blocks are then imported into fresh
 * datadirs through `Chain.importBlock`, the path of `basalt import`, follow mode and
 * engine_newPayload:
 * - `inline`: senders recovered by execution on the importing thread;
 * - `pool`: senders recovered on the execution pool, the next blocks' ahead of time
 *   (`SenderRecovery.prefetch`, as `basalt import` does).
 * Each mode runs twice; the best run is reported (the first one warms code caches).
 *
 * Usage: node dist/bench/importThroughput.js [blocks=20] [txsPerBlock=200] [workloads=erc20,swaps]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import type { Block } from "@ethereumjs/block";
import { pino } from "pino";
import { decodeBlockFromRlp } from "../src/chain/blockCodec.js";
import { Chain } from "../src/blockchain/chain.js";
import { devnetGenesis } from "../src/chain/devnet.js";
import { DEFAULT_EXECUTION_THREADS } from "../src/config/constants.js";
import { ExecutionPool } from "../src/execution/pool/executionPool.js";
import { SenderRecovery } from "../src/execution/senderRecovery.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";
import { buildWorkload } from "./workload/workload.js";

/** Blocks of lookahead for sender recovery (as `basalt import` uses). */
const LOOKAHEAD = 4;
const silent = pino({ level: "silent" });

/** The workloads this bench imports, by name. */
const MIXES = {
  erc20: { transfers: 0, erc20: 1, swaps: 0 },
  swaps: { transfers: 0, erc20: 0, swaps: 1 },
} as const;
type WorkloadName = keyof typeof MIXES;

async function sealChain(dir: string, blocks: number, perBlock: number, workload: WorkloadName): Promise<{ rlps: Uint8Array[]; measured: number }> {
  await Chain.init(dir, devnetGenesis(), { archive: true });
  const chain = Chain.open(dir, { archive: true, logger: silent });
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, silent);
  const w = buildWorkload({ chainId: chain.chainId, blocks, txsPerBlock: perBlock, mix: MIXES[workload] });
  for (const round of w.setup) {
    for (const raw of round) await pool.addRaw(raw);
    await seq.sealOne();
  }
  const first = chain.head.header.number + 1n;
  for (const round of w.blocks) {
    for (const raw of round) await pool.addRaw(raw);
    await seq.sealOne();
  }
  const rlps: Uint8Array[] = [];
  for (let n = 1n; n <= chain.head.header.number; n++) rlps.push(chain.getBlockByNumber(n)!.serialize());
  await chain.close();
  return { rlps, measured: Number(first) - 1 };
}

interface Run {
  seconds: number;
  /** CPU seconds of the process (every thread) over the timed import. */
  cpuSeconds: number;
  gas: bigint;
  txs: number;
}

async function importAll(rlps: Uint8Array[], skip: number, pool: ExecutionPool | undefined): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "basalt-bench-import-"));
  try {
    await Chain.init(dir, devnetGenesis(), { archive: true });
    const chain = Chain.open(dir, { archive: true, logger: silent });
    const recovery = pool === undefined ? undefined : new SenderRecovery(pool);
    chain.useSenderRecovery(recovery);
    // The setup blocks (deploys, funding) are imported untimed.
    for (let i = 0; i < skip; i++) await chain.importBlock(decodeBlockFromRlp(chain, rlps[i]!));
    const blocks: Block[] = rlps.slice(skip).map((r) => decodeBlockFromRlp(chain, r));
    let gas = 0n;
    let txs = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < blocks.length; i++) {
      if (recovery !== undefined) for (let j = i + 1; j <= i + LOOKAHEAD && j < blocks.length; j++) void recovery.prefetch(blocks[j]!);
      const ex = await chain.importBlock(blocks[i]!);
      gas += ex.gasUsed;
      txs += blocks[i]!.transactions.length;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await chain.close();
    return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, gas, txs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const blocks = Number(process.argv[2] ?? 20);
  const perBlock = Number(process.argv[3] ?? 200);
  const workloads = (process.argv[4] ?? "erc20,swaps").split(",") as WorkloadName[];
  for (const w of workloads) if (!(w in MIXES)) throw new Error(`unknown workload ${w}: expected one of ${Object.keys(MIXES).join(", ")}`);
  const workerDir = mkdtempSync(join(tmpdir(), "basalt-bench-pool-"));
  await Chain.init(workerDir, devnetGenesis(), { archive: true });
  const pool = new ExecutionPool({
    threads: DEFAULT_EXECUTION_THREADS,
    maxQueue: 1024,
    timeoutMs: 0,
    workerHeapMb: 1024,
    worker: { datadir: workerDir, archive: true, historyBlocks: 128, logLevel: "silent", logFormat: "json" },
    logger: silent,
  });
  await pool.start();
  const rows: string[] = [];
  try {
    for (const workload of workloads) {
      const src = mkdtempSync(join(tmpdir(), "basalt-bench-seal-"));
      try {
        const { rlps, measured } = await sealChain(src, blocks, perBlock, workload);
        for (const mode of ["inline", "pool"] as const) {
          let best: Run | undefined;
          for (let r = 0; r < 2; r++) {
            const run = await importAll(rlps, measured, mode === "pool" ? pool : undefined);
            if (best === undefined || run.seconds < best.seconds) best = run;
          }
          const b = best!;
          const mgas = Number(b.gas) / 1e6;
          rows.push(
            `| ${workload} | ${mode} | ${rlps.length - measured} | ${b.txs} | ${mgas.toFixed(1)} | ${b.seconds.toFixed(2)} | ${b.cpuSeconds.toFixed(2)} | ${(mgas / b.seconds).toFixed(1)} | ${(mgas / b.cpuSeconds).toFixed(1)} | ${(b.txs / b.seconds).toFixed(0)} |`,
          );
        }
      } finally {
        rmSync(src, { recursive: true, force: true });
      }
    }
  } finally {
    await pool.close();
    rmSync(workerDir, { recursive: true, force: true });
  }
  console.log(`Block import (${perBlock} txs/block), execution + every root verified + commit; best of 2 runs`);
  console.log(`machine: ${cpus()[0]?.model ?? "?"} × ${availableParallelism()}, node ${process.version}, pool threads ${DEFAULT_EXECUTION_THREADS}, EVM ${process.env.BASALT_EVM ?? "fast"}`);
  console.log("| workload | senders | blocks | txs | Mgas | seconds | CPU s | Mgas/s | Mgas per CPU-s | tx/s |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(r);
}

await main();
