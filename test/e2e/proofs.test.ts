/**
 * The historical proofs extension in real `basalt` processes. A devnet runs without it for 150
 * blocks of mixed traffic:
 * - ETH transfers to new accounts;
 * - an ERC-20 whose balances are written and cleared;
 * - creations that self-destruct.
 *
 * It is restarted with `--historical-proofs`:
 * - the store initializes at the head and backfills to genesis;
 * - it follows 100 more blocks;
 * - at every block of the window, every `eth_getProof` (one account and its slots, absent ones
 *   included) equals the main store's proof at that block and verifies against the header's state
 *   root, storage proofs against the account's storage root;
 * - every block's `debug_executionWitness` re-executes statelessly, from the witness alone, to
 *   the block's header.
 *
 * Then the head is unwound through the Engine API and a different branch is built on it: after
 * the unwind, and again after the reorg, every check holds, and every proof at a block below the
 * fork point is the same answer as before the unwind (Base's node served the tip's branch nodes
 * for historical blocks after unwinds). A restart with a 10-block window prunes the far end;
 * blocks below the window answer Base's errors. Also covered: the key cap,
 * `debug_proofsSyncStatus`, `debug_executePayload` and the witness methods' errors.
 */
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { verifyStateless } from "../../src/execution/op/stateless.js";
import { WitnessStore } from "../../src/execution/state/witnessState.js";
import { keccak256 } from "../../src/util/keccak.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { mainStoreProof, ProofsTraffic, rpcTarget } from "../helpers/proofs.js";
import { engineCall, rpcCall, rpcResult, type Json } from "../helpers/rpc.js";

const addr = (i: number): Uint8Array => ProofsTraffic.account(i);
/** Blocks before the extension is turned on, and after. */
const BLOCKS_BEFORE = 150;
const BLOCKS_AFTER = 100;
/** How far the head is unwound, and the new branch's length. */
const UNWIND = 10;
const NEW_BRANCH = 15;
/** The dev accounts, a never-used address and the ERC-20: the addresses checked at every block. */
const FIXED_ADDRESSES = 6;

type Obj = { [k: string]: Json };

let datadir = "";
let node: NodeHandle | undefined;
const traffic = new ProofsTraffic(rpcTarget(() => node!.url));
/** The block each of `traffic.addresses` first appeared in (from the 6th on: recipients, creations). */
const introducedAt: number[] = [];
/** Every eth_getProof answer checked, by block hash and address: an unwind must not change the kept ones. */
const answers = new Map<string, string>();

const call = (method: string, params: Json[] = []): Promise<Json> => rpcResult(node!.url, method, params);

async function head(): Promise<bigint> {
  return BigInt((await call("eth_blockNumber")) as string);
}

/** One block of mixed traffic, noting where its new addresses appeared. */
async function block(): Promise<void> {
  const n = Number(await head()) + 1;
  await traffic.block();
  while (introducedAt.length < traffic.addresses.length) introducedAt.push(n);
}

async function syncStatus(): Promise<{ earliest: number | null; latest: number | null }> {
  return (await call("debug_proofsSyncStatus")) as { earliest: number | null; latest: number | null };
}

/** Waits until the proofs store's window is exactly `[earliest, latest]`. */
async function waitWindow(earliest: number, latest: number): Promise<void> {
  await pollUntil(`the proofs window to be [${earliest}, ${latest}]`, 60_000, async () => {
    const st = await syncStatus();
    return st.earliest === earliest && st.latest === latest ? true : undefined;
  });
}

/** The addresses checked at block `n`: the fixed ones and those introduced in the blocks around it (before, at, just after). */
function addressesAt(n: number): Uint8Array[] {
  return traffic.addresses.filter((_, i) => i < FIXED_ADDRESSES || (introducedAt[i]! >= n - 3 && introducedAt[i]! <= n + 1));
}

/** Verifies a storage proof against `storageHash`: the value for a present key, absence for an absent one. */
async function verifyStorage(storageHash: string, slot: Uint8Array, p: { value: string; proof: string[] }): Promise<void> {
  const empty = storageHash === "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
  if (empty) {
    expect(p.proof).toEqual([]);
    expect(p.value).toBe("0x0");
    return;
  }
  const leaf = await verifyMerkleProof(keccak256(slot), p.proof.map((x) => hexToBytes(x as `0x${string}`)), { root: hexToBytes(storageHash as `0x${string}`) } as never);
  if (p.value === "0x0") expect(leaf).toBeNull();
  else expect(leaf).not.toBeNull();
}

/**
 * At every block of `[from, to]` (`from` = the window's earliest): every proof equals the main store's and verifies, and equals the
 * answer recorded for that block hash before (if any); every block's witness re-executes
 * statelessly to its header. Returns the number of proofs checked.
 */
async function checkBlocks(from: number, to: number, witnesses: boolean): Promise<number> {
  const chain = Chain.open(datadir, { readOnly: true });
  let checked = 0;
  try {
    for (let n = from; n <= to; n++) {
      const hash = bytesToHex(chain.getCanonicalHash(BigInt(n))!);
      for (const a of addressesAt(n)) {
        const slots = traffic.slots;
        const got = (await call("eth_getProof", [bytesToHex(a), slots.map(bytesToHex), "0x" + n.toString(16)])) as Obj;
        const want = await mainStoreProof(chain, BigInt(n), a, slots);
        expect(got.accountProof, `account proof of ${bytesToHex(a)} at block ${n}`).toEqual(want.accountProof);
        expect([got.balance, got.nonce, got.codeHash, got.storageHash]).toEqual([want.balance, want.nonce, want.codeHash, want.storageHash]);
        const storage = (got.storageProof as { key: string; value: string; proof: string[] }[]).map((p) => ({ value: p.value, proof: p.proof }));
        expect(storage, `storage proofs of ${bytesToHex(a)} at block ${n}`).toEqual(want.storageProof);
        expect((got.storageProof as { key: string }[]).map((p) => p.key)).toEqual(slots.map(bytesToHex));
        // The account proof verifies against the header's state root (absent accounts prove absence).
        await verifyMerkleProof(keccak256(a), (got.accountProof as string[]).map((p) => hexToBytes(p as `0x${string}`)), { root: want.stateRoot } as never);
        for (let i = 0; i < slots.length; i++) await verifyStorage(got.storageHash as string, slots[i]!, storage[i]!);
        const id = `${hash}/${bytesToHex(a)}`;
        const text = JSON.stringify(got);
        const before = answers.get(id);
        if (before !== undefined) expect(text, `the answer at block ${n} (${hash}) for ${bytesToHex(a)} changed`).toBe(before);
        answers.set(id, text);
        checked++;
      }
      if (witnesses && n > from) {
        const blk = chain.getBlockByNumber(BigInt(n))!;
        const parent = chain.getHeaderByHash(blk.header.parentHash)!;
        const w = (await call("debug_executionWitness", ["0x" + n.toString(16)])) as { state: string[]; codes: string[]; keys: string[]; headers: string[] };
        const store = WitnessStore.fromValues([...w.state, ...w.codes, ...w.headers].map((x) => hexToBytes(x as `0x${string}`)));
        const totals = await verifyStateless(store, blk, parent, chain.op!);
        expect(bytesToHex(totals.stateRoot), `block ${n} re-executed from its witness`).toBe(bytesToHex(blk.header.stateRoot));
      }
    }
  } finally {
    await chain.close();
  }
  return checked;
}

const engine = async (method: string, params: Json[]): Promise<Obj> => {
  const r = await engineCall(node!.engineUrl, node!.jwtSecret, method, params);
  if (r.error !== undefined) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result as Obj;
};

beforeAll(async () => {
  datadir = await makeTempDir("basalt-e2e-proofs-");
});

afterAll(async () => {
  await stopAllProcesses();
  if (datadir !== "") await removeDir(datadir);
});

describe("historical proofs (e2e)", () => {
  it("initializes at the head of an existing chain and backfills the window to genesis", async () => {
    node = await startNode({ datadir, args: ["--dev.block-time", "0"] });
    for (let i = 0; i < BLOCKS_BEFORE; i++) await block();
    expect(await head()).toBe(BigInt(BLOCKS_BEFORE));
    expect((await rpcCall(node.url, "debug_proofsSyncStatus")).error?.code).toBe(-32601); // only with the extension
    await node.stop();
    node = await startNode({ datadir, args: ["--dev.block-time", "0", "--historical-proofs"] });
    await waitWindow(0, BLOCKS_BEFORE);
  }, 180_000);

  it("follows new blocks: every proof at every block equals the main store's and verifies; every witness re-executes", async () => {
    for (let i = 0; i < BLOCKS_AFTER; i++) await block();
    const tip = Number(await head());
    expect(tip).toBe(BLOCKS_BEFORE + BLOCKS_AFTER);
    await waitWindow(0, tip);
    expect(await checkBlocks(0, tip, true)).toBeGreaterThan(tip * FIXED_ADDRESSES);
  }, 300_000);

  it("answers the witness methods' errors as Base's node does, and debug_executePayload's witness", async () => {
    const unknown = await rpcCall(node!.url, "debug_executionWitness", ["0xffff"]);
    expect(unknown.error).toEqual({ code: -32001, message: "block not found: 0xffff" });
    expect((await rpcCall(node!.url, "debug_executionWitness", ["0x0"])).error?.code).toBe(-32603);
    expect((await rpcCall(node!.url, "debug_executionWitness", ["0xzz"])).error?.code).toBe(-32602);
    const missing = "0x" + "ab".repeat(32);
    const attrs = (await rpcCall(node!.url, "debug_executePayload", [missing, {}])).error;
    expect(attrs?.code).toBe(-32602);
    // A payload of block 5's own attributes on block 4: the witness holds block 4's state root node.
    const b5 = (await call("eth_getBlockByNumber", ["0x5", true])) as Obj;
    const b4 = (await call("eth_getBlockByNumber", ["0x4", false])) as Obj;
    const raws = await Promise.all((b5.transactions as Obj[]).map((t) => call("debug_getRawTransaction", [t.hash as string])));
    const extra = hexToBytes(b5.extraData as `0x${string}`);
    const payloadAttrs: Obj = {
      timestamp: b5.timestamp as string,
      prevRandao: b5.mixHash as string,
      suggestedFeeRecipient: b5.miner as string,
      withdrawals: [],
      parentBeaconBlockRoot: b5.parentBeaconBlockRoot as string,
      transactions: raws,
      noTxPool: true,
      gasLimit: b5.gasLimit as string,
      eip1559Params: bytesToHex(extra.subarray(1, 9)),
      ...(extra.length === 17 ? { minBaseFee: "0x" + BigInt(bytesToHex(extra.subarray(9, 17))).toString(16) } : {}),
    };
    const unknownParent = await rpcCall(node!.url, "debug_executePayload", [missing, payloadAttrs]);
    expect(unknownParent.error).toEqual({ code: -32603, message: `no header found for Hash(${missing})` });
    const w = (await call("debug_executePayload", [b4.hash as string, payloadAttrs])) as { state: string[]; codes: string[]; keys: string[]; headers: string[] };
    expect(w.headers).toEqual([]);
    expect(w.state.map((s) => bytesToHex(keccak256(hexToBytes(s as `0x${string}`))))).toContain(b4.stateRoot);
    expect(w.keys).toContain(bytesToHex(addr(0)));
  }, 60_000);

  it("after an unwind and after a reorg, every proof and witness checks out and kept blocks answer as before", async () => {
    const tip = Number(await head());
    const forkPoint = tip - UNWIND;
    const forkHash = ((await call("eth_getBlockByNumber", ["0x" + forkPoint.toString(16), false])) as Obj).hash as string;
    const fcu = await engine("engine_forkchoiceUpdatedV3", [{ headBlockHash: forkHash, safeBlockHash: forkHash, finalizedBlockHash: forkHash }, null]);
    expect((fcu.payloadStatus as Obj).status).toBe("VALID");
    expect(Number(await head())).toBe(forkPoint);
    await waitWindow(0, forkPoint);
    await checkBlocks(0, forkPoint, false);

    // A different branch on the fork point: new transactions from the accounts' current nonces.
    await traffic.resyncNonces(async (a) => BigInt((await call("eth_getTransactionCount", [bytesToHex(a), "latest"])) as string));
    for (let i = 0; i < NEW_BRANCH; i++) await block();
    const newTip = forkPoint + NEW_BRANCH;
    expect(Number(await head())).toBe(newTip);
    await waitWindow(0, newTip);
    await checkBlocks(0, newTip, true);
  }, 300_000);

  it("caps storage keys at 1,024 and prunes to a shrunk window, answering Base's errors below it", async () => {
    const many = Array.from({ length: 1_025 }, (_, i) => "0x" + i.toString(16));
    const tooMany = await rpcCall(node!.url, "eth_getProof", [bytesToHex(addr(0)), many, "latest"]);
    expect(tooMany.error).toEqual({ code: -32602, message: "too many storage keys: max 1024, got 1025" });
    await node!.stop();
    node = await startNode({ datadir, args: ["--dev.block-time", "0", "--historical-proofs", "--proofs.history-window", "10"] });
    const tip = Number(await head());
    await pollUntil("the window to be pruned to 10 blocks", 30_000, async () => ((await syncStatus()).earliest === tip - 10 ? true : undefined));
    const below = await rpcCall(node.url, "eth_getProof", [bytesToHex(addr(0)), [], "0x" + (tip - 11).toString(16)]);
    expect(below.error).toEqual({ code: -32603, message: `no state found for block number ${tip - 11}` });
    const inside = (await call("eth_getProof", [bytesToHex(addr(0)), [], "0x" + (tip - 10).toString(16)])) as Obj;
    expect((inside.accountProof as string[]).length).toBeGreaterThan(0);
    // The earliest witnessable block is earliest + 1: its parent's state is the window's first.
    const witnessBelow = await rpcCall(node.url, "debug_executionWitness", ["0x" + (tip - 10).toString(16)]);
    expect(witnessBelow.error).toEqual({ code: -32603, message: `no state found for block number ${tip - 11}` });
    await checkBlocks(tip - 10, tip, true);
  }, 120_000);
});
