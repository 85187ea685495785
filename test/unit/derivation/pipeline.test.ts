/**
 * The derivation pipeline and the engine side together, in process, on a real devnet chain: the
 * devnet's L2 blocks name simulated L1 blocks (opDevSequencer.ts), which a synthetic L1 serves
 * (derivation.md §4.4's harness) together with inclusion blocks carrying batcher data. Derived
 * attributes are applied through the engine (`engine.ts`) to the chain itself: matching unsafe
 * blocks become safe; an altered batch replaces the unsafe chain from its block; a sender other
 * than the batcher is ignored; an L1 reorg that removes the inclusion block takes the safe head back.
 */
import type { Block } from "@ethereumjs/block";
import { bytesToHex, concatBytes, equalsBytes, utf8ToBytes } from "@ethereumjs/util";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { envelopeOf } from "../../../src/chain/envelope.js";
import { decodeL1InfoCalldata } from "../../../src/chain/op/l1InfoTx.js";
import type { RollupConfig } from "../../../src/chain/op/rollupConfig.js";
import { DEVNET_BATCHER_ADDRESS, DEVNET_L1_BASE_FEE_WEI } from "../../../src/sequencer/constants.js";
import { DEVNET_L1_CHAIN_ID } from "../../../src/chain/constants.js";
import { encodeChannel } from "../../../src/derivation/channel.js";
import { applyDerivedAttributes } from "../../../src/derivation/engine.js";
import { channelToFrames, encodeBatcherData } from "../../../src/derivation/frame.js";
import type { L1Block, L1BlockInfo, L1ReceiptLogs } from "../../../src/derivation/l1Source.js";
import { l2RefOf } from "../../../src/derivation/l2Refs.js";
import { DerivationPipeline, type PipelineL1, type PipelineL2 } from "../../../src/derivation/pipeline.js";
import { spanBatchFromBlocks } from "../../../src/derivation/spanBatch.js";
import { devnetSystemConfigScalar } from "../../../src/rollup/rollupConfig.js";
import { devL1BlockHash } from "../../../src/sequencer/opDevSequencer.js";
import { fromHex, to0x } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { openDevChain, type DevChain } from "../../helpers/devChain.js";

const BLOCKS = 30;
const INBOX = "0xff00000000000000000000000000000000845337";
const OTHER_SENDER = fromHex("0x00000000000000000000000000000000000bad00");

/** A synthetic L1: blocks by number (replaceable, for reorgs), no receipts (no deposits or config updates). */
class SyntheticL1 implements PipelineL1 {
  readonly blocks = new Map<bigint, L1Block>();
  requests = 0;
  async blockByNumber(n: bigint | "latest" | "finalized"): Promise<L1Block | undefined> {
    this.requests++;
    if (n === "latest" || n === "finalized") return this.blocks.get(BigInt(Math.max(...[...this.blocks.keys()].map(Number))));
    return this.blocks.get(n);
  }
  async receipts(): Promise<L1ReceiptLogs[]> {
    this.requests++;
    return [];
  }
}

function simulated(n: bigint, timestamp: bigint, hash = devL1BlockHash(n), parentHash = n === 0n ? new Uint8Array(32) : devL1BlockHash(n - 1n)): L1BlockInfo {
  return {
    number: n,
    hash,
    parentHash,
    timestamp,
    baseFeePerGas: DEVNET_L1_BASE_FEE_WEI,
    mixHash: keccak256(hash),
    parentBeaconBlockRoot: keccak256(concatBytes(utf8ToBytes("basalt devnet beacon"), hash)),
    // An empty bloom: no receipts are needed.
    logsBloom: new Uint8Array(256),
  };
}

function originOf(b: Block): { number: bigint; timestamp: bigint; sequenceNumber: bigint } {
  const { values } = decodeL1InfoCalldata(b.transactions[0]!.data);
  return { number: values.number, timestamp: values.timestamp, sequenceNumber: values.sequenceNumber };
}

describe("derivation pipeline with the engine, on a devnet chain", () => {
  let dev: DevChain;
  let blocks: Block[];
  let cfg: RollupConfig;
  let l1: SyntheticL1;
  let lastEpoch: bigint;

  beforeEach(async () => {
    // Frozen wall clock: the sequencer gives block k the timestamp of block 1 + (k − 1), a fixed 1 s block time.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T00:00:00Z"));
    dev = await openDevChain("basalt-pipeline-");
    for (let i = 0; i < BLOCKS; i++) await dev.traffic.block();
    const chain = dev.chain;
    blocks = Array.from({ length: BLOCKS + 1 }, (_, n) => chain.getBlockByNumber(BigInt(n))!);
    cfg = {
      chainId: chain.chainId,
      l1ChainId: DEVNET_L1_CHAIN_ID,
      blockTime: 1n,
      seqWindowSize: 3_600n,
      maxSequencerDrift: 1_800n,
      channelTimeout: 300n,
      channelTimeoutGranite: 50n,
      batchInboxAddress: INBOX,
      depositContractAddress: "0x" + "11".repeat(20),
      l1SystemConfigAddress: "0x" + "22".repeat(20),
      forkTimes: chain.op!.forkTimes,
      eip1559: { eip1559Elasticity: chain.op!.eip1559Elasticity, eip1559Denominator: chain.op!.eip1559Denominator, eip1559DenominatorCanyon: chain.op!.eip1559DenominatorCanyon },
      genesis: {
        l1: { hash: bytesToHex(devL1BlockHash(0n)), number: 0n },
        l2: { hash: bytesToHex(blocks[0]!.hash()), number: 0n },
        l2Time: blocks[0]!.header.timestamp,
        systemConfig: { batcherAddress: DEVNET_BATCHER_ADDRESS, overhead: "0x" + "00".repeat(32), scalar: devnetSystemConfigScalar(), gasLimit: blocks[0]!.header.gasLimit },
      },
    };
    // The L1 the devnet's blocks name: block 0 at the genesis time, then each origin at its timestamp.
    l1 = new SyntheticL1();
    l1.blocks.set(0n, { info: simulated(0n, blocks[0]!.header.timestamp), inboxTxs: [] });
    for (const b of blocks.slice(1)) {
      const o = originOf(b);
      if (!l1.blocks.has(o.number)) l1.blocks.set(o.number, { info: simulated(o.number, o.timestamp), inboxTxs: [] });
    }
    lastEpoch = originOf(blocks[BLOCKS]!).number;
    for (let n = 0n; n <= lastEpoch; n++) expect(l1.blocks.has(n)).toBe(true);
    // Nothing after block 1 is safe yet (block 1's time is not genesis + 1 s: the chain is derived from there).
    await chain.setHead(chain.headHash, blocks[1]!.hash(), blocks[1]!.hash());
  });

  afterEach(async () => {
    await dev.close();
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  /** Blocks from..to (inclusive) as a brotli span-batch channel, split into frames of batcher data. */
  const batcherData = async (from: number, to: number, alter?: (els: { epochNum: bigint; timestamp: bigint; transactions: Uint8Array[] }[]) => void): Promise<Uint8Array[]> => {
    const els = blocks.slice(from, to + 1).map((b) => ({ epochNum: originOf(b).number, timestamp: b.header.timestamp, transactions: b.transactions.map((t) => envelopeOf(t)).filter((e) => e[0] !== 0x7e) }));
    alter?.(els);
    const last = originOf(blocks[to]!).number;
    const ch = await encodeChannel([{ type: "span", batch: spanBatchFromBlocks(els, cfg, { parentHash: blocks[from - 1]!.hash(), lastEpochHash: devL1BlockHash(last), firstBlockStartsEpoch: originOf(blocks[from]!).sequenceNumber === 0n }) }], { compression: "brotli" });
    return channelToFrames(new Uint8Array(16).fill(from), ch, 3_000).map((f) => encodeBatcherData([f]));
  };

  /** Adds L1 block `n` (after the last one) carrying `data` from `from`, one transaction each. */
  const include = (n: bigint, data: Uint8Array[], from = fromHex(DEVNET_BATCHER_ADDRESS), salt = ""): void => {
    const parent = l1.blocks.get(n - 1n)!.info;
    const hash = salt === "" ? devL1BlockHash(n) : keccak256(utf8ToBytes(`reorg ${salt} ${n}`));
    l1.blocks.set(n, {
      info: simulated(n, parent.timestamp + 12n, hash, parent.hash),
      inboxTxs: data.map((d, txIndex) => ({ txIndex, from, type: 2, data: { kind: "calldata" as const, txIndex, data: d } })),
    });
  };

  const l2View = (): PipelineL2 => ({
    safeBlock: () => dev.chain.pointer("safe") ?? dev.chain.getBlockByNumber(0n)!,
    getBlockByNumber: (n) => dev.chain.getBlockByNumber(n),
    getBlockByHash: (h) => dev.chain.getBlockByHash(h),
  });

  /** Runs the pipeline until idle, applying every attributes step; returns the applied results. */
  const derive = async (p: DerivationPipeline): Promise<string[]> => {
    const results: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const step = await p.step();
      if (step.kind === "idle") return results;
      if (step.kind === "reset") {
        results.push("reset");
        return results;
      }
      if (step.kind !== "attributes") continue;
      const applied = await applyDerivedAttributes(dev.chain, step.built.attributes, step.parent.hash);
      results.push(applied.result);
      const safe = dev.chain.getBlockByHash(applied.safeHash!)!;
      p.onSafeHead(l2RefOf(safe, cfg), step.systemConfig, step.derivedFrom, applied.result === "depositsOnly");
    }
    throw new Error("the pipeline never went idle");
  };

  it("reads the batcher's frames from L1 and makes every unsafe block safe (consolidation); other senders are ignored", async () => {
    const data = await batcherData(2, BLOCKS);
    expect(data.length).toBeGreaterThan(1);
    // The same frames from another sender first: ignored. Then the batcher's.
    include(lastEpoch + 1n, data, OTHER_SENDER);
    include(lastEpoch + 2n, data);
    let unauthorized = 0;
    const p = new DerivationPipeline(cfg, l1, undefined, l2View(), { retrieved: (_l1, d) => (unauthorized += d.unauthorized) });
    const reset = await p.reset();
    expect(reset.safe.number).toBe(1n);
    expect(reset.rewound).toBe(false);
    const results = await derive(p);
    expect(results).toEqual(Array(BLOCKS - 1).fill("consolidated"));
    expect(unauthorized).toBe(data.length);
    expect(equalsBytes(dev.chain.pointer("safe")!.hash(), blocks[BLOCKS]!.hash())).toBe(true);
    expect(p.derivedFromOf(BigInt(BLOCKS))?.number).toBe(lastEpoch + 2n);
    // Only blocks with logs need receipts: none here.
    expect(p.currentL1?.number).toBe(lastEpoch + 2n);
  });

  it("replaces the unsafe chain from the first block a batch disagrees with", async () => {
    const k = 10;
    const original = blocks[k]!;
    expect(original.transactions.length).toBeGreaterThan(1);
    // The batcher posts block k without its last user transaction; later blocks no longer follow (dropped).
    include(lastEpoch + 1n, await batcherData(2, BLOCKS, (els) => void els[k - 2]!.transactions.pop()));
    const p = new DerivationPipeline(cfg, l1, undefined, l2View());
    await p.reset();
    const results = await derive(p);
    expect(results.slice(0, k - 2)).toEqual(Array(k - 2).fill("consolidated"));
    expect(results[k - 2]).toBe("replaced");
    // The unsafe blocks after it are gone with the reorganization: the next ones are built on the
    // derived block k until a transaction of the altered sender no longer applies (its nonce now has
    // a gap): that block is deposits-only and the rest of the channel is dropped (Holocene).
    const last = results.length - 1;
    expect(results[last]).toBe("depositsOnly");
    expect(results.slice(k - 1, last).every((r) => r === "built")).toBe(true);
    const derivedK = dev.chain.getBlockByNumber(BigInt(k))!;
    expect(equalsBytes(derivedK.hash(), original.hash())).toBe(false);
    expect(derivedK.transactions.length).toBe(original.transactions.length - 1);
    const head = dev.chain.head;
    expect(head.header.number).toBe(BigInt(last + 2));
    expect(head.transactions.every((t) => (t.type as number) === 0x7e)).toBe(true);
    expect(equalsBytes(dev.chain.pointer("safe")!.hash(), head.hash())).toBe(true);
  });

  it("refuses to start before Holocene (its rules are the only ones implemented), naming the L1 block and the fork time", async () => {
    const later = { ...cfg, forkTimes: { ...cfg.forkTimes, holocene: blocks[BLOCKS]!.header.timestamp + 1_000n } };
    const p = new DerivationPipeline(later, l1, undefined, l2View());
    await expect(p.reset()).rejects.toMatchObject({ code: "DERIVATION_PRE_HOLOCENE" });
    await expect(p.reset()).rejects.toThrow(/before Holocene/);
  });

  it("takes the safe head back when an L1 reorg removes the block the batches were in, and derives again", async () => {
    const data = await batcherData(2, BLOCKS);
    include(lastEpoch + 1n, data);
    const p = new DerivationPipeline(cfg, l1, undefined, l2View());
    await p.reset();
    expect((await derive(p)).length).toBe(BLOCKS - 1);
    // The inclusion block is replaced by an empty one on another branch, and the L1 moves on.
    include(lastEpoch + 1n, [], undefined, "b");
    include(lastEpoch + 2n, [], undefined, "b");
    const after = await derive(p);
    expect(after).toEqual(["reset"]);
    const r = await p.reset();
    expect(r.rewound).toBe(true);
    expect(r.safe.number).toBe(1n);
    // What the driver asks of the engine on a rewind.
    await dev.chain.setHead(dev.chain.headHash, r.safe.hash);
    // The batches land again (a later block of the new branch): everything is safe once more.
    include(lastEpoch + 3n, data);
    expect(await derive(p)).toEqual(Array(BLOCKS - 1).fill("consolidated"));
    expect(p.derivedFromOf(BigInt(BLOCKS))?.number).toBe(lastEpoch + 3n);
    expect(to0x(p.derivedFromOf(BigInt(BLOCKS))!.hash)).toBe(to0x(l1.blocks.get(lastEpoch + 3n)!.info.hash));
  });
});
