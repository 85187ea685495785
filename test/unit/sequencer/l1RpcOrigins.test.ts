/**
 * The sequencer on a real L1 (anvil, chain 31337, genesis 300 s in the past so the L2 chain starts
 * behind the clock and catches up at once; L1 blocks mined with chosen timestamps), in process:
 * a local-rollup chain (`devnetRollupGenesis` at L1 block 0's time, `devnetRollupConfig` naming
 * two log-emitting contracts as the OptimismPortal and the SystemConfig) sequenced by
 * `OpDevSequencer` over `L1RpcOrigins`.
 * - Blocks fall at exact block-time multiples; each block's L1-attributes deposit names the real
 *   anvil block op-node's rule selects (number, hash, time, base fee, blob base fee from the
 *   31337 blob schedule), with the right sequence numbers.
 * - A `TransactionDeposited` log is in the first L2 block of the next epoch, with the source hash
 *   of its block-level log index; a `ConfigUpdate` gas-limit log changes the gas limit from that
 *   epoch on.
 * - Every block's attributes, rebuilt with `buildPayloadAttributes` from the same L1 data and the
 *   block's own mempool transactions, match the block (consolidation).
 * - A new sequencer on the same chain (a restart) continues from the head's origin and config.
 * - An L1 reorg under the head's origin: no block is built (warned once, counted once) until the
 *   L2 head is put back on the canonical L1, then the next block follows the canonical L1.
 * - Timer-driven with flashblocks on a chain anchored at the present: no block is committed before
 *   its timestamp, and each sealed block holds exactly its flashblocks' transactions.
 * - Past the drift (a second anvil; the L2 genesis 1,800 s after its L1 anchor): blocks keep the
 *   origin and take no mempool transaction while no next L1 block is known or the next one is
 *   still ahead of them, then move to it and take the waiting transaction.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { Address, bytesToHex, createAddressFromPrivateKey, hexToBytes } from "@ethereumjs/util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../../bench/scenario/anvil.js";
import { Chain } from "../../../src/blockchain/chain.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { devnetRollupConfig, devnetRollupGenesis } from "../../../src/chain/devnetRollup.js";
import { encodeConfigUpdateLog } from "../../../src/chain/op/configUpdate.js";
import { encodeDepositLog } from "../../../src/chain/op/depositLog.js";
import { l1BlobBaseFee, l1BlobScheduleOf } from "../../../src/chain/op/l1BlobFee.js";
import { decodeL1InfoCalldata } from "../../../src/chain/op/l1InfoTx.js";
import type { RollupConfig } from "../../../src/chain/op/rollupConfig.js";
import { userDepositSourceHash } from "../../../src/chain/op/sourceHash.js";
import { applyConfigUpdates, systemConfigFromL2Block } from "../../../src/chain/op/systemConfig.js";
import { ANVIL_CHAIN_ID, DEVNET_GAS_LIMIT } from "../../../src/chain/constants.js";
import { configUpdatesOf, l1OriginDeposits } from "../../../src/derivation/attributesL1.js";
import { attributesMatchBlock } from "../../../src/derivation/consolidate.js";
import { L1Source } from "../../../src/derivation/l1Source.js";
import { buildPayloadAttributes, type AttributesParent } from "../../../src/derivation/payloadAttributes.js";
import type { FlashblocksPayloadV1 } from "../../../src/flashblocks/codec.js";
import { L1RpcOrigins } from "../../../src/sequencer/l1RpcOrigins.js";
import { sequencerDepositsIncludedTotal, sequencerL1ReorgsTotal, sequencerPastDriftBlocksTotal } from "../../../src/sequencer/metrics.js";
import { OpDevSequencer, SequencerL1Error } from "../../../src/sequencer/opDevSequencer.js";
import { HttpRpcClient } from "../../../src/util/rpcClient.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { bytesEqual, to0x } from "../../../src/util/bytes.js";
import { emitterCalldata, L1Wallet } from "../../helpers/l1LogEmitters.js";
import { waitUntil } from "../../helpers/poll.js";

/** anvil's second account: the rollup's batcher (nothing is batched here). */
const BATCHER = createAddressFromPrivateKey(hexToBytes("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")).toString();
const INBOX = "0xff00000000000000000000000000000000000042";
/** How far in the past the L1 (and with it the L2 genesis) starts. */
const PAST_S = 300n;
const GAS_LIMIT_UPDATE = 50_000_000n;
const GWEI = 10n ** 9n;
const accounts = devAccounts();
const silent = pino({ level: "silent" });

let anvil: AnvilNode;
let rpc: HttpRpcClient;
let wallet: L1Wallet;
let t0: bigint;
let portal: string;
let systemConfig: string;
const dirs: string[] = [];

/** Mines one L1 block at `timestamp`. */
async function mineL1(timestamp: bigint): Promise<void> {
  await rpc.call("evm_mine", [Number(timestamp)]);
}

type RpcBlock = { number: string; hash: string; timestamp: string; baseFeePerGas: string; excessBlobGas: string };
async function l1Block(n: bigint): Promise<RpcBlock> {
  return (await rpc.call("eth_getBlockByNumber", ["0x" + n.toString(16), false])) as RpcBlock;
}

/** A chain of the local rollup anchored at L1 block `anchor` (a fresh datadir), with its rollup config. */
async function rollupChain(anchor: RpcBlock, blockTime = 1n): Promise<{ chain: Chain; cfg: RollupConfig; pool: TxPool }> {
  const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-seql1-"));
  dirs.push(datadir);
  await Chain.init(datadir, devnetRollupGenesis(BigInt(anchor.timestamp)));
  const chain = Chain.open(datadir, { logger: silent });
  const cfg = devnetRollupConfig({
    l1ChainId: ANVIL_CHAIN_ID,
    l1Anchor: { hash: anchor.hash, number: BigInt(anchor.number), timestamp: BigInt(anchor.timestamp) },
    l2GenesisHash: to0x(chain.genesisHash),
    portal,
    systemConfig,
    batcher: BATCHER,
    batchInbox: INBOX,
    blockTime,
  });
  return { chain, cfg, pool: new TxPool(chain) };
}

/** An origin source reading the head every time it plans (no poll interval), over a source of its own. */
function origins(cfg: RollupConfig, log = silent): L1RpcOrigins {
  return new L1RpcOrigins({ rollup: cfg, l1: new L1Source(rpc, { l1ChainId: ANVIL_CHAIN_ID, batchInbox: INBOX }), confs: 0, pollIntervalMs: 0, log });
}

/** A signed devnet transfer from dev account `from`. */
function transfer(chain: Chain, from: number, nonce: bigint): TypedTransaction {
  const head = chain.head.header;
  return createFeeMarket1559Tx(
    { chainId: chain.chainId, nonce, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI / 1000n, gasLimit: 21_000n, to: accounts[9]!.address as `0x${string}`, value: 1n },
    { common: chain.commonAt(head.number + 1n, head.timestamp + 1n) },
  ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
}

/** A block's L1 origin and sequence number (its L1-attributes deposit). */
function l1InfoOf(block: Block): ReturnType<typeof decodeL1InfoCalldata>["values"] {
  return decodeL1InfoCalldata(block.transactions[0]!.data).values;
}

beforeAll(async () => {
  t0 = BigInt(Math.floor(Date.now() / 1000)) - PAST_S;
  anvil = await startAnvil({ chainId: ANVIL_CHAIN_ID, genesisTimestamp: t0 });
  rpc = new HttpRpcClient(anvil.url);
  wallet = new L1Wallet(rpc, ANVIL_CHAIN_ID);
  ({ portal, systemConfig } = await wallet.deployEmitters(() => mineL1(t0 + 2n)));
}, 60_000);

afterAll(async () => {
  rpc?.close();
  await anvil?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("sequencer on a real L1", () => {
  let chain: Chain;
  let cfg: RollupConfig;
  let pool: TxPool;
  let seq: OpDevSequencer;
  /** The deposit's L2 recipient and amounts. */
  const depositTo = hexToBytes("0x000000000000000000000000000000000000d0d0");
  const MINT = 10n ** 18n;
  const VALUE = 10n ** 17n;

  beforeAll(async () => {
    ({ chain, cfg, pool } = await rollupChain(await l1Block(0n)));
    seq = new OpDevSequencer(chain, pool, 0, silent, { l1: origins(cfg) });
  });

  afterAll(async () => {
    await seq?.stop();
    await chain?.close();
  });

  it("names real L1 origins at exact block times; a deposit and a gas-limit update take effect in the next epoch; every block rebuilds from L1", async () => {
    const depositsBefore = (await sequencerDepositsIncludedTotal.get()).values[0]?.value ?? 0;
    // L2 1 (t0+1): L1 block 1 is at t0+2, after it: stays on block 0. L2 2: moves to block 1.
    expect(await seq.sealOne()).toBe(1n);
    expect(await seq.sealOne()).toBe(2n);
    // Mempool transactions go in the next block.
    const txs = [transfer(chain, 0, 0n), transfer(chain, 1, 0n)];
    for (const t of txs) await pool.addRaw(t.serialize());
    expect(await seq.sealOne()).toBe(3n);
    // L1 block 2 (t0+4): a ConfigUpdate (log 0), then a deposit (log 1).
    const gasUpdate = encodeConfigUpdateLog({ type: "gasLimit", gasLimit: GAS_LIMIT_UPDATE }, hexToBytes(systemConfig as `0x${string}`));
    await wallet.send(systemConfig, emitterCalldata(gasUpdate));
    const from = new Address(new Uint8Array(20).fill(0xd1));
    const depositLog = encodeDepositLog({ from, to: new Address(depositTo), mint: MINT, value: VALUE, gasLimit: 100_000n, data: new Uint8Array(0) }, hexToBytes(portal as `0x${string}`));
    await wallet.send(portal, emitterCalldata(depositLog));
    await mineL1(t0 + 4n);
    // L2 4 (t0+4) moves to L1 block 2; L1 block 3 (t0+9) is after L2 5..8, which stay; L2 9 moves to it.
    await mineL1(t0 + 9n);
    for (let n = 4n; n <= 9n; n++) expect(await seq.sealOne()).toBe(n);

    const blocks = Array.from({ length: 10 }, (_, n) => chain.getBlockByNumber(BigInt(n))!);
    expect(blocks.map((b) => b.header.timestamp - t0)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    const infos = blocks.slice(1).map(l1InfoOf);
    expect(infos.map((i) => [i.number, i.sequenceNumber])).toEqual([
      [0n, 1n],
      [1n, 0n],
      [1n, 1n],
      [2n, 0n],
      [2n, 1n],
      [2n, 2n],
      [2n, 3n],
      [2n, 4n],
      [3n, 0n],
    ]);
    const schedule = l1BlobScheduleOf(ANVIL_CHAIN_ID)!;
    for (const i of infos) {
      const b = await l1Block(i.number);
      expect(to0x(i.hash)).toBe(b.hash);
      expect(i.timestamp).toBe(BigInt(b.timestamp));
      expect(i.baseFee).toBe(BigInt(b.baseFeePerGas));
      expect(i.blobBaseFee).toBe(l1BlobBaseFee({ timestamp: i.timestamp, excessBlobGas: BigInt(b.excessBlobGas) }, schedule));
      expect(to0x(i.batcherHash.slice(12))).toBe(BATCHER.toLowerCase());
    }
    // The pooled transfers are in block 3.
    expect(blocks[3]!.transactions.slice(1).map((t) => bytesToHex(t.hash()))).toEqual(txs.map((t) => bytesToHex(t.hash())));
    // The deposit is in block 4 only (the first of L1 block 2's epoch), right after the L1-attributes deposit.
    const l1b2 = await l1Block(2n);
    const deposit = blocks[4]!.transactions[1] as unknown as { type: number; sourceHash: Uint8Array; hash(): Uint8Array };
    expect(deposit.type).toBe(0x7e);
    expect(to0x(deposit.sourceHash)).toBe(to0x(userDepositSourceHash(hexToBytes(l1b2.hash as `0x${string}`), 1)));
    expect(blocks.filter((b) => b.transactions.some((t) => bytesEqual(t.hash(), deposit.hash()))).map((b) => b.header.number)).toEqual([4n]);
    expect(chain.stateAt(chain.head.header).account(depositTo)?.balance).toBe(VALUE);
    expect(((await sequencerDepositsIncludedTotal.get()).values[0]?.value ?? 0) - depositsBefore).toBe(1);
    // The gas limit changes with L1 block 2's epoch.
    expect(blocks.slice(1).map((b) => b.header.gasLimit)).toEqual([...Array(3).fill(DEVNET_GAS_LIMIT), ...Array(6).fill(GAS_LIMIT_UPDATE)]);

    // Derivation's view: each block's attributes from L1 alone plus the block's own mempool transactions.
    const l1 = new L1Source(rpc, { l1ChainId: ANVIL_CHAIN_ID, batchInbox: INBOX });
    for (let n = 1; n < blocks.length; n++) {
      const parentBlock = blocks[n - 1]!;
      const block = blocks[n]!;
      const parentOrigin = n === 1 ? { number: 0n, hash: hexToBytes(cfg.genesis.l1.hash as `0x${string}`), sequenceNumber: 0n } : l1InfoOf(parentBlock);
      const parent: AttributesParent = { number: parentBlock.header.number, hash: parentBlock.hash(), timestamp: parentBlock.header.timestamp, l1Origin: { number: parentOrigin.number, hash: parentOrigin.hash }, sequenceNumber: parentOrigin.sequenceNumber };
      const origin = (await l1.blockByHash(infos[n - 1]!.hash))!.info;
      let sc = systemConfigFromL2Block(parentBlock, cfg);
      let deposits: ReturnType<typeof l1OriginDeposits> = [];
      if (origin.number !== parent.l1Origin.number) {
        const receipts = (await l1.receipts(origin.hash)).map((r) => ({ status: r.status ? (1 as const) : (0 as const), logs: r.logs }));
        deposits = l1OriginDeposits(receipts, hexToBytes(portal as `0x${string}`), origin.hash);
        sc = applyConfigUpdates(sc, configUpdatesOf(receipts, hexToBytes(systemConfig as `0x${string}`), cfg, origin.timestamp));
      }
      const mempool = block.transactions.filter((t) => (t as unknown as { type: number }).type !== 0x7e).map((t) => t.serialize());
      const { attributes } = buildPayloadAttributes(cfg, { parent, l1Origin: origin, systemConfig: sc, deposits, transactions: mempool });
      expect(attributes.transactions.map(bytesToHex)).toEqual(block.transactions.map((t) => bytesToHex(t.serialize())));
      expect(attributesMatchBlock(attributes, parentBlock.hash(), block, chain.op!)).toEqual({ match: true });
    }
  }, 60_000);

  it("continues after a restart from the head's origin, sequence number and system config", async () => {
    await seq.stop();
    seq = new OpDevSequencer(chain, pool, 0, silent, { l1: origins(cfg) });
    expect(await seq.sealOne()).toBe(10n);
    const b = chain.head;
    expect(b.header.timestamp).toBe(t0 + 10n);
    expect([l1InfoOf(b).number, l1InfoOf(b).sequenceNumber]).toEqual([3n, 1n]);
    expect(b.header.gasLimit).toBe(GAS_LIMIT_UPDATE);
  });

  it("builds nothing on an origin the L1 reorganized away (warned and counted once) until the head is back on the canonical L1", async () => {
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (s: string) => void lines.push(s) });
    await seq.stop();
    seq = new OpDevSequencer(chain, pool, 0, log, { l1: origins(cfg, log) });
    await mineL1(t0 + 11n); // L1 block 4
    expect(await seq.sealOne()).toBe(11n);
    const onL1Block4 = chain.head;
    expect(l1InfoOf(onL1Block4).number).toBe(4n);
    // L1 block 4 is replaced; block 5 builds on the replacement, not on the head's origin.
    await rpc.call("anvil_reorg", [1, []]);
    await mineL1(t0 + 13n);
    const reorgs = async () => ((await sequencerL1ReorgsTotal.get()).values[0]?.value ?? 0) as number;
    const reorgsBefore = await reorgs();
    await expect(seq.sealOne()).rejects.toBeInstanceOf(SequencerL1Error);
    await expect(seq.sealOne()).rejects.toMatchObject({ code: "SEQUENCER_L1_NO_ORIGIN" });
    expect(chain.head.header.number).toBe(11n);
    expect((await reorgs()) - reorgsBefore).toBe(1);
    const warned = lines.filter((l) => l.includes("reorganized"));
    expect(warned.length).toBe(1);
    expect(warned[0]).toMatch(/L1 block 5's parent is 0x[0-9a-f]{64}, not 0x[0-9a-f]{64}/);
    // A sequencer started now (nothing cached) finds the origin gone from the L1 altogether.
    await seq.stop();
    seq = new OpDevSequencer(chain, pool, 0, log, { l1: origins(cfg, log) });
    await expect(seq.sealOne()).rejects.toMatchObject({ code: "SEQUENCER_L1_NO_ORIGIN" });
    expect(lines.filter((l) => l.includes("reorganized")).at(-1)).toMatch(/L1 block 4 \(0x[0-9a-f]{64}\), the origin of L2 block 11, is not on the L1/);
    // Derivation puts the L2 head back on a block whose origin is canonical: production resumes on the canonical L1.
    await chain.setHead(chain.getBlockByNumber(10n)!.hash());
    expect(await seq.sealOne()).toBe(11n);
    const info = l1InfoOf(chain.head);
    expect(to0x(info.hash)).toBe((await l1Block(info.number)).hash);
    expect(bytesEqual(chain.head.hash(), onL1Block4.hash())).toBe(false);
  });
});

describe("sequencer on a real L1, timer-driven with flashblocks", () => {
  it("commits no block before its timestamp, at exact block times, each holding exactly its flashblocks' transactions", async () => {
    // An L1 block at the present to anchor a second rollup chain on.
    await mineL1(BigInt(Math.floor(Date.now() / 1000)));
    const anchor = await l1Block(BigInt((await rpc.call("eth_blockNumber", [])) as string));
    const { chain, cfg, pool } = await rollupChain(anchor);
    const frames: FlashblocksPayloadV1[] = [];
    const committedAt = new Map<bigint, number>();
    chain.onHead((b) => void committedAt.set(b.header.number, Date.now()));
    const seq = new OpDevSequencer(chain, pool, 0, silent, { l1: origins(cfg), flashblocks: { intervalMs: 250, sink: { publish: (p) => frames.push(p) } } });
    try {
      seq.start();
      await waitUntil("flashblock 1 of a block", 10_000, () => frames.some((f) => f.index === 1), 20);
      const tx = transfer(chain, 2, 0n);
      await pool.addRaw(tx.serialize());
      await waitUntil("block 3", 15_000, () => chain.head.header.number >= 3n, 20);
      await seq.stop();
      const head = chain.head.header.number;
      const t = BigInt(anchor.timestamp);
      for (let n = 1n; n <= head; n++) {
        const b = chain.getBlockByNumber(n)!;
        expect(b.header.timestamp).toBe(t + n * cfg.blockTime);
        expect(committedAt.get(n)!).toBeGreaterThanOrEqual(Number(b.header.timestamp) * 1000);
        const mine = frames.filter((f) => f.metadata.blockNumber === n);
        expect(mine.map((f) => f.index)).toEqual(mine.map((_, i) => i));
        expect(mine[0]!.base!.timestamp).toBe(b.header.timestamp);
        expect(mine.flatMap((f) => f.diff.transactions.map(bytesToHex))).toEqual(b.transactions.map((x) => bytesToHex(x.serialize())));
      }
      expect(Array.from({ length: Number(head) }, (_, i) => chain.getBlockByNumber(BigInt(i + 1))!).some((b) => b.transactions.some((x) => bytesEqual(x.hash(), tx.hash())))).toBe(true);
    } finally {
      await seq.stop();
      await chain.close();
    }
  }, 60_000);
});

describe("sequencer on a real L1, past the sequencer drift", () => {
  let anvil2: AnvilNode;
  let rpc2: HttpRpcClient;
  afterAll(async () => {
    rpc2?.close();
    await anvil2?.stop();
  });

  it("keeps the origin without mempool transactions while no usable next L1 block exists, then moves and takes them", async () => {
    const drift = 1_800n;
    const l1Start = BigInt(Math.floor(Date.now() / 1000)) - drift - 100n;
    anvil2 = await startAnvil({ chainId: ANVIL_CHAIN_ID, genesisTimestamp: l1Start });
    rpc2 = new HttpRpcClient(anvil2.url);
    const anchor = (await rpc2.call("eth_getBlockByNumber", ["0x0", false])) as RpcBlock;
    // The L2 genesis at the end of the anchor's drift: block 1 is already past it.
    const l2Time = l1Start + drift;
    const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-seql1-drift-"));
    dirs.push(datadir);
    await Chain.init(datadir, devnetRollupGenesis(l2Time));
    const chain = Chain.open(datadir, { logger: silent });
    const base = devnetRollupConfig({
      l1ChainId: ANVIL_CHAIN_ID,
      l1Anchor: { hash: anchor.hash, number: 0n, timestamp: l1Start },
      l2GenesisHash: to0x(chain.genesisHash),
      portal: "0x" + "00".repeat(19) + "01",
      systemConfig: "0x" + "00".repeat(19) + "02",
      batcher: BATCHER,
      batchInbox: INBOX,
      blockTime: 1n,
    });
    const cfg: RollupConfig = { ...base, genesis: { ...base.genesis, l2Time } };
    const pool = new TxPool(chain);
    const l1 = new L1Source(rpc2, { l1ChainId: ANVIL_CHAIN_ID, batchInbox: INBOX });
    const seq = new OpDevSequencer(chain, pool, 0, silent, { l1: new L1RpcOrigins({ rollup: cfg, l1, confs: 0, pollIntervalMs: 0, log: silent }) });
    try {
      const pastDrift = async () => ((await sequencerPastDriftBlocksTotal.get()).values[0]?.value ?? 0) as number;
      const before = await pastDrift();
      const tx = transfer(chain, 3, 0n);
      await pool.addRaw(tx.serialize());
      // No next L1 block: block 1 keeps L1 block 0, deposits only.
      expect(await seq.sealOne()).toBe(1n);
      // The next L1 block is ahead of blocks 2 and 3: they keep L1 block 0, deposits only (valid: the next origin is after them).
      await rpc2.call("evm_mine", [Number(l2Time + 4n)]);
      expect(await seq.sealOne()).toBe(2n);
      expect(await seq.sealOne()).toBe(3n);
      // Block 4 reaches it: moves, and takes the waiting transaction.
      expect(await seq.sealOne()).toBe(4n);
      const blocks = [1n, 2n, 3n, 4n].map((n) => chain.getBlockByNumber(n)!);
      expect(blocks.map((b) => [l1InfoOf(b).number, b.transactions.length])).toEqual([
        [0n, 1],
        [0n, 1],
        [0n, 1],
        [1n, 2],
      ]);
      expect(bytesToHex(blocks[3]!.transactions[1]!.hash())).toBe(bytesToHex(tx.hash()));
      expect((await pastDrift()) - before).toBe(3);
    } finally {
      await seq.stop();
      await chain.close();
    }
  }, 60_000);
});
