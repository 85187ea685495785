/**
 * The proofs store kept by `ProofsSync` over a real devnet chain with mixed traffic (ETH
 * transfers to new accounts, an ERC-20 deployment and transfers that write and clear storage,
 * creations that self-destruct): after init (baseline at the head, then the window extended
 * backwards to genesis), forward sync, a reorg (the chain's head set back and rebuilt) and
 * pruning, every proof at every block of the window equals the main store's proof at that block,
 * with the same values, and verifies against the header's state root.
 */
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { mainStoreProof, ProofsTraffic } from "../../helpers/proofs.js";
import { ProofsReader } from "../../../src/proofs/reader.js";
import { ProofsStore } from "../../../src/proofs/store.js";
import { ProofsSync } from "../../../src/proofs/sync.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const silent = pino({ level: "silent" });
const tmp = tempDirs();

/** Every proof at every block of the window equals the main store's, and verifies. */
async function checkWindow(chain: Chain, store: ProofsStore, traffic: ProofsTraffic): Promise<number> {
  const reader = new ProofsReader(chain, store);
  const w = store.window();
  let checked = 0;
  for (let n = w.earliest!.number; n <= w.latest!.number; n++) {
    for (const a of traffic.addresses) {
      const expected = await mainStoreProof(chain, n, a, traffic.slots);
      const got = await reader.proof(bytesToHex(a), traffic.slots.map(bytesToHex), n);
      expect(got.accountProof, `account proof of ${bytesToHex(a)} at block ${n}`).toEqual(expected.accountProof);
      expect(got.balance).toBe(expected.balance);
      expect(got.nonce).toBe(expected.nonce);
      expect(got.codeHash).toBe(expected.codeHash);
      expect(got.storageHash).toBe(expected.storageHash);
      expect(got.storageProof, `storage proofs of ${bytesToHex(a)} at block ${n}`).toEqual(expected.storageProof);
      const leaf = await verifyMerkleProof(keccak256(a), got.accountProof.map((p) => hexToBytes(p as `0x${string}`)), { root: expected.stateRoot } as never).catch(() => "bad");
      expect(leaf).not.toBe("bad");
      checked++;
    }
  }
  return checked;
}

describe("ProofsSync over a devnet chain", () => {
  it("init backfills to genesis; forward, reorg and prune keep every proof equal to the main store's", async () => {
    const datadir = tmp("basalt-proofs-chain-");
    await Chain.init(datadir, devnetGenesis(), { archive: true });
    const chain = Chain.open(datadir, { logger: silent });
    const pool = new TxPool(chain);
    const seq = new OpDevSequencer(chain, pool, 0, silent);
    const traffic = new ProofsTraffic({ submit: async (raw) => void (await pool.addRaw(raw)), seal: async () => void (await seq.sealOne()) });
    for (let i = 0; i < 12; i++) await traffic.block();
    const store = await ProofsStore.open(tmp("basalt-proofs-store-"), { chainId: chain.chainId, genesisHash: chain.genesisHash });
    try {
      const sync = new ProofsSync(chain, store, 1_000n, silent);
      const init = await sync.initBaseline();
      expect(init.created).toBe(true);
      expect(store.window().earliest!.number).toBe(12n);
      expect((await sync.initBaseline()).created).toBe(false); // idempotent
      while ((await sync.backfill(5)) > 0);
      expect(store.window().earliest!.number).toBe(0n);
      expect(await checkWindow(chain, store, traffic)).toBeGreaterThan(0);

      for (let i = 0; i < 8; i++) await traffic.block();
      expect((await sync.forward(100)).forward).toBe(8);
      expect(store.window().latest!.number).toBe(20n);
      await checkWindow(chain, store, traffic);

      // A reorg: the head goes back to block 16 and a different branch is built on it.
      await chain.setHead(chain.getCanonicalHash(16n)!);
      for (let i = 0; i < 6; i++) await seq.sealOne();
      const f = await sync.forward(100);
      expect(f.unwound).toBe(4);
      expect(f.forward).toBe(6);
      expect(store.window().latest!.number).toBe(22n);
      await checkWindow(chain, store, traffic);

      // Prune to a window of 5 blocks, 3 blocks per call: gradual, reads unchanged at the kept blocks.
      const small = new ProofsSync(chain, store, 5n, silent);
      expect(await small.prune(3)).toBe(3);
      expect(store.window().earliest!.number).toBe(3n);
      while ((await small.prune(3)) > 0);
      expect(store.window().earliest!.number).toBe(17n);
      await checkWindow(chain, store, traffic);
    } finally {
      await store.close();
      await chain.close();
    }
  }, 120_000);
});
