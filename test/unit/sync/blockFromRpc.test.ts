/**
 * blockFromRpc: blocks formatted by basalt's own RPC formatter (as eth_getBlockByNumber(n, true)
 * serves them) rebuild to the same block — the execution-apis Prague chain (legacy with and
 * without EIP-155, 2930, 1559, 4844, 7702, withdrawals) and an OP devnet chain built in-process
 * (deposits incl. a creation, every signed type); the rebuilt OP blocks import and execute on a
 * fresh datadir. Tampered JSON is refused naming the block, transaction index and field.
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
} from "@ethereumjs/tx";
import { bytesToHex, eoaCode7702SignAuthorization, hexToBytes } from "@ethereumjs/util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../../src/chain/devnet.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { isDeposit } from "../../../src/chain/op/depositTx.js";
import { formatBlock, type RpcBlock } from "../../../src/chain/json/block.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { BlockFromRpcError, blockFromRpc, type BlockRulesSource } from "../../../src/sync/blockFromRpc.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { FIXTURES_DIR, loadChain } from "../format/chain.js";

const silent = pino({ level: "silent" });
const GWEI = 10n ** 9n;
/** Init code deploying a 10-byte runtime that returns 42. */
const INIT_42 = "0x600a600c600039600a6000f3602a60005260206000f3";
/** Storage key 0x0101…01 for an access list entry. */
const SLOT_ONE = bytesToHex(new Uint8Array(32).fill(1));

type Obj = Record<string, unknown>;

/** A deep copy of a block JSON, for tampering. */
function clone(b: RpcBlock): Obj {
  return JSON.parse(JSON.stringify(b)) as Obj;
}

function sameBlock(a: Block, b: Block): void {
  expect(bytesToHex(a.hash())).toBe(bytesToHex(b.hash()));
  expect(bytesToHex(a.serialize())).toBe(bytesToHex(b.serialize()));
}

describe("blockFromRpc: execution-apis Prague chain", () => {
  const genesis = JSON.parse(readFileSync(path.join(FIXTURES_DIR, "genesis.json"), "utf8")) as GenesisJson;
  const common = commonFromGenesis(genesis, "hive");
  const rules: BlockRulesSource = {
    op: undefined,
    commonAt(number: bigint, timestamp: bigint): Common {
      const c = common.copy();
      c.setHardforkBy({ blockNumber: number, timestamp });
      return c;
    },
  };
  const chain = loadChain();
  const json = (i: number): RpcBlock => formatBlock(chain[i]!.block, { fullTransactions: true, senders: chain[i]!.senders });

  it("round-trips every block without ommers, covering every transaction type the chain holds", async () => {
    const types = new Set<number>();
    let legacyUnprotected = 0;
    let legacy155 = 0;
    let withdrawals = 0;
    let rebuilt = 0;
    for (let i = 0; i < chain.length; i++) {
      const src = chain[i]!.block;
      if (src.uncleHeaders.length > 0) {
        await expect(blockFromRpc(json(i), rules)).rejects.toThrow(/uncles lists \d+ ommer/);
        continue;
      }
      const b = await blockFromRpc(json(i), rules);
      sameBlock(b, src);
      rebuilt++;
      for (const tx of src.transactions) {
        types.add(tx.type);
        if (tx.type === 0) {
          const v = (tx as unknown as { v: bigint }).v;
          if (v === 27n || v === 28n) legacyUnprotected++;
          else legacy155++;
        }
      }
      withdrawals += src.withdrawals?.length ?? 0;
    }
    expect(rebuilt).toBeGreaterThan(20);
    expect([...types].sort()).toEqual(expect.arrayContaining([0, 1, 2, 3, 4]));
    expect(legacyUnprotected).toBeGreaterThan(0);
    expect(legacy155).toBeGreaterThan(0);
    expect(withdrawals).toBeGreaterThan(0);
  });

  const withType = (type: number): number => chain.findIndex((c) => c.block.uncleHeaders.length === 0 && c.block.transactions.some((t) => t.type === type));

  it("names the block, transaction index and field when a transaction does not hash to its JSON hash", async () => {
    const i = withType(2);
    const j = clone(json(i));
    const txs = j.transactions as Obj[];
    const k = txs.findIndex((t) => t.type === "0x2");
    txs[k]!.value = "0x" + (BigInt(txs[k]!.value as string) + 1n).toString(16);
    const err = await blockFromRpc(j, rules).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockFromRpcError);
    expect((err as BlockFromRpcError).meta).toEqual({ block: chain[i]!.block.header.number.toString(), txIndex: k, field: "hash" });
    expect((err as Error).message).toMatch(new RegExp(`^block ${chain[i]!.block.header.number}, transaction ${k}: rebuilt transaction hashes to 0x`));
  });

  it("refuses a header whose fields do not hash to the block hash", async () => {
    const j = clone(json(withType(2)));
    j.gasUsed = "0x1";
    await expect(blockFromRpc(j, rules)).rejects.toThrow(/^block \d+: rebuilt header hashes to 0x[0-9a-f]{64}, but the JSON says/);
  });

  it("refuses a transaction list that does not match transactionsRoot", async () => {
    const j = clone(json(withType(2)));
    (j.transactions as Obj[]).pop();
    const err = await blockFromRpc(j, rules).catch((e: unknown) => e);
    expect((err as BlockFromRpcError).meta.field).toBe("transactionsRoot");
  });

  it("refuses missing or malformed fields by name, and hash-only transaction lists", async () => {
    const i = withType(4);
    const missing = clone(json(i));
    delete missing.parentBeaconBlockRoot;
    await expect(blockFromRpc(missing, rules)).rejects.toThrow(/field parentBeaconBlockRoot is missing/);
    const bad = clone(json(i));
    (bad.transactions as Obj[])[0]!.nonce = "12";
    await expect(blockFromRpc(bad, rules)).rejects.toThrow(/transaction 0: field nonce must be a hex quantity/);
    const hashes = formatBlock(chain[i]!.block, { fullTransactions: false, senders: [] });
    await expect(blockFromRpc(hashes, rules)).rejects.toThrow(/must be fetched with full transactions/);
  });
});

describe("blockFromRpc: OP devnet chain (deposits)", () => {
  const dirs: string[] = [];
  let source: Chain;
  let target: Chain;
  const sealed: Block[] = [];

  const tmpChain = async (): Promise<Chain> => {
    const d = mkdtempSync(path.join(os.tmpdir(), "basalt-blockfromrpc-"));
    dirs.push(d);
    await Chain.init(d, devnetGenesis(), { archive: true });
    return Chain.open(d, { logger: silent });
  };

  beforeAll(async () => {
    source = await tmpChain();
    target = await tmpChain();
    const pool = new TxPool(source);
    const seq = new OpDevSequencer(source, pool, 0, silent);
    const [a0, a1, a2, a3, a4] = devAccounts();
    const key = (a: typeof a0): Uint8Array => hexToBytes(a!.privateKey as `0x${string}`);
    const common = source.commonAt(1n, source.head.header.timestamp + 1n);
    const chainId = source.chainId;
    const to = a4!.address as `0x${string}`;
    const txs = [
      createLegacyTx({ nonce: 0n, gasPrice: 2n * GWEI, gasLimit: 21_000n, to, value: 1n }, { common }).sign(key(a0)),
      createAccessList2930Tx(
        { chainId, nonce: 0n, gasPrice: 2n * GWEI, gasLimit: 50_000n, to, value: 2n, accessList: [{ address: to, storageKeys: [SLOT_ONE] }] },
        { common },
      ).sign(key(a1)),
      // A contract creation (to absent).
      createFeeMarket1559Tx({ chainId, nonce: 0n, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 100_000n, data: INIT_42 }, { common }).sign(key(a2)),
      createEOACode7702Tx(
        {
          chainId,
          nonce: 0n,
          maxFeePerGas: 2n * GWEI,
          maxPriorityFeePerGas: GWEI,
          gasLimit: 100_000n,
          to,
          authorizationList: [eoaCode7702SignAuthorization({ chainId: bytesToHex(Uint8Array.of(0)), address: to, nonce: "0x1" }, key(a3))],
        },
        { common },
      ).sign(key(a3)),
    ];
    for (const tx of txs) await pool.addRaw(tx.serialize());
    seq.injectDeposit({ from: new Uint8Array(20).fill(0xaa), to: hexToBytes(to), mint: 10n ** 18n, value: 5n, gasLimit: 50_000n, data: new Uint8Array(0) });
    // A deposit creating a contract (no `to`), with calldata.
    seq.injectDeposit({ from: new Uint8Array(20).fill(0xbb), mint: 0n, value: 0n, gasLimit: 100_000n, data: hexToBytes(INIT_42) });
    for (let i = 0; i < 3; i++) await seq.sealOne();
    for (let n = 1n; n <= source.head.header.number; n++) sealed.push(source.getBlockByNumber(n)!);
  });

  afterAll(async () => {
    await source?.close();
    await target?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The block as eth_getBlockByNumber(n, true) serves it on an OP chain (src/rpc/methods/blocks.ts). */
  const rpcJson = (b: Block): RpcBlock => {
    const hash = b.hash();
    const receipts = b.transactions.some((tx) => isDeposit(tx)) ? source.getReceipts(hash) : undefined;
    return formatBlock(b, { fullTransactions: true, senders: source.getSenders(hash), receipts, op: source.op });
  };

  it("holds deposits (incl. a creation) and every signed type the devnet pool takes", () => {
    const types = sealed.flatMap((b) => b.transactions.map((t) => t.type));
    expect(new Set(types)).toEqual(new Set([0x7e, 0, 1, 2, 4]));
    const deposits = sealed.flatMap((b) => b.transactions.filter((t) => isDeposit(t)));
    expect(deposits.some((d) => (d as unknown as { to?: unknown }).to === undefined)).toBe(true);
    expect(deposits.some((d) => (d as unknown as { mint: bigint }).mint > 0n)).toBe(true);
  });

  it("rebuilds each block exactly, and the rebuilt blocks import and execute on a fresh datadir", async () => {
    for (const b of sealed) {
      const rebuilt = await blockFromRpc(JSON.parse(JSON.stringify(rpcJson(b))), target);
      sameBlock(rebuilt, b);
      await target.importBlock(rebuilt);
      expect(bytesToHex(target.head.hash())).toBe(bytesToHex(b.hash()));
    }
  });

  it("names a tampered deposit field through the hash check", async () => {
    const b = sealed[0]!;
    const j = clone(rpcJson(b));
    const txs = j.transactions as Obj[];
    const k = txs.findIndex((t) => t.type === "0x7e" && t.mint !== "0x0");
    txs[k]!.mint = "0x1";
    const err = await blockFromRpc(j, target).catch((e: unknown) => e);
    expect((err as BlockFromRpcError).meta).toEqual({ block: "1", txIndex: k, field: "hash" });
  });

  it("refuses a deposit on a chain that is not an OP chain", async () => {
    const j = rpcJson(sealed[0]!);
    const plain: BlockRulesSource = { op: undefined, commonAt: (n, t) => target.commonAt(n, t) };
    await expect(blockFromRpc(j, plain)).rejects.toThrow(/block 1, transaction 0: field type is 0x7e \(OP deposit\) but the chain is not an OP Stack chain/);
  });
});
