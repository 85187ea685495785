/**
 * The L1 source against a real L1 (anvil, spawned on 127.0.0.1): a block's header fields, the
 * transactions to the batch inbox with their senders recovered from the signatures (a batcher's
 * and a stranger's; a transaction elsewhere is not listed), the receipts with block-level log
 * indexes, tags, a block the L1 does not have, and the requests counted by method.
 */
import { createBlob4844Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, createAddressFromPrivateKey, hexToBytes } from "@ethereumjs/util";
import { createCustomCommon, Mainnet, Hardfork } from "@ethereumjs/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../../bench/scenario/anvil.js";
import { customCrypto } from "../../../src/chain/crypto.js";
import { encodeBlob } from "../../../src/derivation/blobCodec.js";
import { commitBlob } from "../../../src/derivation/kzg.js";
import { L1Source } from "../../../src/derivation/l1Source.js";
import { L1Traversal } from "../../../src/derivation/l1Traversal.js";
import { HttpRpcClient } from "../../../src/util/rpcClient.js";

/** anvil's first two default accounts (its well-known test mnemonic). */
const BATCHER_KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const STRANGER_KEY = hexToBytes("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const INBOX = "0xff00000000000000000000000000000000000042";
const L1_CHAIN_ID = 845337n;

let anvil: AnvilNode;
let rpc: HttpRpcClient;
const common = createCustomCommon({ chainId: Number(L1_CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });

async function send(key: Uint8Array, nonce: bigint, to: `0x${string}`, data: Uint8Array): Promise<void> {
  const tx = createFeeMarket1559Tx({ chainId: L1_CHAIN_ID, nonce, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 100_000n, to, data }, { common }).sign(key);
  await rpc.call("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
}

beforeAll(async () => {
  anvil = await startAnvil();
  rpc = new HttpRpcClient(anvil.url);
  await send(BATCHER_KEY, 0n, INBOX, Uint8Array.of(0x00, 1, 2, 3));
  await send(STRANGER_KEY, 0n, INBOX, Uint8Array.of(0x00, 9));
  await send(BATCHER_KEY, 1n, "0x000000000000000000000000000000000000beef", Uint8Array.of(7));
  await rpc.call("evm_mine", []);
}, 60_000);

afterAll(async () => {
  rpc?.close();
  await anvil?.stop();
});

describe("L1 source", () => {
  it("reads a block's header fields and its inbox transactions with recovered senders", async () => {
    const src = new L1Source(rpc, { l1ChainId: L1_CHAIN_ID, batchInbox: INBOX });
    expect(await src.chainId()).toBe(L1_CHAIN_ID);
    const b = (await src.blockByNumber(1n))!;
    expect(b.info.number).toBe(1n);
    const raw = (await rpc.call("eth_getBlockByNumber", ["0x1", false])) as Record<string, string>;
    expect(bytesToHex(b.info.hash)).toBe(raw.hash);
    expect(bytesToHex(b.info.parentHash)).toBe(raw.parentHash);
    expect(b.info.timestamp).toBe(BigInt(raw.timestamp));
    expect(b.info.excessBlobGas).toBe(BigInt(raw.excessBlobGas!));
    expect(bytesToHex(b.info.parentBeaconBlockRoot!)).toBe(raw.parentBeaconBlockRoot);
    expect(b.inboxTxs.map((t) => [bytesToHex(t.from), t.data.kind === "calldata" ? bytesToHex(t.data.data) : "blobs"])).toEqual([
      [createAddressFromPrivateKey(BATCHER_KEY).toString(), "0x00010203"],
      [createAddressFromPrivateKey(STRANGER_KEY).toString(), "0x0009"],
    ]);
    // By hash: from the cache, no request.
    const before = src.requestCount;
    expect((await src.blockByHash(b.info.hash))?.info.number).toBe(1n);
    expect(src.requestCount).toBe(before);
  });

  it("reads receipts with block-level log indexes, tags, and answers undefined past the head; counts requests by method", async () => {
    const src = new L1Source(rpc, { l1ChainId: L1_CHAIN_ID, batchInbox: INBOX });
    const b = (await src.blockByNumber("latest"))!;
    const receipts = await src.receipts(b.info.hash);
    expect(receipts.map((r) => [r.txIndex, r.status])).toEqual([
      [0, true],
      [1, true],
      [2, true],
    ]);
    expect(await src.blockByNumber(99n)).toBeUndefined();
    expect(Object.fromEntries(src.requests)).toEqual({ eth_getBlockByNumber: 2, eth_getBlockReceipts: 1 });
  });
});

describe("L1 source: blob transactions", () => {
  it("lists a blob transaction to the inbox with its recovered sender, versioned hashes and first blob index", async () => {
    const blob = await commitBlob(encodeBlob(Uint8Array.of(0x00, 1, 2, 3)));
    const blobCommon = createCustomCommon({ chainId: Number(L1_CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague, customCrypto: customCrypto() });
    const nonce = BigInt(await rpc.call<string>("eth_getTransactionCount", [createAddressFromPrivateKey(BATCHER_KEY).toString(), "latest"]));
    const tx = createBlob4844Tx(
      {
        chainId: L1_CHAIN_ID, nonce, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 21_000n, to: INBOX, maxFeePerBlobGas: 10n ** 9n,
        blobVersionedHashes: [bytesToHex(blob.versionedHash)], blobs: [bytesToHex(blob.blob)], kzgCommitments: [bytesToHex(blob.commitment)], kzgProofs: [bytesToHex(blob.proof)], networkWrapperVersion: 0,
      },
      { common: blobCommon },
    ).sign(BATCHER_KEY);
    await rpc.call("eth_sendRawTransaction", [bytesToHex(tx.serializeNetworkWrapper())]);
    await rpc.call("evm_mine", []);
    const src = new L1Source(rpc, { l1ChainId: L1_CHAIN_ID, batchInbox: INBOX });
    const b = (await src.blockByNumber("latest"))!;
    expect(b.inboxTxs).toHaveLength(1);
    const [t] = b.inboxTxs;
    expect(bytesToHex(t!.from)).toBe(createAddressFromPrivateKey(BATCHER_KEY).toString());
    expect(t!.type).toBe(3);
    expect(t!.data.kind === "blobs" && t!.data.versionedHashes.map(bytesToHex)).toEqual([bytesToHex(blob.versionedHash)]);
    expect(t!.data.kind === "blobs" && t!.data.firstBlobIndex).toBe(0);
  });
});

describe("L1 traversal", () => {
  it("walks L1 block by block, reports the head, and notices a reorg by the parent hash", async () => {
    const src = new L1Source(rpc, { l1ChainId: L1_CHAIN_ID, batchInbox: INBOX });
    const start = (await src.blockByNumber("latest"))!;
    const walk = new L1Traversal(src, start);
    expect((await walk.advance()).kind).toBe("head");
    await rpc.call("evm_mine", []);
    await rpc.call("evm_mine", []);
    const a = await walk.advance();
    expect(a.kind === "next" && a.block.info.number).toBe(start.info.number + 1n);
    // anvil replaces the last two blocks (ours among them): the next block no longer builds on ours.
    await rpc.call("anvil_reorg", [2, []]);
    const r = await walk.advance();
    expect(r.kind).toBe("reorg");
    expect(walk.origin.info.number).toBe(start.info.number + 1n);
    // Reset to the common ancestor and walk the new branch.
    walk.resetTo(start);
    const b = await walk.advance();
    expect(b.kind).toBe("next");
  });
});
