/**
 * The historical proofs extension in real `basalt` processes. A devnet runs without it for 40
 * blocks of mixed traffic:
 * - ETH transfers to new accounts;
 * - an ERC-20 whose balances are written and cleared;
 * - creations that self-destruct.
 *
 * It is restarted with `--historical-proofs`:
 * - the store initializes at the head and backfills to genesis;
 * - it follows 20 more blocks;
 * - every `eth_getProof` at every block of the window equals the main store's proof at that block
 *   and verifies against the header's state root.
 *
 * A restart with a 10-block window prunes the far end, and a block below the window answers Base's
 * error. Also covered: the key cap, and `debug_proofsSyncStatus`.
 */
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { keccak256 } from "../../src/util/keccak.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { mainStoreProof, ProofsTraffic, rpcTarget } from "../helpers/proofs.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";

let datadir = "";
let node: NodeHandle | undefined;
const traffic = new ProofsTraffic(rpcTarget(() => node!.url));
const { addresses, slots } = traffic;
const addr = (i: number): Uint8Array => ProofsTraffic.account(i);

const call = (method: string, params: Json[] = []): Promise<Json> => rpcResult(node!.url, method, params);
const block = (): Promise<void> => traffic.block();

async function head(): Promise<bigint> {
  return BigInt((await call("eth_blockNumber")) as string);
}

async function syncStatus(): Promise<{ earliest: number | null; latest: number | null }> {
  return (await call("debug_proofsSyncStatus")) as { earliest: number | null; latest: number | null };
}

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
    for (let i = 0; i < 40; i++) await block();
    expect(await head()).toBe(40n);
    expect((await rpcCall(node.url, "debug_proofsSyncStatus")).error?.code).toBe(-32601); // only with the extension
    await node.stop();
    node = await startNode({ datadir, args: ["--dev.block-time", "0", "--historical-proofs"] });
    const s = await pollUntil("the proofs window to reach genesis", 60_000, async () => {
      const st = await syncStatus();
      return st.earliest === 0 && st.latest === 40 ? st : undefined;
    });
    expect(s).toEqual({ earliest: 0, latest: 40 });
  }, 120_000);

  it("follows new blocks, and every proof at every block equals the main store's and verifies", async () => {
    for (let i = 0; i < 20; i++) await block();
    const tip = Number(await head());
    await pollUntil("the proofs store to reach the head", 30_000, async () => ((await syncStatus()).latest === tip ? true : undefined));
    const chain = Chain.open(datadir, { readOnly: true });
    try {
      let checked = 0;
      for (let n = 0; n <= tip; n++) {
        for (const a of addresses) {
          const got = (await call("eth_getProof", [bytesToHex(a), slots.map(bytesToHex), "0x" + n.toString(16)])) as Record<string, Json>;
          const want = await mainStoreProof(chain, BigInt(n), a, slots);
          expect(got.accountProof, `account proof of ${bytesToHex(a)} at block ${n}`).toEqual(want.accountProof);
          expect([got.balance, got.nonce, got.codeHash, got.storageHash]).toEqual([want.balance, want.nonce, want.codeHash, want.storageHash]);
          const storage = (got.storageProof as { key: string; value: string; proof: string[] }[]).map((p) => ({ value: p.value, proof: p.proof }));
          expect(storage, `storage proofs of ${bytesToHex(a)} at block ${n}`).toEqual(want.storageProof);
          expect((got.storageProof as { key: string }[]).map((p) => p.key)).toEqual(slots.map(bytesToHex));
          // The account proof verifies against the header's state root (absent accounts prove absence).
          await verifyMerkleProof(keccak256(a), (got.accountProof as string[]).map((p) => hexToBytes(p as `0x${string}`)), { root: want.stateRoot } as never);
          checked++;
        }
      }
      expect(checked).toBe((tip + 1) * addresses.length);
    } finally {
      await chain.close();
    }
  }, 240_000);

  it("caps storage keys at 1,024 and prunes to a shrunk window, answering Base's error below it", async () => {
    const many = Array.from({ length: 1_025 }, (_, i) => "0x" + i.toString(16));
    const tooMany = await rpcCall(node!.url, "eth_getProof", [bytesToHex(addr(0)), many, "latest"]);
    expect(tooMany.error).toEqual({ code: -32602, message: "too many storage keys: max 1024, got 1025" });
    await node!.stop();
    node = await startNode({ datadir, args: ["--dev.block-time", "0", "--historical-proofs", "--proofs.history-window", "10"] });
    const tip = Number(await head());
    await pollUntil("the window to be pruned to 10 blocks", 30_000, async () => ((await syncStatus()).earliest === tip - 10 ? true : undefined));
    const below = await rpcCall(node.url, "eth_getProof", [bytesToHex(addr(0)), [], "0x" + (tip - 11).toString(16)]);
    expect(below.error).toEqual({ code: -32603, message: `no state found for block number ${tip - 11}` });
    const inside = (await call("eth_getProof", [bytesToHex(addr(0)), [], "0x" + (tip - 10).toString(16)])) as Record<string, Json>;
    expect((inside.accountProof as string[]).length).toBeGreaterThan(0);
  }, 120_000);
});
