/**
 * End-to-end: a real `basalt node --network devnet-l1 --dev.block-time 1` (basalt's local L1)
 * in a temp datadir, its beacon API on a port of its own choosing (named in the start-up log).
 * Chain id 0x384; blocks on slot boundaries; a plain transfer; a blob transaction in its network
 * form (Blob4844Tx + `commitBlob`) mined with its blob gas, its blob served at the block's slot by
 * `/eth/v1/beacon/blobs/{slot}` and retrieved and verified by `BeaconClient.blobsForBlock`; a bad
 * proof refused; safe and finalized at their distances; the blob served again after a restart;
 * `debug_setHead` unwinding the block, its transaction and its blob.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { RLP } from "@ethereumjs/rlp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts } from "../../src/chain/devnet.js";
import { DEVNET_L1_GENESIS_TIMESTAMP, devnetL1Genesis } from "../../src/chain/devnetL1.js";
import { L1DEV_FINALIZED_DISTANCE, L1DEV_SAFE_DISTANCE } from "../../src/sequencer/constants.js";
import { BeaconClient } from "../../src/derivation/beaconClient.js";
import { to0x } from "../../src/util/bytes.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { signedBlobTx, testBlob, type SignedBlobTx } from "../helpers/blobTx.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";

const CHAIN_ID = 900n;
const SLOT_SECONDS = 1n;
const NODE_ARGS = ["--network", "devnet-l1", "--dev.block-time", String(SLOT_SECONDS), "--beacon.port", "0"];
const common = commonFromGenesis(devnetL1Genesis());
const [acct0, acct1] = devAccounts() as [{ address: string; privateKey: string }, { address: string; privateKey: string }];

type Block = { [k: string]: Json };

describe("devnet-l1 node (e2e)", () => {
  let datadir = "";
  let node: NodeHandle;
  let beaconUrl = "";
  let blobTx: SignedBlobTx;
  let blobBlock: Block;

  const call = (method: string, params: Json[] = []): Promise<Json> => rpcResult(node.url, method, params);
  const block = async (tag: string): Promise<Block> => (await call("eth_getBlockByNumber", [tag, false])) as Block;
  const num = (b: Block): bigint => BigInt(b.number as string);
  const slotOf = (b: Block): bigint => (BigInt(b.timestamp as string) - DEVNET_L1_GENESIS_TIMESTAMP) / SLOT_SECONDS;
  const blobsAt = (slot: bigint): Promise<Response> => fetch(`${beaconUrl}/eth/v1/beacon/blobs/${slot}`);

  /** Starts the node and reads its beacon API's URL from the start-up log. */
  async function start(): Promise<void> {
    node = await startNode({ datadir, args: NODE_ARGS });
    beaconUrl = await pollUntil("the start-up log naming the beacon API", 20_000, async () => {
      for (const line of node.stdout().split("\n")) {
        if (!line.includes("basalt node started")) continue;
        const beacon = (JSON.parse(line) as { beacon?: string }).beacon;
        if (beacon !== undefined) return beacon;
      }
      return undefined;
    });
  }

  async function waitReceipt(hash: string): Promise<Block> {
    return pollUntil(`receipt of ${hash}`, 30_000, async () => ((await call("eth_getTransactionReceipt", [hash])) as Block | null) ?? undefined, 200);
  }

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-l1dev-");
    await start();
  }, 60_000);

  afterAll(async () => {
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("serves chain id 0x384 and produces blocks on slot boundaries", async () => {
    expect(await call("eth_chainId")).toBe("0x384");
    const first = await block("latest");
    const later = await pollUntil("two more blocks", 20_000, async () => {
      const b = await block("latest");
      return num(b) >= num(first) + 2n ? b : undefined;
    });
    expect((BigInt(later.timestamp as string) - DEVNET_L1_GENESIS_TIMESTAMP) % SLOT_SECONDS).toBe(0n);
    expect(slotOf(later)).toBeGreaterThan(slotOf(first));
    expect(later.miner).toBe(`0x${"00".repeat(20)}`);
  });

  it("mines a plain transfer", async () => {
    const tx = createFeeMarket1559Tx(
      { chainId: CHAIN_ID, nonce: 0n, maxPriorityFeePerGas: 10n ** 9n, maxFeePerGas: 10n ** 11n, gasLimit: 21_000n, to: acct1.address as `0x${string}`, value: 10n ** 18n },
      { common },
    ).sign(hexToBytes(acct0.privateKey as `0x${string}`));
    const hash = (await call("eth_sendRawTransaction", [to0x(tx.serialize())])) as string;
    const receipt = await waitReceipt(hash);
    expect(receipt.status).toBe("0x1");
    expect(receipt.type).toBe("0x2");
  });

  it("refuses a blob transaction whose proof does not verify", async () => {
    const good = await signedBlobTx({ common, chainId: CHAIN_ID, nonce: 1n, privateKey: acct0.privateKey, to: acct1.address, blobs: [testBlob(1)] });
    const items = RLP.decode(good.raw.subarray(1)) as unknown[];
    // The proof of another blob: the commitment still matches the versioned hash, the proof does not verify.
    const other = await signedBlobTx({ common, chainId: CHAIN_ID, nonce: 1n, privateKey: acct0.privateKey, to: acct1.address, blobs: [testBlob(2)] });
    const bad = new Uint8Array([3, ...RLP.encode([items[0], items[1], items[2], [other.blobs[0]!.proof]] as never)]);
    const r = await rpcCall(node.url, "eth_sendRawTransaction", [to0x(bad)]);
    expect(r.error?.code).toBe(-32000);
    expect(r.error?.message).toMatch(/^blob sidecar proof 0 does not verify blob 0 against commitment 0/);
  }, 60_000);

  it("mines a blob transaction and serves its blob at the block's slot", async () => {
    blobTx = await signedBlobTx({ common, chainId: CHAIN_ID, nonce: 1n, privateKey: acct0.privateKey, to: acct1.address, blobs: [testBlob(7)] });
    expect(await call("eth_sendRawTransaction", [to0x(blobTx.raw)])).toBe(blobTx.hash);
    const receipt = await waitReceipt(blobTx.hash);
    expect(receipt.status).toBe("0x1");
    expect(receipt.type).toBe("0x3");
    blobBlock = (await call("eth_getBlockByHash", [receipt.blockHash!, false])) as Block;
    expect(blobBlock.blobGasUsed).toBe("0x20000");
    expect(blobBlock.transactions).toEqual([blobTx.hash]);

    const res = await blobsAt(slotOf(blobBlock));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: string[] }).data).toEqual([to0x(blobTx.blobs[0]!.blob)]);
    const client = new BeaconClient({ url: beaconUrl });
    const blobs = await client.blobsForBlock(BigInt(blobBlock.timestamp as string), [{ index: 0, hash: blobTx.blobs[0]!.versionedHash }]);
    expect(blobs.map(to0x)).toEqual([to0x(blobTx.blobs[0]!.blob)]);
  }, 60_000);

  it("answers safe and finalized at their distances behind the head", async () => {
    const triple = await pollUntil("a head with safe and finalized read at the same head", 30_000, async () => {
      const latest = await block("latest");
      if (num(latest) <= L1DEV_FINALIZED_DISTANCE) return undefined;
      const [safe, finalized] = [await block("safe"), await block("finalized")];
      // Read again: the head did not move while safe and finalized were read.
      return num(await block("latest")) === num(latest) ? { latest, safe, finalized } : undefined;
    });
    expect(num(triple.safe)).toBe(num(triple.latest) - L1DEV_SAFE_DISTANCE);
    expect(num(triple.finalized)).toBe(num(triple.latest) - L1DEV_FINALIZED_DISTANCE);
  }, 60_000);

  it("serves the blob again after a restart", async () => {
    await node.stop();
    await start();
    const res = await blobsAt(slotOf(blobBlock));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: string[] }).data).toEqual([to0x(blobTx.blobs[0]!.blob)]);
    // And the chain goes on from where it stopped.
    const head = num(await block("latest"));
    await pollUntil("a block after the restart", 20_000, async () => (num(await block("latest")) > head ? true : undefined));
    expect(await call("evm_mine")).toBe("0x0");
  }, 60_000);

  it("debug_setHead unwinds the blob's block: the blob leaves the beacon API, the transaction is not mined again", async () => {
    const n = num(blobBlock);
    expect(await call("debug_setHead", [`0x${(n - 1n).toString(16)}`])).toBeNull();
    expect((await blobsAt(slotOf(blobBlock))).status).toBe(404);
    expect(await call("eth_getTransactionByHash", [blobTx.hash])).toBeNull();
    // Production goes on from the new head with other blocks; the unwound transaction stays out.
    const replaced = await pollUntil("a new block at the unwound height", 20_000, async () => {
      const b = (await call("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as Block | null;
      return b ?? undefined;
    });
    expect(replaced.hash).not.toBe(blobBlock.hash);
    expect(slotOf(replaced)).toBeGreaterThan(slotOf(blobBlock));
    expect(replaced.transactions).toEqual([]);
    expect(await call("eth_getTransactionReceipt", [blobTx.hash])).toBeNull();
    const above = await rpcCall(node.url, "debug_setHead", [`0x${(num(await block("latest")) + 100n).toString(16)}`]);
    expect(above.error?.message).toMatch(/is above the head .*debug_setHead only rewinds/);
    // No production failure or other error was logged along the way.
    expect(node.stdout().split("\n").filter((l) => l.includes('"level":50'))).toEqual([]);
  }, 60_000);
});
