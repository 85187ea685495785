/**
 * Bench: the flashblocks worker's own share, in-process and without sockets or threads — frames
 * of sealed devnet blocks go through `FlashblocksIngest` (decode, sequence, execute, render,
 * publish into a shared buffer) and each frame's time from `onFrame` to drained is recorded,
 * split into index 0 (a new base state) and the other frames. Meant for profiling
 * (`node --cpu-prof dist/bench/flashblocksApply.js`): one thread does all the work.
 *
 * `exact=1` replays frames whose diffs carry the values of the partial block at each index (as
 * a real builder publishes); the default carries the sealed block's values in every frame, as
 * `bench/flashblocks.ts` does (see `flashblocks/replay.ts`).
 *
 * Usage: node dist/bench/flashblocksApply.js [blocks=20] [txsPerFrame=5] [framesPerBlock=10] [exact=0]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { pino } from "pino";
import { Chain } from "../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { opForkAt } from "../src/chain/op/forks.js";
import { encodeFlashblock } from "../src/flashblocks/codec.js";
import { FlashblocksIngest } from "../src/flashblocks/ingest.js";
import { IngestStats } from "../src/flashblocks/ingestStats.js";
import { allocatePendingBuffer, PendingBufferWriter } from "../src/flashblocks/pendingBuffer.js";
import { decodePendingSnapshot, pendingHead } from "../src/flashblocks/pendingSnapshot.js";
import { flashblocksOfBlock } from "../src/flashblocks/replay.js";
import { nowMs } from "../src/flashblocks/streamClient.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";

const WARMUP_BLOCKS = 3;

function pct(xs: number[]): Record<string, number> {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number => Number((s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0).toFixed(3));
  return { n: s.length, p50: q(50), p90: q(90), p99: q(99), max: q(100) };
}

async function main(): Promise<void> {
  const blocks = Number(process.argv[2] ?? 20);
  const perFrame = Number(process.argv[3] ?? 5);
  const framesPerBlock = Number(process.argv[4] ?? 10);
  const exact = process.argv[5] === "1";
  const dirs = [mkdtempSync(join(tmpdir(), "basalt-bench-fba-")), mkdtempSync(join(tmpdir(), "basalt-bench-fba-"))];
  const log = pino({ level: process.env.BENCH_LOG ?? "silent" });
  try {
    await Chain.init(dirs[0]!, devnetGenesis(), { archive: true });
    await Chain.init(dirs[1]!, devnetGenesis(), { archive: true });
    const producer = Chain.open(dirs[0]!, { logger: log });
    const pool = new TxPool(producer);
    const seq = new OpDevSequencer(producer, pool, 0, log);
    const accounts = devAccounts();
    const nonces = accounts.map(() => 0n);
    const sealed: { block: Block; receipts: ReturnType<Chain["getReceipts"]> }[] = [];
    for (let b = 0; b < blocks; b++) {
      for (let i = 0; i < perFrame * framesPerBlock; i++) {
        const from = i % accounts.length;
        const tx = createFeeMarket1559Tx(
          { chainId: producer.chainId, nonce: nonces[from]!++, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000n, gasLimit: 21_000n, to: hexToBytes(accounts[(from + 1) % accounts.length]!.address as `0x${string}`), value: 1n },
          { common: producer.commonAt(producer.head.header.number + 1n, producer.head.header.timestamp + 1n) },
        ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
        await pool.addRaw(tx.serialize());
      }
      await seq.sealOne();
      sealed.push({ block: producer.head, receipts: producer.getReceipts(producer.head.hash()) });
    }
    await producer.close();

    const follower = Chain.open(dirs[1]!, { logger: log });
    const sab = allocatePendingBuffer(64 * 1024 * 1024);
    const writer = new PendingBufferWriter(sab);
    const ingest = new FlashblocksIngest(follower, writer, new IngestStats(), log);
    // BENCH_PROFILE=file.cpuprofile: a CPU profile of the ingestion phase only (not the producer's).
    const profile = process.env.BENCH_PROFILE;
    const session = profile === undefined ? undefined : new Session();
    if (session !== undefined) {
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 100 });
      await session.post("Profiler.start");
    }
    // CPU time of the frames (user + system, µs): steadier than wall time on a shared machine.
    let cpuUs = 0;
    let snapshotCost: Record<string, number> = {};
    const first: number[] = [];
    const rest: number[] = [];
    for (const [bi, { block, receipts }] of sealed.entries()) {
      const frames = flashblocksOfBlock(block, perFrame, undefined, exact ? { receipts: receipts!, fork: opForkAt(follower.op!, block.header.timestamp) } : undefined);
      for (const fb of frames) {
        const data = encodeFlashblock(fb, { compress: true });
        const c0 = process.cpuUsage();
        const t0 = nowMs();
        ingest.onFrame(data, t0);
        await ingest.drained();
        if (bi >= WARMUP_BLOCKS) {
          (fb.index === 0 ? first : rest).push(nowMs() - t0);
          const c = process.cpuUsage(c0);
          cpuUs += c.user + c.system;
        }
      }
      if (bi === sealed.length - 1) {
        // The full last block's snapshot as published (control block: word 1 the active slot,
        // word 2 + slot its length; see pendingBuffer.ts): its size and the RPC thread's decode of it.
        const ctl = new Int32Array(sab, 0, 16);
        const slot = ctl[1]!;
        const slotBytes = (sab.byteLength - 64) / 2;
        const bytes = new Uint8Array(sab, 64 + slot * slotBytes, ctl[2 + slot]!).slice();
        const snap = decodePendingSnapshot(bytes)!;
        if (process.env.BENCH_DEBUG === "1") {
          const h = pendingHead(snap);
          console.error({ txs: h.txs.length, txJson: h.txs.reduce((n, t) => n + t.txJson.length, 0), receiptJson: h.txs.reduce((n, t) => n + t.receiptJson.length, 0), blockJsonFull: h.blockJsonFull.length, accounts: snap.state.accounts.length, storage: snap.state.storage.length });
        }
        const time = (f: () => unknown): number => {
          const t0 = nowMs();
          for (let i = 0; i < 200; i++) f();
          return Number(((nowMs() - t0) / 200).toFixed(3));
        };
        snapshotCost = { bytes: bytes.length, decodeMs: time(() => decodePendingSnapshot(bytes)) };
      }
      await follower.insertBlock(block);
      await follower.setHead(block.hash());
      ingest.onCanonical();
      await ingest.drained();
    }
    if (session !== undefined) {
      const { profile: p } = await session.post("Profiler.stop");
      writeFileSync(profile!, JSON.stringify(p));
      session.disconnect();
    }
    console.log(JSON.stringify({ bench: "flashblocksApply", exact, perFrame, index0Ms: pct(first), otherMs: pct(rest), allMs: pct([...first, ...rest]), cpuMsPerFrame: Number((cpuUs / 1000 / (first.length + rest.length)).toFixed(3)), lastSnapshot: snapshotCost }));
    await follower.close();
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
