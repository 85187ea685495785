/**
 * Base's bundle, metering and miner methods over a sealing devnet's RPC backend: eth_sendBundle
 * (Base's ingress limits and answers, the transactions pooled and then sealed),
 * base_meterBundle / base_meterBlockByHash / base_meterBlockByNumber (Base's shapes, measured
 * times consistent with each other, Base's errors), base_meteredPriorityFeePerGas (not
 * configured, then estimating against configured limits), and miner_setGasLimit /
 * miner_setMaxDASize taking effect on the next sealed block.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Chain } from "../../src/blockchain/chain.js";
import { devAccounts } from "../../src/chain/devnet.js";
import { flzCompressLen } from "../../src/chain/op/fastlz.js";
import { meteringMethods } from "../../src/rpc/methods/metering.js";
import { minerMethods } from "../../src/rpc/methods/miner.js";
import { sendBundleMethods } from "../../src/rpc/methods/sendBundle.js";
import type { MethodTable } from "../../src/rpc/types.js";
import type { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import type { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { keccak256 } from "../../src/util/keccak.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-metering-");
const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const SINK = "0x000000000000000000000000000000000000beef";

describe("bundles, metering and the miner API", () => {
  let dev: SealingDevnet;
  let chain: Chain;
  let pool: TxPool;
  let seq: OpDevSequencer;
  let m: MethodTable;
  let plain: MethodTable;
  const nonces = new Map<number, bigint>();

  const rpc = (method: string, params: unknown[]): Promise<unknown> => callTable(m, method, params);
  const rpcError = (method: string, params: unknown[]): Promise<{ code: number; message: string; data?: unknown }> => callTableError(m, method, params);

  /** A signed EIP-1559 transaction of dev account `from` (its next nonce unless `nonce` is given). */
  function sign(from: number, f: { value?: bigint; data?: Uint8Array; gasLimit?: bigint; tip?: bigint; maxFee?: bigint } = {}, nonce?: bigint): Uint8Array {
    const n = nonce ?? nonces.get(from) ?? 0n;
    if (nonce === undefined) nonces.set(from, n + 1n);
    const common = chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n);
    const tx = createFeeMarket1559Tx(
      { chainId: chain.chainId, nonce: n, maxFeePerGas: f.maxFee ?? 10n ** 10n, maxPriorityFeePerGas: f.tip ?? 10n ** 6n, gasLimit: f.gasLimit ?? 21_000n, to: SINK, value: f.value ?? 1n, data: f.data },
      { common },
    );
    return tx.sign(key(from)).serialize();
  }
  const hashOf = (raw: Uint8Array): string => to0x(keccak256(raw));
  const includes = (n: bigint, hash: string): boolean => chain.getBlockByNumber(n)!.transactions.some((t) => hashOf(t.serialize()) === hash);

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    ({ chain, pool, seq } = dev);
    const backend = devBackend(dev);
    const settings = { limits: { gasUsed: 60_000n, executionTime: 10_000_000n, dataAvailability: 1_000_000n }, percentile: 0.5, uncongestedFee: 1_000_000n };
    m = { ...sendBundleMethods(backend), ...minerMethods(backend), ...meteringMethods(backend, settings) };
    plain = meteringMethods(backend, { limits: {}, percentile: 0.5, uncongestedFee: 1_000_000n });
    // Block 1: three transfers paying different tips (the priority-fee sample).
    for (const [i, tip] of [
      [1, 3_000n],
      [2, 2_000n],
      [3, 1_000n],
    ] as const)
      await pool.addRaw(sign(i, { tip }));
    await seq.sealOne();
  }, 60_000);

  afterAll(async () => {
    await dev?.close();
  });

  describe("eth_sendBundle", () => {
    it("pools the bundle's transaction and answers Base's bundle hash; the sequencer seals it", async () => {
      const raw = sign(4);
      const hash = hashOf(raw);
      const r = (await rpc("eth_sendBundle", [{ txs: [to0x(raw)], blockNumber: "0x2", revertingTxHashes: [hash] }])) as { bundleHash: string };
      expect(r).toEqual({ bundleHash: to0x(keccak256(hexToBytes(hash as `0x${string}`))) });
      expect(pool.get(hexToBytes(hash as `0x${string}`))).toBeDefined();
      const n = await seq.sealOne();
      expect(includes(n, hash)).toBe(true);
    });

    it("answers Base's ingress errors for bundles past its limits", async () => {
      const one = sign(5, {}, 0n);
      const h = hashOf(one);
      const base = { blockNumber: "0x1", revertingTxHashes: [h] };
      expect(await rpcError("eth_sendBundle", [{ ...base, txs: [] }])).toEqual({ code: -32602, message: "Bundle cannot have empty transactions" });
      const four = [0n, 1n, 2n, 3n].map((n) => sign(5, {}, n));
      expect(await rpcError("eth_sendBundle", [{ blockNumber: "0x1", txs: four.map(to0x), revertingTxHashes: four.map(hashOf) }])).toEqual({
        code: -32602,
        message: "Bundle can only contain 3 transactions",
      });
      // Two transactions of 16M gas (EIP-7825's per-transaction cap) exceed the bundle's 25M.
      const heavy = [0n, 1n].map((n) => sign(5, { gasLimit: 16_000_000n }, n));
      expect(await rpcError("eth_sendBundle", [{ blockNumber: "0x1", txs: heavy.map(to0x), revertingTxHashes: heavy.map(hashOf) }])).toEqual({
        code: -32602,
        message: "Bundle gas limit exceeds maximum allowed",
      });
      const later = "0x" + (Math.floor(Date.now() / 1000) + 7200).toString(16);
      expect(await rpcError("eth_sendBundle", [{ ...base, txs: [to0x(one)], maxTimestamp: later }])).toEqual({ code: -32602, message: "Bundle cannot be more than 1 hour in the future" });
      expect(await rpcError("eth_sendBundle", [{ ...base, txs: [to0x(one)], droppingTxHashes: [h] }])).toEqual({ code: -32602, message: "Partial transaction dropping is not supported" });
      expect(await rpcError("eth_sendBundle", [{ blockNumber: "0x1", txs: [to0x(one)] }])).toEqual({
        code: -32602,
        message: "Revert protection is not supported. reverting_tx_hashes must include all hashes",
      });
      expect(await rpcError("eth_sendBundle", [{ ...base, txs: [to0x(one)], replacementUuid: "not-a-uuid" }])).toEqual({ code: -32602, message: "Invalid UUID: not-a-uuid" });
      expect(await rpcError("eth_sendBundle", [{ ...base, txs: ["0x"] }])).toEqual({ code: -32000, message: "empty transaction data" });
      expect(await rpcError("eth_sendBundle", [{ ...base, txs: ["0x02c0"] }])).toEqual({ code: -32000, message: "failed to decode signed transaction" });
      // Nothing of the refused bundles reached the pool.
      expect(pool.get(hexToBytes(h as `0x${string}`))).toBeUndefined();
    });

    it("answers jsonrpsee's Invalid params for a malformed bundle object", async () => {
      const e = await rpcError("eth_sendBundle", [{ txs: [] }]);
      expect(e).toMatchObject({ code: -32602, message: "Invalid params", data: "missing field `blockNumber`" });
      expect(await rpcError("eth_sendBundle", ["0x1234"])).toMatchObject({ code: -32602, message: "Invalid params" });
      expect(await rpcError("eth_sendBundle", [{ txs: "0x00", blockNumber: "0x1" }])).toMatchObject({ code: -32602, message: "Invalid params" });
    });
  });

  describe("base_meterBundle", () => {
    it("answers Base's shape with measured times on top of the latest block", async () => {
      const raw = sign(6, { value: 5n });
      const r = (await rpc("base_meterBundle", [{ txs: [to0x(raw)], blockNumber: "0x0" }])) as Record<string, unknown> & { results: Record<string, unknown>[] };
      expect(Object.keys(r)).toEqual(["bundleGasPrice", "bundleHash", "coinbaseDiff", "ethSentToCoinbase", "gasFees", "results", "stateBlockNumber", "totalGasUsed", "totalExecutionTimeUs", "stateRootTimeUs"]);
      const fees = 21_000n * 10n ** 10n;
      expect(r).toMatchObject({
        bundleGasPrice: "0x2540be400",
        bundleHash: to0x(keccak256(keccak256(raw))),
        coinbaseDiff: "0x" + fees.toString(16),
        ethSentToCoinbase: "0x0",
        gasFees: "0x" + fees.toString(16),
        stateBlockNumber: Number(chain.head.header.number),
        totalGasUsed: 21_000,
      });
      const tx = r.results[0]!;
      expect(Object.keys(tx)).toEqual(["coinbaseDiff", "ethSentToCoinbase", "fromAddress", "gasFees", "gasPrice", "gasUsed", "toAddress", "txHash", "value", "executionTimeUs"]);
      expect(tx).toMatchObject({ fromAddress: accounts[6]!.address, gasUsed: 21_000, gasPrice: "0x2540be400", toAddress: "0x000000000000000000000000000000000000bEEF", txHash: hashOf(raw), value: "0x5" });
      // Measured: integers; the total spans the transactions and the state root.
      const total = r.totalExecutionTimeUs as number;
      expect(Number.isInteger(tx.executionTimeUs) && Number.isInteger(total) && Number.isInteger(r.stateRootTimeUs)).toBe(true);
      expect(total).toBeGreaterThanOrEqual((tx.executionTimeUs as number) + (r.stateRootTimeUs as number));
      // Metering does not touch the pool or the chain.
      expect(pool.get(keccak256(raw))).toBeUndefined();
      nonces.set(6, 0n);
    });

    it("meters future nonces (each sender starts at its first transaction's) and answers Base's errors", async () => {
      const ahead = sign(7, {}, 5n);
      const r = (await rpc("base_meterBundle", [{ txs: [to0x(ahead)], blockNumber: "0x0" }])) as { totalGasUsed: number };
      expect(r.totalGasUsed).toBe(21_000);
      const broke = sign(8, { value: 10n ** 30n }, 0n);
      const e = await rpcError("base_meterBundle", [{ txs: [to0x(broke)], blockNumber: "0x0" }]);
      expect(e.code).toBe(-32603);
      expect(e.message).toMatch(new RegExp(`^Bundle metering failed: Transaction ${hashOf(broke)} validation failed: Insufficient funds for transfer: \\d+, account balance: \\d+$`));
      const bad = await rpcError("base_meterBundle", [{ txs: ["0x02c0"], blockNumber: "0x0" }]);
      expect(bad.code).toBe(-32602);
      expect(bad.message).toMatch(/^Failed to parse bundle: Failed to decode transaction: /);
      expect(await rpcError("base_meterBundle", [{ txs: [] }])).toMatchObject({ code: -32602, message: "Invalid params" });
    });
  });

  describe("base_meterBlockByHash / base_meterBlockByNumber", () => {
    it("re-executes a stored block: Base's shape, every transaction, times that add up", async () => {
      const block = chain.getBlockByNumber(1n)!;
      const byNumber = (await rpc("base_meterBlockByNumber", ["0x1"])) as Record<string, unknown> & { transactions: { txHash: string; gasUsed: number; executionTimeUs: number }[] };
      expect(Object.keys(byNumber)).toEqual(["blockHash", "blockNumber", "signerRecoveryTimeUs", "executionTimeUs", "stateRootTimeUs", "totalTimeUs", "transactions"]);
      expect(byNumber.blockHash).toBe(to0x(block.hash()));
      expect(byNumber.blockNumber).toBe(1);
      expect(byNumber.transactions.map((t) => t.txHash)).toEqual(block.transactions.map((t) => hashOf(t.serialize())));
      const receipts = chain.store.getReceipts(block.hash())!;
      let prev = 0n;
      byNumber.transactions.forEach((t, i) => {
        expect(BigInt(t.gasUsed)).toBe(receipts[i]!.cumulativeGasUsed - prev);
        prev = receipts[i]!.cumulativeGasUsed;
      });
      const sum = (byNumber.signerRecoveryTimeUs as number) + (byNumber.executionTimeUs as number) + (byNumber.stateRootTimeUs as number);
      expect(byNumber.totalTimeUs).toBe(sum);
      expect(byNumber.executionTimeUs).toBeGreaterThanOrEqual(byNumber.transactions.reduce((a, t) => a + t.executionTimeUs, 0));
      const byHash = (await rpc("base_meterBlockByHash", [to0x(block.hash())])) as typeof byNumber;
      expect(byHash.transactions.map((t) => [t.txHash, t.gasUsed])).toEqual(byNumber.transactions.map((t) => [t.txHash, t.gasUsed]));
      const latest = (await rpc("base_meterBlockByNumber", ["latest"])) as { blockNumber: number };
      expect(latest.blockNumber).toBe(Number(chain.head.header.number));
    });

    it("answers Base's errors for unknown blocks, genesis and malformed parameters", async () => {
      expect(await rpcError("base_meterBlockByNumber", ["0x3e7"])).toEqual({ code: -32602, message: "Block not found: Number(999)" });
      const unknown = "0x" + "ab".repeat(32);
      expect(await rpcError("base_meterBlockByHash", [unknown])).toEqual({ code: -32602, message: `Block not found: ${unknown}` });
      expect(await rpcError("base_meterBlockByNumber", ["0x0"])).toEqual({ code: -32603, message: "Block metering failed: Parent header not found: 0x" + "00".repeat(32) });
      expect((await rpcError("base_meterBlockByHash", ["0x12"])).code).toBe(-32602);
      expect((await rpcError("base_meterBlockByNumber", [])).code).toBe(-32602);
    });
  });

  describe("base_meteredPriorityFeePerGas", () => {
    it("answers Base's error when no resource limit is configured", async () => {
      const raw = sign(9, {}, 0n);
      expect(await callTableError(plain, "base_meteredPriorityFeePerGas", [{ txs: [to0x(raw)], blockNumber: "0x0" }])).toEqual({ code: -32603, message: "Priority fee estimation not configured" });
    });

    it("estimates against the latest block's metered transactions", async () => {
      // The latest block: three transfers with tips 3000, 2000, 1000 wei (and the deposit, left out).
      for (const [i, tip] of [
        [1, 3_000n],
        [2, 2_000n],
        [3, 1_000n],
      ] as const)
        await pool.addRaw(sign(i, { tip }));
      await seq.sealOne();
      const raw = sign(9, {}, 0n);
      const r = (await rpc("base_meteredPriorityFeePerGas", [{ txs: [to0x(raw)], blockNumber: "0x0" }])) as Record<string, unknown> & { resourceEstimates: Record<string, unknown>[] };
      expect(r.totalGasUsed).toBe(21_000);
      expect(r.blocksSampled).toBe(1);
      // Gas: 60 000 per block, the bundle needs 21 000: only the 3000-tip transfer keeps its room beside it.
      const gas = r.resourceEstimates.find((e) => e.resource === "gasUsed")!;
      expect(gas).toEqual({ resource: "gasUsed", thresholdPriorityFee: "0xbb8", recommendedPriorityFee: "0xbb8", cumulativeUsage: "0x5208", thresholdTxCount: 1, totalTransactions: 3 });
      // DA: uncongested (1 MB), the default fee.
      const da = r.resourceEstimates.find((e) => e.resource === "dataAvailability")!;
      expect(da).toMatchObject({ thresholdPriorityFee: "0xf4240", recommendedPriorityFee: "0xf4240", thresholdTxCount: 3, totalTransactions: 3 });
      expect(r.resourceEstimates.map((e) => e.resource)).toEqual(["gasUsed", "executionTime", "dataAvailability"]);
      expect(r.priorityFee).toBe("0xf4240");
      expect(BigInt(da.cumulativeUsage as string)).toBeGreaterThan(0n);
      expect(flzCompressLen(raw)).toBeGreaterThan(0);
    });
  });

  describe("miner_setGasLimit / miner_setMaxDASize", () => {
    it("miner_setGasLimit caps the gas pool transactions get; 0 restores the header's", async () => {
      expect(await rpc("miner_setGasLimit", [1_000_000])).toBe(true);
      const big = sign(4, { gasLimit: 1_500_000n });
      const fits = sign(9);
      await pool.addRaw(big);
      await pool.addRaw(fits);
      const n = await seq.sealOne();
      expect(includes(n, hashOf(big))).toBe(false);
      expect(includes(n, hashOf(fits))).toBe(true);
      expect(pool.get(keccak256(big))).toBeDefined();
      // The header's gas limit is the attributes' (SystemConfig), as in Base's builder.
      expect(chain.getBlockByNumber(n)!.header.gasLimit).toBe(chain.getBlockByNumber(n - 1n)!.header.gasLimit);
      expect(await rpc("miner_setGasLimit", ["0x0"])).toBe(true);
      const n2 = await seq.sealOne();
      expect(includes(n2, hashOf(big))).toBe(true);
    });

    it("miner_setMaxDASize holds back a transaction whose DA estimate is over the limit, not a small one", async () => {
      expect(await rpc("miner_setMaxDASize", ["0x96", "0x0"])).toBe(true);
      const bulky = sign(5, { data: randomBytes(2_000), gasLimit: 200_000n });
      const small = sign(6);
      await pool.addRaw(bulky);
      await pool.addRaw(small);
      const n = await seq.sealOne();
      expect(includes(n, hashOf(small))).toBe(true);
      expect(includes(n, hashOf(bulky))).toBe(false);
      expect(pool.get(keccak256(bulky))).toBeDefined();
      // The block limit: two small transfers (≥ 100 DA bytes each) do not both fit under 150.
      expect(await rpc("miner_setMaxDASize", [0, 150])).toBe(true);
      const a = sign(7);
      const b = sign(8);
      await pool.addRaw(a);
      await pool.addRaw(b);
      const n2 = await seq.sealOne();
      expect([includes(n2, hashOf(a)), includes(n2, hashOf(b))].filter(Boolean)).toHaveLength(1);
      expect(includes(n2, hashOf(bulky))).toBe(false);
      expect(await rpc("miner_setMaxDASize", [0, 0])).toBe(true);
      const n3 = await seq.sealOne();
      expect(includes(n3, hashOf(bulky))).toBe(true);
    });

    it("refuses malformed limits with -32602", async () => {
      expect((await rpcError("miner_setGasLimit", ["lots"])).code).toBe(-32602);
      expect((await rpcError("miner_setGasLimit", [-1])).code).toBe(-32602);
      expect((await rpcError("miner_setMaxDASize", ["0x1"])).code).toBe(-32602);
      expect((await rpcError("miner_setGasLimit", [])).code).toBe(-32602);
    });
  });
});
