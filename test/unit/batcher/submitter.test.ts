/**
 * The batch submitter (src/batcher/submitter.ts) against a real L1: anvil (Prague, blob
 * transactions, a beacon endpoint serving blobs by EL block number), mining on demand. An
 * in-process devnet chain of mixed traffic is batched; what the batcher sent to the inbox is read
 * back the way derivation reads it — the inbox transactions from the batcher (L1Source, senders
 * recovered from signatures), each blob from anvil's beacon endpoint checked against its
 * versioned hash with KZG, frames through the Holocene channel assembler, channels read and span
 * batches derived — and must be every L2 block exactly: timestamps, L1 origins, every transaction
 * byte.
 *
 * Recovery paths on the real L1: a batcher transaction removed by `anvil_reorg` is posted again;
 * a transaction priced out by a base-fee spike is resubmitted with bumped fees; a transaction
 * dropped from the pool (`anvil_dropTransaction`) while the next nonce waits behind it (a nonce
 * gap) is resubmitted and both land; an L2 reorg of loaded blocks restarts from the safe head and
 * posts the new branch only; a safe head that stops moving while everything is confirmed makes
 * the batcher post again after the channel timeout. The tests drive rounds (`step`) and L1 blocks
 * (`evm_mine`) themselves, so nothing depends on wall-clock time.
 */
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { Counter } from "prom-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startAnvil, type AnvilNode } from "../../../bench/scenario/anvil.js";
import { batcherAddressOf, parseBatcherKey } from "../../../src/batcher/batcherKey.js";
import { BatcherError, BatcherErrorCode } from "../../../src/batcher/errors.js";
import { startBatcherFromOptions, type BatcherOptions } from "../../../src/batcher/fromOptions.js";
import { batcherResetsTotal, batcherTransactionsResubmittedTotal } from "../../../src/batcher/metrics.js";
import { BatchSubmitter, type BatchSubmitterOptions } from "../../../src/batcher/submitter.js";
import type { BatcherDataKind } from "../../../src/batcher/txData.js";
import type { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../../src/chain/devnet.js";
import { rollupConfigJson, type RollupConfig } from "../../../src/chain/op/rollupConfig.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { HttpRpcClient } from "../../../src/util/rpcClient.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { to0x } from "../../../src/util/bytes.js";
import { assemble, expectSpanIsChain, readInbox, spansOf } from "../../helpers/batcher.js";
import { openDevChain, type DevChain } from "../../helpers/devChain.js";

/** anvil's second default account: the batcher. */
const KEY = parseBatcherKey("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const BATCHER = batcherAddressOf(KEY);
const INBOX = "0xff00000000000000000000000000000000000042";
/** startAnvil's chain id. */
const L1_CHAIN_ID = 845337n;
const BLOCKS = 40;
const silent = pino({ level: "silent" });

let dev: DevChain;
/** The safe head as a test moves it (derivation's role), for batchers given `safeHead: () => safeHead`. */
let safeHead: Block | undefined;

beforeAll(async () => {
  // Frozen wall clock: the devnet sequencer then gives consecutive blocks consecutive timestamps, as span batches need.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-26T00:00:00Z"));
  dev = await openDevChain("basalt-batcher-");
  for (let i = 0; i < BLOCKS; i++) await dev.traffic.block();
}, 120_000);

afterAll(async () => {
  await dev?.close();
  vi.useRealTimers();
});

/** The rollup config of a devnet chain settling on anvil (channel timeouts as given). */
function rollupOf(chain: Chain, timeouts: { channelTimeout: bigint; channelTimeoutGranite: bigint } = { channelTimeout: 300n, channelTimeoutGranite: 50n }): RollupConfig {
  const genesis = chain.getBlockByNumber(0n)!;
  return {
    chainId: chain.chainId,
    l1ChainId: L1_CHAIN_ID,
    blockTime: 1n,
    seqWindowSize: 3_600n,
    maxSequencerDrift: 1_800n,
    ...timeouts,
    batchInboxAddress: INBOX,
    depositContractAddress: "0x00000000000000000000000000000000000000d1",
    l1SystemConfigAddress: "0x00000000000000000000000000000000000000d2",
    forkTimes: chain.op!.forkTimes,
    eip1559: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    genesis: {
      l1: { hash: "0x" + "00".repeat(32), number: 0n },
      l2: { hash: to0x(genesis.hash()), number: 0n },
      l2Time: genesis.header.timestamp,
      systemConfig: { batcherAddress: BATCHER, overhead: "0x" + "00".repeat(32), scalar: "0x" + "00".repeat(32), gasLimit: genesis.header.gasLimit },
    },
  };
}

/** An L1 and a batcher on it for `chain`. */
async function setup(chain: Chain, data: BatcherDataKind, extra: Partial<BatchSubmitterOptions> = {}, rollup = rollupOf(chain)) {
  const anvil = await startAnvil();
  const rpc = new HttpRpcClient(anvil.url);
  const batcher = new BatchSubmitter({
    chain,
    rollup,
    l1: rpc,
    key: KEY,
    data,
    maxChannelDuration: 1,
    numConfirmations: 1,
    blobsPerTx: 6,
    logger: silent,
    // The devnet sequencer marks every block safe (it has no L1); a rollup's safe head comes from derivation.
    safeHead: () => chain.getBlockByNumber(0n),
    ...extra,
  });
  await batcher.init();
  const close = async (): Promise<void> => {
    await batcher.stop();
    rpc.close();
    await anvil.stop();
  };
  return { anvil, rpc, batcher, rollup, close };
}

/** Runs `body` with a devnet chain of its own (it changes the chain) and a batcher for it (calldata unless told) on a fresh anvil. */
async function withOwnChain(prefix: string, body: (d: DevChain, env: Awaited<ReturnType<typeof setup>>) => Promise<void>, data: BatcherDataKind = "calldata", extra: Partial<BatchSubmitterOptions> = {}): Promise<void> {
  const d = await openDevChain(prefix);
  const env = await setup(d.chain, data, extra);
  try {
    await body(d, env);
  } finally {
    await env.close();
    await d.close();
  }
}

/** Runs rounds, mining an L1 block after each, until `done` (at most `max` rounds); the rounds it took. */
async function drive(batcher: BatchSubmitter, rpc: HttpRpcClient, done: () => boolean, max = 40): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await batcher.step();
    if (done()) return i;
    await rpc.call("evm_mine", []);
  }
  throw new Error(`not done after ${max} rounds: ${JSON.stringify(batcher.state, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`);
}

/** Everything up to L2 block `last` is in closed channels whose transactions are all confirmed. */
const posted = (batcher: BatchSubmitter, last: bigint) => () => {
  const s = batcher.state;
  return s.lastBatched === last && s.openBlocks === 0 && s.unconfirmedTxs === 0;
};

/** Reads the inbox back and returns the L2 block numbers its span batches carry, each checked against `chain`. */
async function readBack(env: { rpc: HttpRpcClient; anvil: AnvilNode; rollup: RollupConfig }, chain: Chain): Promise<{ covered: bigint[]; blobs: number; channels: number }> {
  const { items, blobs } = await readInbox(env.rpc, env.anvil.url, env.rollup, BATCHER);
  const { channels, dropped } = assemble(items, env.rollup);
  expect(dropped).toEqual([]);
  const block1 = chain.getBlockByNumber(1n)!.header.timestamp;
  const covered: bigint[] = [];
  for (const ch of channels) {
    for (const span of await spansOf(ch.data, env.rollup)) covered.push(...expectSpanIsChain(span, (n) => chain.getBlockByNumber(n), (ts) => ts - block1 + 1n));
  }
  return { covered, blobs, channels: channels.length };
}

const range = (from: bigint, to: bigint): bigint[] => Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));

/** A labelled counter's value now. */
async function counterValue(c: Counter<string>, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await c.get();
  return values.filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x)).reduce((a, v) => a + v.value, 0);
}

describe("batch submitter on anvil", () => {
  it("posts 40 blocks of traffic in blobs; read back from the inbox and the beacon endpoint they are every block exactly", async () => {
    let safe: Block = dev.chain.getBlockByNumber(0n)!;
    const env = await setup(dev.chain, "blobs", { safeHead: () => safe });
    try {
      const rounds = await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      const { covered, blobs } = await readBack(env, dev.chain);
      expect(covered).toEqual(range(1n, 40n));
      expect(blobs).toBeGreaterThan(0);
      // L1 requests: about one a round (the latest block, which is also the next block to read), plus a few per transaction.
      const tm = env.batcher.txManager;
      const sent = tm.requests.get("eth_sendRawTransaction")!;
      expect(sent).toBeGreaterThan(0);
      expect(tm.requestCount).toBeLessThanOrEqual(rounds + 5 * sent + 4);
      // Once the safe head covers them, the channels and their transactions are forgotten.
      safe = dev.chain.getBlockByNumber(40n)!;
      await env.batcher.step();
      expect(env.batcher.state.channels).toBe(0);
      expect(tm.tracked).toHaveLength(0);
    } finally {
      await env.close();
    }
  });

  it("posts the same blocks in calldata; flush() closes the open channel and sends it at once", async () => {
    const env = await setup(dev.chain, "calldata");
    try {
      await env.batcher.step();
      expect(env.batcher.state).toMatchObject({ nextBlock: 41n, openBlocks: 40, channels: 0 });
      // No L1 block has passed: only the flush closes the channel.
      await env.batcher.flush();
      expect(env.batcher.state).toMatchObject({ openBlocks: 0, channels: 1, unsentTxs: 0, lastBatched: 40n });
      expect(env.batcher.txManager.tracked.map((t) => t.status)).toEqual(["pending"]);
      await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      const { covered, blobs } = await readBack(env, dev.chain);
      expect(blobs).toBe(0);
      expect(covered).toEqual(range(1n, 40n));
      expect(env.batcher.txManager.requests.get("eth_estimateGas")).toBeGreaterThan(0);
    } finally {
      await env.close();
    }
  });

  it("fills several blobs per transaction and several channels with blocks of incompressible calldata", () =>
    withOwnChain(
      "basalt-batcher-multiblob-",
      async (dev2, env) => {
        // 8 blocks, each with a transaction of 60,000 random bytes: ~4 blobs of data, 3 blobs per transaction and channel.
        const pool = new TxPool(dev2.chain);
        const seq = new OpDevSequencer(dev2.chain, pool, 0, silent);
        const key = hexToBytes(devAccounts()[5]!.privateKey as `0x${string}`);
        const common = commonFromGenesis(devnetGenesis());
        for (let i = 0; i < 8; i++) {
          const tx = createFeeMarket1559Tx(
            { chainId: dev2.chain.chainId, nonce: BigInt(i), maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 5_000_000n, to: "0x00000000000000000000000000000000000000aa", data: randomBytes(60_000) },
            { common },
          ).sign(key);
          await pool.addRaw(tx.serialize());
          await seq.sealOne();
        }
        expect(dev2.chain.head.header.number).toBe(8n);
        await drive(env.batcher, env.rpc, posted(env.batcher, 8n));
        const sent = env.batcher.txManager.tracked;
        expect(sent.length).toBeGreaterThanOrEqual(2);
        expect(sent[0]!.candidate.kind === "blobs" && sent[0]!.candidate.blobs.length).toBe(3);
        const { covered, blobs, channels } = await readBack(env, dev2.chain);
        expect(channels).toBeGreaterThanOrEqual(2);
        expect(blobs).toBeGreaterThanOrEqual(4);
        expect(covered).toEqual(range(1n, 8n));
      },
      "blobs",
      { blobsPerTx: 3 },
    ));

  it("posts again what an L1 reorg removed (anvil_reorg drops the transaction)", async () => {
    const env = await setup(dev.chain, "blobs");
    try {
      await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      const included = env.batcher.txManager.tracked.map((t) => t.inclusion!.txHash);
      const resets = await counterValue(batcherResetsTotal, { reason: "l1_reorg" });
      // The block holding the batcher's transaction is replaced by one without it; anvil does not put it back in its pool.
      await env.rpc.call("anvil_reorg", [1, []]);
      expect(await env.rpc.call("eth_getTransactionReceipt", [included[0]])).toBeNull();
      await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      expect(await counterValue(batcherResetsTotal, { reason: "l1_reorg" })).toBe(resets + 1);
      const { covered } = await readBack(env, dev.chain);
      expect(covered).toEqual(range(1n, 40n));
    } finally {
      await env.close();
    }
  });

  it("starts over when the safe head goes back after an L1 reorg removed a transaction it had already forgotten", () =>
    withOwnChain("basalt-batcher-safereorg-", async (dev2, env) => {
      for (let i = 0; i < 10; i++) await dev2.traffic.block();
      await drive(env.batcher, env.rpc, posted(env.batcher, 10n));
      // Derivation makes blocks 1..10 safe: the channel is confirmed and covered, so the batcher forgets it.
      safeHead = dev2.chain.getBlockByNumber(10n)!;
      await env.batcher.step();
      expect(env.batcher.txManager.tracked).toEqual([]);
      // The L1 block holding it is reorganized away; derivation takes the safe head back to genesis.
      const [removed] = (await readInbox(env.rpc, env.anvil.url, env.rollup, BATCHER)).items;
      expect(removed).toBeDefined();
      await env.rpc.call("anvil_reorg", [1, []]);
      expect((await readInbox(env.rpc, env.anvil.url, env.rollup, BATCHER)).items).toEqual([]);
      safeHead = dev2.chain.getBlockByNumber(0n)!;
      const resets = await counterValue(batcherResetsTotal, { reason: "safe_head_reorg" });
      // New blocks: without starting over, their transaction would take the next nonce and wait behind the removed one forever.
      for (let i = 0; i < 5; i++) await dev2.traffic.block();
      await drive(env.batcher, env.rpc, posted(env.batcher, 15n));
      expect(await counterValue(batcherResetsTotal, { reason: "safe_head_reorg" })).toBe(resets + 1);
      expect(await readBack(env, dev2.chain)).toMatchObject({ channels: 1, covered: range(1n, 15n) });
    }, "calldata", { safeHead: () => safeHead }));

  it("resubmits a transaction priced out by a base-fee spike with bumped fees", async () => {
    const env = await setup(dev.chain, "calldata");
    try {
      const before = await counterValue(batcherTransactionsResubmittedTotal);
      // Load the blocks, then close the channel and send its transaction (3 gwei fee cap at a 1 gwei floor).
      await drive(env.batcher, env.rpc, () => env.batcher.txManager.tracked.length > 0);
      const first = env.batcher.txManager.tracked[0]!;
      expect(first.status).toBe("pending");
      await env.rpc.call("anvil_setNextBlockBaseFeePerGas", ["0x" + (200n * 10n ** 9n).toString(16)]);
      await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      expect(first.attempts.length).toBeGreaterThan(1);
      expect(first.attempts[1]!.fees.feeCap).toBeGreaterThan(100n * 10n ** 9n);
      expect(first.inclusion!.txHash).toBe(first.attempts[first.attempts.length - 1]!.hash);
      expect(await counterValue(batcherTransactionsResubmittedTotal)).toBeGreaterThan(before);
      expect((await readBack(env, dev.chain)).covered).toEqual(range(1n, 40n));
    } finally {
      await env.close();
    }
  });

  it("resubmits a transaction dropped from the pool while the next nonce waits behind it (a nonce gap)", () =>
    withOwnChain("basalt-batcher-gap-", async (dev2, env) => {
      for (let i = 0; i < 10; i++) await dev2.traffic.block();
      await drive(env.batcher, env.rpc, () => env.batcher.txManager.tracked.length > 0);
      const dropped = env.batcher.txManager.tracked[0]!;
      await env.rpc.call("anvil_dropTransaction", [dropped.attempts[0]!.hash]);
      // More L2 blocks: a second channel, whose transaction takes the next nonce.
      for (let i = 0; i < 5; i++) await dev2.traffic.block();
      await drive(env.batcher, env.rpc, () => env.batcher.txManager.tracked.length > 1);
      const next = env.batcher.txManager.tracked[1]!;
      expect(next.nonce).toBe(dropped.nonce + 1n);
      expect(dropped.inclusion).toBeUndefined();
      await drive(env.batcher, env.rpc, posted(env.batcher, 15n));
      expect(dropped.attempts.length).toBeGreaterThan(1);
      expect(await readBack(env, dev2.chain)).toMatchObject({ channels: 2, covered: range(1n, 15n) });
    }));

  it("starts over from the safe head after an L2 reorg of loaded blocks, and posts only the new branch", () =>
    withOwnChain("basalt-batcher-l2reorg-", async (dev2, env) => {
      for (let i = 0; i < 20; i++) await dev2.traffic.block();
      await env.batcher.step();
      expect(env.batcher.state).toMatchObject({ nextBlock: 21n, openBlocks: 20 });
      const resets = await counterValue(batcherResetsTotal, { reason: "l2_reorg" });
      // Blocks 16..20 are replaced by empty ones (another pool, another sequencer on the same chain).
      const old = dev2.chain.getBlockByNumber(18n)!.hash();
      await dev2.chain.setHead(dev2.chain.getBlockByNumber(15n)!.hash());
      const seq = new OpDevSequencer(dev2.chain, new TxPool(dev2.chain), 0, silent);
      for (let i = 0; i < 5; i++) await seq.sealOne();
      expect(bytesToHex(dev2.chain.getBlockByNumber(18n)!.hash())).not.toBe(bytesToHex(old));
      await drive(env.batcher, env.rpc, posted(env.batcher, 20n));
      expect(await counterValue(batcherResetsTotal, { reason: "l2_reorg" })).toBe(resets + 1);
      expect(await readBack(env, dev2.chain)).toMatchObject({ channels: 1, covered: range(1n, 20n) });
    }));

  it("posts again when the safe head stops moving for a channel timeout with everything confirmed", async () => {
    // A safe head past genesis at start: the safe head follows L1 here, so the stall rule is on.
    const safe = dev.chain.getBlockByNumber(1n)!;
    const rollup = rollupOf(dev.chain, { channelTimeout: 4n, channelTimeoutGranite: 4n });
    const env = await setup(dev.chain, "calldata", { safeHead: () => safe }, rollup);
    try {
      await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      const resets = await counterValue(batcherResetsTotal, { reason: "safe_head_stalled" });
      // Nothing moves the safe head: after the channel timeout (4 L1 blocks) the batcher starts over.
      await drive(env.batcher, env.rpc, () => env.batcher.state.lastBatched === 1n);
      expect(await counterValue(batcherResetsTotal, { reason: "safe_head_stalled" })).toBe(resets + 1);
      await drive(env.batcher, env.rpc, posted(env.batcher, 40n));
      const { covered, channels } = await readBack(env, dev.chain);
      expect(channels).toBe(2);
      expect(covered).toEqual([...range(2n, 40n), ...range(2n, 40n)]);
    } finally {
      await env.close();
    }
  });
});

describe("batcher from the node's options", () => {
  it("refuses a chain without a rollup config, a missing L1 or key, a key that is not the batcher's, and an L1 of another chain; starts otherwise", async () => {
    const fresh = await openDevChain("basalt-batcher-opts-");
    const dir = mkdtempSync(join(tmpdir(), "basalt-batcher-opts-"));
    const anvil = await startAnvil();
    const base: BatcherOptions = {
      batcher: true,
      "batcher.key": bytesToHex(KEY),
      "batcher.data": "blobs",
      "batcher.max-channel-duration": 1,
      "batcher.num-confirmations": 1,
      "batcher.blobs-per-tx": 6,
      "l1.rpc": anvil.url,
      "rollup.config": undefined,
    };
    const codeOf = async (opts: BatcherOptions, chain: Chain = fresh.chain): Promise<string> => {
      try {
        const b = await startBatcherFromOptions(opts, chain, silent);
        await b?.stop();
      } catch (e) {
        expect(e).toBeInstanceOf(BatcherError);
        return (e as BatcherError).code;
      }
      return "started";
    };
    try {
      expect(await startBatcherFromOptions({ ...base, batcher: false }, fresh.chain, silent)).toBeUndefined();
      expect(await codeOf(base)).toBe(BatcherErrorCode.NO_ROLLUP_CONFIG);
      const file = join(dir, "rollup.json");
      writeFileSync(file, JSON.stringify(rollupConfigJson(rollupOf(fresh.chain))));
      const withFile = { ...base, "rollup.config": file };
      expect(await codeOf({ ...withFile, "l1.rpc": undefined })).toBe(BatcherErrorCode.L1_MISSING);
      expect(await codeOf({ ...withFile, "batcher.key": undefined })).toBe(BatcherErrorCode.KEY_MISSING);
      expect(await codeOf({ ...withFile, "batcher.key": "0x1234" })).toBe(BatcherErrorCode.KEY_INVALID);
      // anvil's first account is not the rollup's batcher.
      expect(await codeOf({ ...withFile, "batcher.key": "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" })).toBe(BatcherErrorCode.KEY_NOT_BATCHER);
      expect(await codeOf({ ...withFile, "batcher.max-channel-duration": 50 })).toBe(BatcherErrorCode.INVALID_OPTION);
      const otherL1 = join(dir, "other-l1.json");
      writeFileSync(otherL1, JSON.stringify(rollupConfigJson({ ...rollupOf(fresh.chain), l1ChainId: 1n })));
      expect(await codeOf({ ...base, "rollup.config": otherL1 })).toBe(BatcherErrorCode.L1_CHAIN_MISMATCH);
      // At genesis the current batcher is the rollup config's genesis batcher: the key's.
      expect(await codeOf(withFile)).toBe("started");
      // Past genesis, the devnet sequencer's L1-info deposits name its own batcher address: the key is refused.
      await fresh.traffic.block();
      expect(await codeOf(withFile)).toBe(BatcherErrorCode.KEY_NOT_BATCHER);
    } finally {
      await anvil.stop();
      await fresh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
