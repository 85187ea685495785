/**
 * reth's extra reads on a sealed devnet chain, checked against the standard methods' answers:
 * eth_getHeaderByNumber/ByHash (the block answer without its body keys, `size` kept),
 * eth_getRawTransactionByHash and the by-block raw forms (the envelope, which hashes to the
 * transaction hash; a pooled transaction as sent), eth_getTransactionBySenderAndNonce (the
 * standard by-hash answer of every mined transaction; the mempool's), eth_getAccount (eth_getProof's account fields,
 * null for an absent account, the proof window) and eth_getAccountInfo (balance, nonce, code).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Chain } from "../../src/blockchain/chain.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { stateMethods } from "../../src/rpc/methods/state.js";
import { callMethods } from "../../src/rpc/methods/call.js";
import { traceMethods } from "../../src/rpc/methods/trace.js";
import type { MethodTable } from "../../src/rpc/types.js";
import type { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import type { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { keccak256 } from "../../src/util/keccak.js";
import { isDeposit } from "../../src/chain/op/depositTx.js";
import { buildWorkload } from "../../bench/workload/workload.js";
import { balanceOfCalldata, transferCalldata } from "../../bench/workload/contracts.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-reth-extras-");

describe("reth's extra reads", () => {
  let dev: SealingDevnet;
  let chain: Chain;
  let seq: OpDevSequencer;
  let pool: TxPool;
  let methods: MethodTable;
  let windowed: MethodTable;
  let workload: ReturnType<typeof buildWorkload>;
  let pooledRaw: Uint8Array;

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    ({ chain, pool, seq } = dev);
    const backend = devBackend(dev);
    methods = { ...blockMethods(backend), ...stateMethods(backend), ...callMethods(backend), ...traceMethods(backend) };
    windowed = stateMethods(devBackend(dev, { settings: { ethProofWindow: 1 } }));
    workload = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 3, txsPerBlock: 10 });
    for (const round of [...workload.setup, ...workload.blocks.slice(0, 2)]) {
      for (const raw of round) await pool.addRaw(raw);
      await seq.sealOne();
    }
    // One transaction left in the mempool (the last block's first, in nonce order).
    pooledRaw = workload.blocks[2]![0]!;
    await pool.addRaw(pooledRaw);
  }, 60_000);

  afterAll(async () => {
    await dev?.close();
  });

  it("eth_getHeaderByNumber/ByHash: the block answer's header, size included", async () => {
    const head = chain.head.header.number;
    expect(head).toBeGreaterThan(1n);
    for (let n = 0n; n <= head; n++) {
      const hex = `0x${n.toString(16)}`;
      const block = (await callTable(methods, "eth_getBlockByNumber", [hex, false])) as Record<string, unknown>;
      const { transactions: _t, uncles: _u, withdrawals: _w, ...header } = block;
      const byNumber = (await callTable(methods, "eth_getHeaderByNumber", [hex])) as Record<string, unknown>;
      expect(byNumber).toEqual(header);
      expect(Object.keys(byNumber)).toEqual(Object.keys(header));
      expect(byNumber.size).toBe(block.size);
      expect(await callTable(methods, "eth_getHeaderByHash", [block.hash])).toEqual(header);
    }
    expect(await callTable(methods, "eth_getHeaderByNumber", ["latest"])).toEqual(await callTable(methods, "eth_getHeaderByNumber", [`0x${head.toString(16)}`]));
    expect(await callTable(methods, "eth_getHeaderByNumber", [`0x${(head + 1n).toString(16)}`])).toBeNull();
    expect(await callTable(methods, "eth_getHeaderByHash", [to0x(new Uint8Array(32).fill(7))])).toBeNull();
    expect((await callTableError(methods, "eth_getHeaderByNumber", [])).code).toBe(-32602);
  });

  it("eth_getRawTransactionByHash and the by-block forms: the envelope of each transaction; the mempool's as sent", async () => {
    let seen = 0;
    for (let n = 1n; n <= chain.head.header.number; n++) {
      const block = chain.getBlockByNumber(n)!;
      const hex = `0x${n.toString(16)}`;
      for (let i = 0; i < block.transactions.length; i++) {
        const hash = to0x(block.transactions[i]!.hash());
        const raw = (await callTable(methods, "eth_getRawTransactionByHash", [hash])) as string;
        expect(to0x(keccak256(Buffer.from(raw.slice(2), "hex")))).toBe(hash);
        expect(await callTable(methods, "eth_getRawTransactionByBlockNumberAndIndex", [hex, `0x${i.toString(16)}`])).toBe(raw);
        expect(await callTable(methods, "eth_getRawTransactionByBlockHashAndIndex", [to0x(block.hash()), `0x${i.toString(16)}`])).toBe(raw);
        seen++;
      }
      expect(await callTable(methods, "eth_getRawTransactionByBlockNumberAndIndex", [hex, `0x${block.transactions.length.toString(16)}`])).toBeNull();
    }
    expect(seen).toBeGreaterThan(12);
    // The workload's own bytes for a mined user transaction, and the pooled one.
    const mined = workload.blocks[0]![0]!;
    expect(await callTable(methods, "eth_getRawTransactionByHash", [to0x(keccak256(mined))])).toBe(to0x(mined));
    expect(await callTable(methods, "eth_getRawTransactionByHash", [to0x(keccak256(pooledRaw))])).toBe(to0x(pooledRaw));
    expect(await callTable(methods, "eth_getRawTransactionByHash", [to0x(new Uint8Array(32).fill(9))])).toBeNull();
    expect(await callTable(methods, "eth_getRawTransactionByBlockHashAndIndex", [to0x(new Uint8Array(32).fill(9)), "0x0"])).toBeNull();
  });

  it("eth_getTransactionBySenderAndNonce: each mined transaction by its sender's nonce, the mempool's, null past them", async () => {
    let found = 0;
    for (let n = 1n; n <= chain.head.header.number; n++) {
      const block = chain.getBlockByNumber(n)!;
      const senders = chain.getSenders(block.hash());
      for (let i = 0; i < block.transactions.length; i++) {
        const tx = block.transactions[i]!;
        if (isDeposit(tx)) continue;
        const byHash = await callTable(methods, "eth_getTransactionByHash", [to0x(tx.hash())]);
        expect(await callTable(methods, "eth_getTransactionBySenderAndNonce", [to0x(senders[i]!), `0x${tx.nonce.toString(16)}`])).toEqual(byHash);
        found++;
      }
    }
    expect(found).toBeGreaterThan(12);
    const pooled = pool.get(keccak256(pooledRaw))!;
    const fromPool = (await callTable(methods, "eth_getTransactionBySenderAndNonce", [to0x(pooled.sender), `0x${pooled.tx.nonce.toString(16)}`])) as { hash: string; blockHash: unknown };
    expect([fromPool.hash, fromPool.blockHash]).toEqual([to0x(keccak256(pooledRaw)), null]);
    expect(await callTable(methods, "eth_getTransactionBySenderAndNonce", [to0x(pooled.sender), "0xffff"])).toBeNull();
    expect(await callTable(methods, "eth_getTransactionBySenderAndNonce", ["0x" + "ab".repeat(20), "0x0"])).toBeNull();
  });

  it("eth_callMany: calls in order, each seeing the earlier ones; values or errors per bundle", async () => {
    const token = to0x(workload.tokens[0]!);
    const { from } = workload.probe;
    const recipient = new Uint8Array(20).fill(0x77);
    const balance = async (): Promise<bigint> => BigInt((await callTable(methods, "eth_call", [{ to: token, data: to0x(balanceOfCalldata(recipient)) }, "latest"])) as string);
    const before = await balance();
    const transfer = { from: to0x(from), to: token, data: to0x(transferCalldata(recipient, 5n)) };
    const query = { to: token, data: to0x(balanceOfCalldata(recipient)) };
    const word = (v: bigint): string => `0x${v.toString(16).padStart(64, "0")}`;
    const r = (await callTable(methods, "eth_callMany", [[{ transactions: [transfer, query] }, { transactions: [transfer, query] }], { blockNumber: "latest" }])) as { value?: string; error?: string }[][];
    expect(r.map((bundle) => bundle.map((c) => c.value !== undefined))).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(r[0]![1]!.value).toBe(word(before + 5n));
    expect(r[1]![1]!.value).toBe(word(before + 10n));
    // Nothing was committed, and a call that fails answers its error.
    expect(await balance()).toBe(before);
    const broke = { from: "0x" + "99".repeat(20), to: token, data: to0x(transferCalldata(recipient, 10n ** 30n)) };
    const failed = (await callTable(methods, "eth_callMany", [[{ transactions: [broke] }]])) as { value?: string; error?: string }[][];
    expect(failed[0]![0]!.value).toBeUndefined();
    expect(failed[0]![0]!.error).toMatch(/^execution reverted/);
    // State overrides apply to every bundle.
    const overridden = (await callTable(methods, "eth_callMany", [[{ transactions: [{ to: token, data: "0x" }] }], {}, { [token]: { code: "0x602a60005260206000f3" } }])) as { value?: string }[][];
    expect(overridden[0]![0]!.value).toBe(word(42n));
  });

  it("eth_getAccount: eth_getProof's account fields in reth's order, null when absent, inside the proof window", async () => {
    const contract = to0x(workload.tokens[0]!);
    const sender = to0x(workload.senders[0]!);
    for (const addr of [contract, sender]) {
      const proof = (await callTable(methods, "eth_getProof", [addr, [], "latest"])) as Record<string, string>;
      const acc = (await callTable(methods, "eth_getAccount", [addr, "latest"])) as Record<string, string>;
      expect(Object.keys(acc)).toEqual(["nonce", "balance", "storageRoot", "codeHash"]);
      expect(acc).toEqual({ nonce: proof.nonce, balance: proof.balance, storageRoot: proof.storageHash, codeHash: proof.codeHash });
    }
    const code = (await callTable(methods, "eth_getCode", [contract, "latest"])) as string;
    expect(((await callTable(methods, "eth_getAccount", [contract, "latest"])) as { codeHash: string }).codeHash).toBe(to0x(keccak256(Buffer.from(code.slice(2), "hex"))));
    expect(await callTable(methods, "eth_getAccount", ["0x" + "ab".repeat(20), "latest"])).toBeNull();
    // The block is required (reth's BlockId parameter).
    expect((await callTableError(methods, "eth_getAccount", [sender])).code).toBe(-32602);
    // Before the contract existed, it did not.
    expect(await callTable(methods, "eth_getAccount", [contract, "0x0"])).toBeNull();
    // A proof window of one block: the head and its parent answer, older blocks do not.
    const head = chain.head.header.number;
    expect(await callTable(windowed, "eth_getAccount", [sender, `0x${(head - 1n).toString(16)}`])).not.toBeNull();
    expect(await callTableError(windowed, "eth_getAccount", [sender, "0x0"])).toEqual({ code: -32602, message: "distance to target block exceeds maximum proof window" });
  });

  it("eth_getAccountInfo: balance, nonce and code; zeros and empty code for an absent account", async () => {
    const contract = to0x(workload.tokens[0]!);
    const sender = to0x(workload.senders[0]!);
    for (const addr of [contract, sender]) {
      for (const at of ["latest", "0x1"]) {
        expect(await callTable(methods, "eth_getAccountInfo", [addr, at])).toEqual({
          balance: await callTable(methods, "eth_getBalance", [addr, at]),
          nonce: await callTable(methods, "eth_getTransactionCount", [addr, at]),
          code: await callTable(methods, "eth_getCode", [addr, at]),
        });
      }
    }
    expect(((await callTable(methods, "eth_getAccountInfo", [contract, "latest"])) as { code: string }).code.length).toBeGreaterThan(100);
    expect(await callTable(methods, "eth_getAccountInfo", ["0x" + "ab".repeat(20), "latest"])).toEqual({ balance: "0x0", nonce: "0x0", code: "0x" });
  });
});
