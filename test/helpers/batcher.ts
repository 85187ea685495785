/**
 * Helpers of the batcher tests: reading back what a batcher posted the way derivation reads it —
 * batcher data (calldata, or blobs from anvil's beacon endpoint checked against their versioned
 * hashes) parsed into frames, assembled into channels (Holocene's assembler), read and derived
 * into span batches — and comparing those with the L2 chain, block by block.
 */
import type { Block } from "@ethereumjs/block";
import { bytesToHex, equalsBytes, hexToBytes } from "@ethereumjs/util";
import { expect } from "vitest";
import { envelopeOf } from "../../src/chain/envelope.js";
import { decodeL1InfoCalldata } from "../../src/chain/op/l1InfoTx.js";
import type { RollupConfig } from "../../src/chain/op/rollupConfig.js";
import type { L1BlockRef } from "../../src/derivation/batchValidity.js";
import { decodeBlob } from "../../src/derivation/blobCodec.js";
import { readChannel } from "../../src/derivation/channel.js";
import { ChannelAssembler, type FrameDrop, type ReadyChannel } from "../../src/derivation/channelAssembler.js";
import { parseBatcherData } from "../../src/derivation/frame.js";
import { verifyBlobAgainstVersionedHash } from "../../src/derivation/kzg.js";
import { L1Source } from "../../src/derivation/l1Source.js";
import { deriveSpanBatch, type SpanBatch, type SpanBatchRollupConfig } from "../../src/derivation/spanBatch.js";
import type { JsonRpcClient } from "../../src/util/rpcClient.js";

/** One batcher-data item and the L1 block it was read from. */
export interface BatcherItem {
  data: Uint8Array;
  l1: L1BlockRef;
}

/** Frames of `items` through Holocene's channel assembler: the complete channels and what was dropped. */
export function assemble(items: readonly BatcherItem[], rollup: Pick<RollupConfig, "channelTimeout" | "channelTimeoutGranite" | "forkTimes">): { channels: ReadyChannel[]; dropped: FrameDrop[] } {
  const assembler = new ChannelAssembler(rollup);
  const channels: ReadyChannel[] = [];
  const dropped: FrameDrop[] = [];
  for (const item of items) {
    const parsed = parseBatcherData(item.data);
    expect(parsed.status).toBe("frames");
    if (parsed.status !== "frames") continue;
    for (const f of parsed.frames) {
      const step = assembler.add(f, item.l1);
      dropped.push(...step.dropped);
      if (step.ready !== undefined) channels.push(step.ready);
    }
  }
  return { channels, dropped };
}

/** The span batches of a channel, derived (a channel that does not read cleanly fails the test). */
export async function spansOf(channel: Uint8Array, rollup: SpanBatchRollupConfig): Promise<SpanBatch[]> {
  const read = await readChannel(channel, { fjord: true });
  expect(read.error).toBeUndefined();
  expect(read.compression).toBe("brotli");
  return read.batches.map((b) => {
    expect(b.type).toBe("span");
    return deriveSpanBatch(b.batch as Parameters<typeof deriveSpanBatch>[0], rollup);
  });
}

/**
 * Every batcher-data item `batcher` sent to the inbox, in L1 order, read from anvil: calldata as
 * it is; each blob from anvil's beacon endpoint (`/eth/v1/beacon/blobs/{block number}`, blobs in
 * the block's order), checked against its versioned hash with KZG and decoded. `blobs` counts them.
 */
export async function readInbox(rpc: JsonRpcClient, anvilUrl: string, rollup: RollupConfig, batcher: string): Promise<{ items: BatcherItem[]; blobs: number }> {
  const src = new L1Source(rpc, { l1ChainId: rollup.l1ChainId, batchInbox: rollup.batchInboxAddress });
  const head = BigInt(await rpc.call<string>("eth_blockNumber", []));
  const items: BatcherItem[] = [];
  let blobs = 0;
  for (let n = 1n; n <= head; n++) {
    const block = (await src.blockByNumber(n))!;
    let beacon: string[] | undefined;
    for (const tx of block.inboxTxs) {
      if (bytesToHex(tx.from) !== batcher.toLowerCase()) continue;
      const l1 = { number: block.info.number, hash: block.info.hash, timestamp: block.info.timestamp };
      if (tx.data.kind === "calldata") {
        items.push({ data: tx.data.data, l1 });
        continue;
      }
      if (beacon === undefined) {
        const res = await fetch(`${anvilUrl}/eth/v1/beacon/blobs/${n}`);
        expect(res.status).toBe(200);
        beacon = ((await res.json()) as { data: string[] }).data;
      }
      for (const [i, hash] of tx.data.versionedHashes.entries()) {
        const blob = hexToBytes(beacon[tx.data.firstBlobIndex + i] as `0x${string}`);
        expect(await verifyBlobAgainstVersionedHash(blob, hash)).toBe(true);
        items.push({ data: decodeBlob(blob), l1 });
        blobs++;
      }
    }
  }
  return { items, blobs };
}

/**
 * Checks that `span` carries exactly the canonical blocks it starts at (`numberAt` maps a
 * timestamp to its block number): parent check, every block's timestamp, L1 origin and
 * non-deposit transactions byte for byte, and the last origin check. Returns the block numbers
 * it covers.
 */
export function expectSpanIsChain(span: SpanBatch, blockAt: (n: bigint) => Block | undefined, numberAt: (timestamp: bigint) => bigint): bigint[] {
  const first = numberAt(span.blocks[0]!.timestamp);
  const parent = blockAt(first - 1n)!;
  expect(bytesToHex(span.parentCheck)).toBe(bytesToHex(parent.hash().subarray(0, 20)));
  const covered: bigint[] = [];
  span.blocks.forEach((el, i) => {
    const block = blockAt(first + BigInt(i));
    expect(block, `block ${first + BigInt(i)}`).toBeDefined();
    const info = decodeL1InfoCalldata(block!.transactions[0]!.data).values;
    expect(el.timestamp).toBe(block!.header.timestamp);
    expect(el.epochNum).toBe(info.number);
    const txs = block!.transactions.map((t) => envelopeOf(t)).filter((e) => e[0] !== 0x7e);
    expect(el.transactions.map(bytesToHex)).toEqual(txs.map(bytesToHex));
    if (i === span.blocks.length - 1) expect(equalsBytes(span.l1OriginCheck, info.hash.subarray(0, 20))).toBe(true);
    covered.push(first + BigInt(i));
  });
  return covered;
}
