/**
 * Incremental OP block builds (`BlockSession`) on an in-process devnet chain, and the devnet
 * sequencer's flashblocks loop:
 * - flashblock 0 carries `base` and the forced (deposit) transactions only; later frames carry
 *   only the transactions added since; the frames concatenate to the sealed block's body;
 * - every `diff.block_hash` is the hash `assemblePartialBlock` gives when the frames are
 *   re-executed independently (as a consumer does); roots, gas and DA footprint match too;
 * - `prev_flashblock_id` chains the frames; the payload id is stable for the build;
 * - the sealed block is the block `buildOpPayload` builds for the same transactions;
 * - a pool transaction that cannot apply is skipped (and rejected unless it only lacked gas room);
 * - the timer loop publishes frames while the block is open and commits exactly their transactions.
 */
import { createBlock } from "@ethereumjs/block";
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { jovianDevnetGenesis } from "../../helpers/opFixtures.js";
import { DEPOSIT_TX_TYPE } from "../../../src/chain/op/depositTx.js";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../../../src/chain/op/predeploys.js";
import { OpBlockExecutor, type OpTransaction } from "../../../src/execution/op/opBlockExecutor.js";
import { buildOpPayload, decodeOpTransaction, type PoolSource } from "../../../src/execution/op/opPayload.js";
import type { FlashblocksPayloadV1 } from "../../../src/flashblocks/codec.js";
import { assemblePartialBlock, headerTemplateFromBase } from "../../../src/flashblocks/partialBlock.js";
import { BlockSession, BlockSessionError } from "../../../src/sequencer/blockSession.js";
import { poolSource } from "../../../src/txpool/poolSource.js";
import { BuilderLimits } from "../../../src/execution/op/builderLimits.js";
import { randomBytes } from "node:crypto";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { waitUntil } from "../../helpers/poll.js";
import { effectiveTrieWrites, walkStoredState } from "../../helpers/stateTries.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
const accounts = devAccounts();
const GWEI = 10n ** 9n;
/** `initiateWithdrawal(address,uint256,bytes)` of the L2ToL1MessagePasser. */
const INITIATE_WITHDRAWAL_SELECTOR = "c2b3e5ac";

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freshChain(): Promise<Chain> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-blocksession-"));
  dirs.push(dir);
  await Chain.init(dir, jovianDevnetGenesis(), { archive: true });
  return Chain.open(dir, { logger: silent });
}

interface TxOpts {
  to?: string;
  data?: Uint8Array;
  gasLimit?: bigint;
  value?: bigint;
}

function signed(chain: Chain, from: number, nonce: bigint, opts: TxOpts = {}): TypedTransaction {
  const head = chain.head.header;
  return createFeeMarket1559Tx(
    {
      chainId: chain.chainId,
      nonce,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI / 1000n,
      gasLimit: opts.gasLimit ?? 21_000n,
      to: (opts.to ?? accounts[9]!.address) as `0x${string}`,
      value: opts.value ?? 1n,
      data: opts.data ?? new Uint8Array(0),
    },
    { common: chain.commonAt(head.number + 1n, head.timestamp + 1n) },
  ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
}

/** Calldata of `initiateWithdrawal(target, 100000, "")`: writes the message passer's storage (the Isthmus withdrawals root). */
function withdrawalCalldata(target: string): Uint8Array {
  const word = (v: bigint): Uint8Array => setLengthLeft(hexToBytes(`0x${v.toString(16).padStart(2, "0")}` as `0x${string}`), 32);
  const selector = hexToBytes(`0x${INITIATE_WITHDRAWAL_SELECTOR}`);
  return concatBytes(selector, setLengthLeft(hexToBytes(target as `0x${string}`), 32), word(100_000n), word(0x60n), word(0n));
}

/** A pool source over a fixed list (in order), recording rejections. */
function listSource(txs: TypedTransaction[], rejected: string[] = []): PoolSource {
  return {
    candidates: () => txs.map((tx) => ({ tx, hash: tx.hash() })),
    reject: (hash) => rejected.push(bytesToHex(hash)),
  };
}

/**
 * Re-executes the frames of one block on a fresh state of its parent the way a consumer does
 * (environment from `base`, partial header from `assemblePartialBlock`) and checks every frame.
 */
async function checkFramesByReexecution(chain: Chain, frames: FlashblocksPayloadV1[]): Promise<void> {
  const base = frames[0]!.base!;
  const parent = chain.getHeaderByHash(base.parentHash)!;
  const common = chain.commonAt(base.blockNumber, base.timestamp);
  const template = headerTemplateFromBase(base, common);
  const { state } = chain.stateManagerAt(parent);
  const vm = await chain.makeVM(common, state, base.parentHash, base.timestamp);
  const env = createBlock({ header: template }, { common, skipConsensusFormatValidation: true });
  const ex = new OpBlockExecutor(vm, env, chain.op!, parent.timestamp);
  await ex.begin();
  const txs: OpTransaction[] = [];
  for (const f of frames) {
    for (const raw of f.diff.transactions) {
      const tx = decodeOpTransaction(raw, common);
      await ex.apply(tx);
      txs.push(tx);
    }
    const totals = await ex.partialTotals();
    await state.getStateRoot();
    const withdrawalsRoot = state.storageRootOf(hexToBytes(L2_TO_L1_MESSAGE_PASSER_ADDRESS));
    expect(bytesToHex(f.diff.withdrawalsRoot)).toBe(bytesToHex(withdrawalsRoot));
    expect(bytesToHex(f.diff.receiptsRoot)).toBe(bytesToHex(totals.receiptsRoot));
    expect(bytesToHex(f.diff.logsBloom)).toBe(bytesToHex(totals.logsBloom));
    expect(f.diff.gasUsed).toBe(totals.gasUsed);
    expect(f.diff.blobGasUsed).toBe(totals.blobGasUsed);
    expect(bytesToHex(f.diff.stateRoot)).toBe(bytesToHex(new Uint8Array(32)));
    const partial = await assemblePartialBlock(common, template, [...txs], totals, { stateRoot: new Uint8Array(32), withdrawalsRoot });
    expect(bytesToHex(f.diff.blockHash), `block_hash of flashblock ${f.index}`).toBe(bytesToHex(partial.hash()));
  }
}

describe("BlockSession", () => {
  let chain: Chain;
  let pool: TxPool;
  let seq: OpDevSequencer;

  beforeEach(async () => {
    chain = await freshChain();
    pool = new TxPool(chain);
    seq = new OpDevSequencer(chain, pool, 0, silent);
  });

  afterEach(async () => {
    await chain.close();
  });

  it("publishes deposits in flashblock 0, pool transactions after, and seals exactly the frames' transactions", async () => {
    const to = hexToBytes(accounts[2]!.address as `0x${string}`);
    seq.injectDeposit({ from: new Uint8Array(20).fill(0xaa), to, mint: 10n ** 18n, value: 1n, gasLimit: 50_000n, data: new Uint8Array(0) });
    const attrs = seq.payloadAttributes();
    expect(attrs.transactions.length).toBe(2); // L1 info + the user deposit
    const session = new BlockSession(chain, attrs, { pool: poolSource(pool, silent), prevFlashblockId: { block: 0n, index: 7 } });
    await session.begin();
    const frames: FlashblocksPayloadV1[] = [await session.flashblock()];

    const a0 = signed(chain, 0, 0n);
    await pool.addRaw(a0.serialize());
    expect(await session.addFromPool()).toBe(1);
    frames.push(await session.flashblock());

    const withdrawal = { to: L2_TO_L1_MESSAGE_PASSER_ADDRESS, data: withdrawalCalldata(accounts[3]!.address), gasLimit: 200_000n, value: 5n };
    const a1 = signed(chain, 0, 1n, withdrawal);
    const b0 = signed(chain, 1, 0n);
    await pool.addRaw(a1.serialize());
    await pool.addRaw(b0.serialize());
    expect(await session.addFromPool()).toBe(2);
    frames.push(await session.flashblock());
    // Nothing new: an empty frame, as Base publishes.
    expect(await session.addFromPool()).toBe(0);
    frames.push(await session.flashblock());

    const ex = await session.seal();
    const sealed = ex.block;

    // Frame shapes.
    expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3]);
    expect(frames[0]!.base).toBeDefined();
    for (const f of frames.slice(1)) expect(f.base).toBeUndefined();
    expect(frames[0]!.diff.transactions.length).toBe(2);
    for (const raw of frames[0]!.diff.transactions) expect(raw[0]).toBe(DEPOSIT_TX_TYPE);
    expect(frames[1]!.diff.transactions.map(bytesToHex)).toEqual([bytesToHex(a0.serialize())]);
    expect(frames[2]!.diff.transactions.length).toBe(2);
    expect(frames[3]!.diff.transactions).toEqual([]);
    for (const f of frames) {
      expect(bytesToHex(f.payloadId)).toBe(bytesToHex(frames[0]!.payloadId));
      expect(f.payloadId.length).toBe(8);
      expect(f.metadata.blockNumber).toBe(1n);
      expect(f.diff.withdrawals).toEqual([]);
    }
    // prev_flashblock_id chains: index 0 names the given predecessor, then each frame the one before.
    expect(frames.map((f) => f.metadata.prevFlashblockId)).toEqual([
      { block: 0n, index: 7 },
      { block: 1n, index: 0 },
      { block: 1n, index: 1 },
      { block: 1n, index: 2 },
    ]);
    expect(session.lastFlashblockId).toEqual({ block: 1n, index: 3 });
    // base = the block environment.
    const base = frames[0]!.base!;
    const h = sealed.header;
    expect(bytesToHex(base.parentHash)).toBe(bytesToHex(h.parentHash));
    expect(base.blockNumber).toBe(h.number);
    expect(base.timestamp).toBe(h.timestamp);
    expect(base.gasLimit).toBe(h.gasLimit);
    expect(base.baseFeePerGas).toBe(h.baseFeePerGas);
    expect(bytesToHex(base.feeRecipient)).toBe(bytesToHex(h.coinbase.bytes));
    expect(bytesToHex(base.prevRandao)).toBe(bytesToHex(h.mixHash));
    expect(bytesToHex(base.extraData)).toBe(bytesToHex(h.extraData));
    expect(bytesToHex(base.parentBeaconBlockRoot)).toBe(bytesToHex(h.parentBeaconBlockRoot!));

    // The frames concatenate to the sealed body; the last frame's commitments are the header's.
    const concatenated = frames.flatMap((f) => f.diff.transactions.map(bytesToHex));
    expect(concatenated).toEqual(sealed.transactions.map((tx) => bytesToHex(tx.serialize())));
    const last = frames[frames.length - 1]!.diff;
    expect(last.gasUsed).toBe(h.gasUsed);
    expect(last.blobGasUsed).toBe(h.blobGasUsed);
    expect(bytesToHex(last.receiptsRoot)).toBe(bytesToHex(h.receiptTrie));
    expect(bytesToHex(last.logsBloom)).toBe(bytesToHex(h.logsBloom));
    expect(bytesToHex(last.withdrawalsRoot)).toBe(bytesToHex(h.withdrawalsRoot!));
    // The withdrawal moved the withdrawals root mid-block.
    expect(bytesToHex(frames[2]!.diff.withdrawalsRoot)).not.toBe(bytesToHex(frames[1]!.diff.withdrawalsRoot));
    // Mid-block hashes are not the sealed hash (zero state root).
    for (const f of frames) expect(bytesToHex(f.diff.blockHash)).not.toBe(bytesToHex(sealed.hash()));

    // A consumer re-executing the frames reproduces every block_hash.
    await checkFramesByReexecution(chain, frames);

    // buildOpPayload on the same parent with the same transactions builds the same block.
    const parent = chain.head.header;
    const common = chain.commonAt(parent.number + 1n, attrs.timestamp);
    const { state } = chain.stateManagerAt(parent);
    const vm = await chain.makeVM(common, state, parent.hash(), attrs.timestamp);
    const built = await buildOpPayload(vm, common, chain.op!, parent, attrs, listSource([a0, a1, b0]));
    expect(bytesToHex(built.block.hash())).toBe(bytesToHex(sealed.hash()));
    expect(bytesToHex(built.block.serialize())).toBe(bytesToHex(sealed.serialize()));
    // The intermediate (per-flashblock) state roots left no extra trie writes: the tables change as a one-shot build changes them.
    expect(effectiveTrieWrites(ex.write.tries)).toEqual(effectiveTrieWrites(state.tries));

    // And the sealed block commits as the head, with every node of its state stored.
    chain.commitCanonical(ex);
    expect(chain.head.header.number).toBe(1n);
    expect(chain.getReceipts(sealed.hash())!.length).toBe(5);
    const walked = walkStoredState(chain, chain.head.header.stateRoot);
    expect(walked.accounts).toBeGreaterThan(10);
    expect(walked.nodes).toBeGreaterThan(walked.accounts);
  });

  it("skips a pool transaction that cannot apply: rejected when invalid, kept when it only lacked block gas", async () => {
    const session = new BlockSession(chain, seq.payloadAttributes());
    await session.begin();
    await session.flashblock();
    const rejected: string[] = [];
    const gapped = signed(chain, 0, 5n); // nonce 5 on a fresh account: can never apply now
    const tooBig = signed(chain, 1, 0n, { gasLimit: chain.head.header.gasLimit }); // more than the gas left after the deposit
    const good = signed(chain, 2, 0n);
    const s2 = new BlockSession(chain, seq.payloadAttributes(), { pool: listSource([gapped, tooBig, good], rejected) });
    await s2.begin();
    const f0 = await s2.flashblock();
    expect(await s2.addFromPool()).toBe(1);
    const f1 = await s2.flashblock();
    expect(f1.diff.transactions.map(bytesToHex)).toEqual([bytesToHex(good.serialize())]);
    expect(rejected).toEqual([bytesToHex(gapped.hash())]);
    const ex = await s2.seal();
    expect(ex.block.transactions.length).toBe(f0.diff.transactions.length + 1);
    await checkFramesByReexecution(chain, [f0, f1]);
  });

  it("honours the add limit and applies a candidate only once", async () => {
    const txs = [signed(chain, 0, 0n), signed(chain, 1, 0n), signed(chain, 2, 0n)];
    const s = new BlockSession(chain, seq.payloadAttributes(), { pool: listSource(txs) });
    await s.begin();
    await s.flashblock();
    expect(await s.addFromPool(2)).toBe(2);
    expect((await s.flashblock()).diff.transactions.length).toBe(2);
    expect(await s.addFromPool()).toBe(1);
    expect(await s.addFromPool()).toBe(0);
    expect(s.unpublished).toBe(1);
    expect((await s.flashblock()).diff.transactions.map(bytesToHex)).toEqual([bytesToHex(txs[2]!.serialize())]);
  });

  it("selects pool transactions under the operator limits (miner_setGasLimit, miner_setMaxDASize), holding back a sender's later nonces", async () => {
    const limits = new BuilderLimits();
    const bulky = signed(chain, 0, 0n, { data: randomBytes(1_000), gasLimit: 100_000n });
    const after = signed(chain, 0, 1n); // the bulky sender's next nonce: waits with it, not rejected
    const heavy = signed(chain, 1, 0n, { gasLimit: 1_500_000n });
    const small = signed(chain, 2, 0n);
    const rejected: string[] = [];
    limits.setMaxDaSize(150n, 0n);
    // The L1-attributes deposit's gas counts too (as in Base's builder): 1M leaves room for a transfer, not for 1.5M.
    limits.setGasLimit(1_000_000n);
    const s = new BlockSession(chain, seq.payloadAttributes(), { pool: { ...listSource([bulky, after, heavy, small], rejected), limits } });
    await s.begin();
    await s.flashblock();
    expect(await s.addFromPool()).toBe(1);
    expect((await s.flashblock()).diff.transactions.map(bytesToHex)).toEqual([bytesToHex(small.serialize())]);
    expect(rejected).toEqual([]);
    // Lifted: held-back senders wait for the next block (their place in this one is gone), where all three apply.
    limits.setMaxDaSize(0n, 0n);
    limits.setGasLimit(0n);
    expect(await s.addFromPool()).toBe(0);
    await s.seal();
    const next = new BlockSession(chain, seq.payloadAttributes(), { pool: { ...listSource([bulky, after, heavy]), limits } });
    await next.begin();
    await next.flashblock();
    expect(await next.addFromPool()).toBe(3);
  });

  it("refuses steps out of order", async () => {
    const s = new BlockSession(chain, seq.payloadAttributes(), { pool: listSource([signed(chain, 0, 0n)]) });
    await expect(s.flashblock()).rejects.toBeInstanceOf(BlockSessionError);
    await s.begin();
    await expect(s.addFromPool()).rejects.toMatchObject({ code: "BLOCK_SESSION_ORDER" });
    await s.flashblock();
    await s.seal();
    await expect(s.flashblock()).rejects.toMatchObject({ code: "BLOCK_SESSION_CLOSED" });
    await expect(s.seal()).rejects.toMatchObject({ code: "BLOCK_SESSION_CLOSED" });
  });
});

describe("OpDevSequencer with flashblocks", () => {
  let chain: Chain;
  let pool: TxPool;
  let seq: OpDevSequencer | undefined;

  beforeEach(async () => {
    chain = await freshChain();
    pool = new TxPool(chain);
  });

  afterEach(async () => {
    await seq?.stop();
    seq = undefined;
    await chain.close();
  });

  it("publishes frames while the block is open and commits exactly their transactions", async () => {
    const frames: FlashblocksPayloadV1[] = [];
    seq = new OpDevSequencer(chain, pool, 0.5, silent, { flashblocks: { intervalMs: 100, sink: { publish: (p) => frames.push(p) } } });
    expect(seq.flashblocksEnabled).toBe(true);
    seq.start();
    await waitUntil("flashblock 1 of the first block", 5_000, () => frames.some((f) => f.index === 1), 20);
    const tx = signed(chain, 0, 0n);
    await pool.addRaw(tx.serialize());
    const hex = bytesToHex(tx.serialize());
    await waitUntil("the transaction in a flashblock", 5_000, () => frames.some((f) => f.diff.transactions.some((t) => bytesToHex(t) === hex)), 20);
    const carrying = frames.find((f) => f.diff.transactions.some((t) => bytesToHex(t) === hex))!;
    expect(carrying.index).toBeGreaterThan(0);
    const n = carrying.metadata.blockNumber;
    await waitUntil(`block ${n} to be sealed`, 5_000, () => chain.head.header.number >= n, 20);
    const block = chain.getBlockByNumber(n)!;
    const mine = frames.filter((f) => f.metadata.blockNumber === n);
    expect(mine.map((f) => f.index)).toEqual(mine.map((_, i) => i));
    // At most floor(500 / 100) = 5 frames per block: indices 0..4.
    expect(mine.length).toBeLessThanOrEqual(5);
    expect(mine.flatMap((f) => f.diff.transactions.map(bytesToHex))).toEqual(block.transactions.map((t) => bytesToHex(t.serialize())));
    expect(bytesToHex(mine[0]!.base!.parentHash)).toBe(bytesToHex(block.header.parentHash));
    // Index 0 of the next block names the last frame of this one.
    await waitUntil(`flashblock 0 of block ${n + 1n}`, 5_000, () => frames.some((f) => f.metadata.blockNumber === n + 1n), 20);
    const next0 = frames.find((f) => f.metadata.blockNumber === n + 1n)!;
    expect(next0.index).toBe(0);
    expect(next0.metadata.prevFlashblockId).toEqual({ block: n, index: mine[mine.length - 1]!.index });
    // Every trie node of the state built frame by frame is stored.
    await seq.stop();
    expect(walkStoredState(chain, chain.head.header.stateRoot).nodes).toBeGreaterThan(0);
  });

  it("puts an injected deposit in the next block's flashblock 0, and sealOne seals the open block", async () => {
    const frames: FlashblocksPayloadV1[] = [];
    // A long block time: only sealOne() seals.
    seq = new OpDevSequencer(chain, pool, 60, silent, { flashblocks: { intervalMs: 100, sink: { publish: (p) => frames.push(p) } } });
    seq.start();
    await waitUntil("flashblock 0 of block 1", 5_000, () => frames.length >= 1, 20);
    const to = hexToBytes(accounts[4]!.address as `0x${string}`);
    const deposit = seq.injectDeposit({ from: new Uint8Array(20).fill(0xbb), to, mint: 7n, value: 0n, gasLimit: 30_000n, data: new Uint8Array(0) });
    const tx = signed(chain, 0, 0n);
    await pool.addRaw(tx.serialize());
    expect(await seq.sealOne()).toBe(1n);
    const b1 = chain.getBlockByNumber(1n)!;
    expect(b1.transactions.map((t) => bytesToHex(t.hash()))).toContain(bytesToHex(tx.hash()));
    const f1 = frames.filter((f) => f.metadata.blockNumber === 1n);
    expect(f1.flatMap((f) => f.diff.transactions.map(bytesToHex))).toEqual(b1.transactions.map((t) => bytesToHex(t.serialize())));
    // Block 2's session opened right away, with the deposit in its flashblock 0.
    const b2f0 = frames.find((f) => f.metadata.blockNumber === 2n && f.index === 0);
    expect(b2f0).toBeDefined();
    expect(b2f0!.diff.transactions.map(bytesToHex)).toContain(bytesToHex(deposit.serialize()));
    expect(await seq.sealOne()).toBe(2n);
    expect(chain.getBlockByNumber(2n)!.transactions.map((t) => bytesToHex(t.hash()))).toContain(bytesToHex(deposit.hash()));
  });

  it("without flashblocks builds each block in one go (sealOne)", async () => {
    seq = new OpDevSequencer(chain, pool, 0, silent, { flashblocks: { intervalMs: 100, sink: { publish: () => expect.unreachable() } } });
    expect(seq.flashblocksEnabled).toBe(false);
    const tx = signed(chain, 0, 0n);
    await pool.addRaw(tx.serialize());
    expect(await seq.sealOne()).toBe(1n);
    expect(chain.head.transactions.length).toBe(2);
  });
});
