/**
 * End-to-end: the consensus-side RPC (`--rollup.port`) of real `basalt node` processes.
 * (a) A live devnet (1 s blocks): optimism_syncStatus has every op-node key with exact types
 *     (decimal numbers, 32-byte hashes), unsafe_l2 is eth_blockNumber's block, its l1origin and
 *     sequenceNumber are those of the block's L1-attributes deposit, head_l1 is that origin; the
 *     sync check of Base's docs — lag = now − unsafe_l2.timestamp — is small.
 * (b) optimism_outputAtBlock's root recomputed here from the block's state root, the message
 *     passer's storage root (= eth_getProof's storageHash = the Isthmus header's withdrawalsRoot)
 *     and the block hash; healthz and optimism_version give the package version; rollupConfig.
 * (c) A follower (`--follow-rpc`): every L1 field is a zero ref; its L2 refs are the source's blocks.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { bytesToHex, concatBytes, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeL1InfoCalldata } from "../../src/chain/op/l1InfoTx.js";
import { makeTempDir, REPO_ROOT, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";
import { pollUntil } from "../helpers/poll.js";

type Obj = { [k: string]: Json };
type L1Ref = { hash: string; number: number; parentHash: string; timestamp: number };
type L2Ref = L1Ref & { l1origin: { hash: string; number: number }; sequenceNumber: number };

const ZERO = "0x" + "00".repeat(32);
const ZERO_L1: L1Ref = { hash: ZERO, number: 0, parentHash: ZERO, timestamp: 0 };
const L1_FIELDS = ["current_l1", "current_l1_finalized", "head_l1", "safe_l1", "finalized_l1"];
const L2_FIELDS = ["unsafe_l2", "safe_l2", "finalized_l2", "pending_safe_l2", "cross_unsafe_l2", "local_safe_l2"];
/** op-node's SyncStatus key order. */
const SYNC_KEYS = [...L1_FIELDS, "unsafe_l2", "safe_l2", "finalized_l2", "pending_safe_l2", "cross_unsafe_l2", "local_safe_l2"];
const MESSAGE_PASSER = "0x4200000000000000000000000000000000000016";
const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;



const blockNumber = async (url: string): Promise<number> => Number(BigInt((await rpcResult(url, "eth_blockNumber")) as string));
const syncStatus = async (node: NodeHandle): Promise<Record<string, L1Ref | L2Ref>> =>
  (await rpcResult(node.rollupUrl, "optimism_syncStatus")) as unknown as Record<string, L1Ref | L2Ref>;

function expectRefTypes(r: L1Ref | L2Ref, l2: boolean): void {
  const l1Keys = ["hash", "number", "parentHash", "timestamp"];
  expect(Object.keys(r)).toEqual(l2 ? [...l1Keys, "l1origin", "sequenceNumber"] : l1Keys);
  expect(r.hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(r.parentHash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(Number.isInteger(r.number)).toBe(true);
  expect(Number.isInteger(r.timestamp)).toBe(true);
  if (l2) {
    const o = r as L2Ref;
    expect(Object.keys(o.l1origin)).toEqual(["hash", "number"]);
    expect(o.l1origin.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Number.isInteger(o.l1origin.number)).toBe(true);
    expect(Number.isInteger(o.sequenceNumber)).toBe(true);
  }
}

function expectShape(s: Record<string, L1Ref | L2Ref>): void {
  expect(Object.keys(s)).toEqual(SYNC_KEYS);
  for (const k of L1_FIELDS) expectRefTypes(s[k]!, false);
  for (const k of L2_FIELDS) expectRefTypes(s[k]!, true);
}

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await makeTempDir("basalt-e2e-rollup-");
  tempDirs.push(d);
  return d;
}

afterAll(async () => {
  await stopAllProcesses();
  for (const d of tempDirs) await removeDir(d);
});

describe("consensus-side RPC (e2e)", () => {
  let seq: NodeHandle;
  let fol: NodeHandle;
  /** Wall-clock second before the devnet started: its blocks are stamped at or after it. */
  let startedAtS = 0;

  beforeAll(async () => {
    startedAtS = Math.floor(Date.now() / 1000);
    seq = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--dev.block-time", "1"] });
    await pollUntil("devnet block 3", 20_000, async () => ((await blockNumber(seq.url)) >= 3 ? true : undefined));
    fol = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--follow-rpc", seq.url, "--follow.poll-interval", "100"] });
  });

  it("answers optimism_syncStatus in op-node's shape; unsafe_l2 is the head and carries its deposit's L1 origin", async () => {
    // unsafe_l2 equals eth_blockNumber's block when no block was sealed between the two reads.
    const { s, bn } = await pollUntil("a sync status between two equal block numbers", 20_000, async () => {
      const before = await blockNumber(seq.url);
      const status = await syncStatus(seq);
      const after = await blockNumber(seq.url);
      return before === after ? { s: status, bn: before } : undefined;
    });
    expectShape(s);
    const unsafe = s.unsafe_l2 as L2Ref;
    expect(unsafe.number).toBe(bn);
    const block = (await rpcResult(seq.url, "eth_getBlockByNumber", [`0x${bn.toString(16)}`, true])) as Obj;
    expect(unsafe.hash).toBe(block.hash);
    expect(unsafe.parentHash).toBe(block.parentHash);
    expect(unsafe.timestamp).toBe(Number(BigInt(block.timestamp as string)));
    const deposit = (block.transactions as Obj[])[0]!;
    expect(deposit.type).toBe("0x7e");
    const { values } = decodeL1InfoCalldata(hexToBytes(deposit.input as `0x${string}`));
    expect(unsafe.l1origin).toEqual({ hash: bytesToHex(values.hash), number: Number(values.number) });
    expect(unsafe.sequenceNumber).toBe(Number(values.sequenceNumber));
    // The devnet's simulated L1: head_l1 is the head's origin.
    expect((s.head_l1 as L1Ref).hash).toBe(unsafe.l1origin.hash);
    expect((s.head_l1 as L1Ref).number).toBe(unsafe.l1origin.number);
    expect((s.head_l1 as L1Ref).timestamp).toBe(Number(values.timestamp));
    expect(s.cross_unsafe_l2).toEqual(unsafe);
    // The devnet marks each block safe and finalized as it seals it.
    expect((s.safe_l2 as L2Ref).number).toBeGreaterThan(0);
    expect(s.local_safe_l2).toEqual(s.safe_l2);
    // The devnet stamps blocks with the wall clock (Base's sync check, lag = now − unsafe_l2.timestamp,
    // needs it): the head is stamped after the node started and not after now (bounds a busy machine only widens).
    expect(unsafe.timestamp).toBeGreaterThanOrEqual(startedAtS);
    expect(unsafe.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it("answers optimism_outputAtBlock with a root recomputed from the block, state and message passer", async () => {
    const n = await blockNumber(seq.url);
    const tag = `0x${n.toString(16)}`;
    const out = (await rpcResult(seq.rollupUrl, "optimism_outputAtBlock", [tag])) as Obj;
    expect(Object.keys(out)).toEqual(["version", "outputRoot", "blockRef", "withdrawalStorageRoot", "stateRoot", "syncStatus"]);
    const block = (await rpcResult(seq.url, "eth_getBlockByNumber", [tag, false])) as Obj;
    expect((out.blockRef as Obj).hash).toBe(block.hash);
    expect(out.version).toBe(ZERO);
    expect(out.stateRoot).toBe(block.stateRoot);
    expect(out.withdrawalStorageRoot).toBe(block.withdrawalsRoot);
    const proof = (await rpcResult(seq.url, "eth_getProof", [MESSAGE_PASSER, [], tag])) as Obj;
    expect(out.withdrawalStorageRoot).toBe(proof.storageHash);
    const word = (h: Json | undefined): Uint8Array => hexToBytes(h as `0x${string}`);
    const pre = concatBytes(new Uint8Array(32), word(block.stateRoot), word(out.withdrawalStorageRoot), word(block.hash));
    expect(out.outputRoot).toBe(bytesToHex(keccak_256(pre)));
    expectShape(out.syncStatus as unknown as Record<string, L1Ref | L2Ref>);
  });

  it("serves healthz, optimism_version, optimism_rollupConfig; refuses optimism_safeHeadAtL1Block", async () => {
    expect(await rpcResult(seq.rollupUrl, "healthz")).toEqual({ version: PACKAGE_VERSION });
    expect(await rpcResult(seq.rollupUrl, "optimism_version")).toBe(PACKAGE_VERSION);
    const cfg = (await rpcResult(seq.rollupUrl, "optimism_rollupConfig")) as Obj;
    const genesis = (await rpcResult(seq.url, "eth_getBlockByNumber", ["0x0", false])) as Obj;
    expect(cfg.l2_chain_id).toBe(845337);
    expect(cfg.block_time).toBe(1);
    expect((cfg.genesis as Obj).l2).toEqual({ hash: genesis.hash, number: 0 });
    expect((cfg.genesis as Obj).l2_time).toBe(Number(BigInt(genesis.timestamp as string)));
    expect((await rpcCall(seq.rollupUrl, "optimism_safeHeadAtL1Block", ["latest"])).error?.code).toBe(-32601);
    // The public port does not serve the rollup methods, nor the rollup port the eth_ ones.
    expect((await rpcCall(seq.url, "optimism_syncStatus")).error?.code).toBe(-32601);
    expect((await rpcCall(seq.rollupUrl, "eth_blockNumber")).error?.code).toBe(-32601);
  });

  it("answers GET /health with the sync check as an HTTP status (load balancers, readiness probes)", async () => {
    const ok = await fetch(`${seq.rollupUrl}/health?max_lag=30`);
    const body = (await ok.json()) as { healthy: boolean; lag: number; unsafe_l2: { number: number } };
    // Healthy exactly when the reported lag is within max_lag; the status follows.
    expect(body.healthy).toBe(body.lag <= 30);
    expect(ok.status === 200).toBe(body.healthy);
    expect(body.lag).toBeGreaterThanOrEqual(0);
    // max_lag=0: healthy only within the head's own second, so the status must follow the reported lag.
    const stale = await fetch(`${seq.rollupUrl}/health?max_lag=0`);
    expect([200, 503]).toContain(stale.status);
    const s2 = (await stale.json()) as { healthy: boolean; lag: number };
    expect(stale.status === 200).toBe(s2.lag === 0);
    expect((await fetch(`${seq.rollupUrl}/other`)).status).toBe(405);
  });

  it("zeroes every L1 field in follow mode and reports the source's blocks as L2 refs", async () => {
    await pollUntil(`follower at block 3\n${fol.outputTail(20)}`, 20_000, async () => ((await blockNumber(fol.url)) >= 3 ? true : undefined));
    const s = await syncStatus(fol);
    expectShape(s);
    for (const k of L1_FIELDS) expect(s[k]).toEqual(ZERO_L1);
    const unsafe = s.unsafe_l2 as L2Ref;
    const same = (await rpcResult(seq.url, "eth_getBlockByNumber", [`0x${unsafe.number.toString(16)}`, false])) as Obj;
    expect(unsafe.hash).toBe(same.hash);
    expect(unsafe.l1origin.number).toBeGreaterThan(0);
    expect(await rpcResult(fol.url, "eth_syncing")).toBe(false);
  });
});
