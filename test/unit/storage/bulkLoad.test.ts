/**
 * Bulk load (storage/bulkLoad.ts) against block-by-block commits: a random state (accounts with
 * and without code and storage, a contract with many slots) loaded as a genesis alloc through
 * the normal commit path (Chain.init: overlay, batch trie updates, commit) and bulk-loaded from
 * the hashed stream (Chain.initWithState) gives the same root and byte-identical tables; the
 * verifier finds nothing wrong in either, and finds a removed, an altered and an extra trie
 * record, an altered slot and an orphan slot. A load killed half way resumes to the same tables.
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes, KECCAK256_NULL } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import type { GenesisAccount } from "../../../src/chain/genesis.js";
import { bulkLoadState, verifyState, type BulkAccount } from "../../../src/storage/bulkLoad.js";
import { storageKey } from "../../../src/storage/keys.js";
import { ChainStore, MetaKey } from "../../../src/storage/store.js";
import { pathKey } from "../../../src/storage/trie/path.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-bulk-");

/** A deterministic pseudo-random byte source. */
function rng(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      out[i] = x >>> 24;
    }
    return out;
  };
}

/** A genesis alloc of `n` accounts: every 7th with code and some slots, one with 600 slots. */
function randomAlloc(n: number, seed: number): Record<string, GenesisAccount> {
  const rand = rng(seed);
  const alloc: Record<string, GenesisAccount> = {};
  for (let i = 0; i < n; i++) {
    const address = bytesToHex(rand(20));
    const acct: GenesisAccount = { balance: "0x" + BigInt(bytesToHex(rand(6))).toString(16), nonce: "0x" + (i % 5).toString(16) };
    if (i % 7 === 0) {
      acct.code = bytesToHex(Uint8Array.of(0x60, i & 0xff, 0x60, 0x00, 0x55, 0x00));
      const slots = i === 0 ? 600 : 1 + (i % 9);
      acct.storage = {};
      for (let s = 0; s < slots; s++) {
        const value = rand(1 + (s % 32));
        value[0] = value[0]! | 1;
        acct.storage[bytesToHex(rand(32))] = bytesToHex(value);
      }
    }
    alloc[address] = acct;
  }
  return alloc;
}

/** The alloc as a bulk stream: hashed, sorted, values stripped. */
function streamOf(alloc: Record<string, GenesisAccount>): BulkAccount[] {
  const out: BulkAccount[] = [];
  for (const [address, a] of Object.entries(alloc)) {
    const code = a.code === undefined ? undefined : hexToBytes(a.code as `0x${string}`);
    const storage = Object.entries(a.storage ?? {})
      .map(([k, v]) => {
        const value = hexToBytes(v as `0x${string}`);
        let i = 0;
        while (i < value.length && value[i] === 0) i++;
        return { hashedSlot: keccak256(hexToBytes(k as `0x${string}`)), value: value.subarray(i) };
      })
      .filter((s) => s.value.length > 0)
      .sort((x, y) => Buffer.compare(Buffer.from(x.hashedSlot), Buffer.from(y.hashedSlot)));
    out.push({
      hashedAddress: keccak256(hexToBytes(address as `0x${string}`)),
      nonce: BigInt(a.nonce ?? "0x0"),
      balance: BigInt(a.balance ?? "0x0"),
      ...(code === undefined ? {} : { code, codeHash: keccak256(code) }),
      ...(storage.length === 0 ? {} : { storage }),
    });
  }
  return out.sort((x, y) => Buffer.compare(Buffer.from(x.hashedAddress), Buffer.from(y.hashedAddress)));
}

function dump(store: ChainStore): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of ["hashedAccounts", "hashedStorage", "accountTrie", "storageTrie", "code"] as const) {
    out[name] = [...store[name].getRange({})].map(({ key, value }) => `${key.toString("hex")}=${value.toString("hex")}`);
  }
  return out;
}

describe("bulk load", () => {
  const genesis = devnetGenesis();
  const alloc = { ...genesis.alloc, ...randomAlloc(400, 7) };
  const withAlloc = { ...genesis, alloc };

  it("gives the tables and root block-by-block commits give, and the verifier passes both", async () => {
    const a = tmp();
    const b = tmp();
    await Chain.init(a, withAlloc);
    const loaded = await Chain.initWithState(b, withAlloc, streamOf(alloc));
    const ca = Chain.open(a);
    const cb = Chain.open(b);
    try {
      expect(bytesToHex(loaded.stateRoot)).toBe(bytesToHex(ca.head.header.stateRoot));
      expect(dump(cb.store)).toEqual(dump(ca.store));
      for (const c of [ca, cb]) {
        const v = verifyState(c.store, c.head.header.stateRoot);
        expect(v.problems).toEqual([]);
        expect(v.accounts).toBe(Object.keys(alloc).length);
        expect(v.slots).toBe(streamOf(alloc).reduce((n, x) => n + [...(x.storage ?? [])].length, 0));
      }
    } finally {
      await ca.close();
      await cb.close();
    }
  });

  it("finds removed, altered and extra trie records, altered and orphan slots", async () => {
    const d = tmp();
    await Chain.initWithState(d, withAlloc, streamOf(alloc));
    const chain = Chain.open(d);
    try {
      const store = chain.store;
      const root = chain.head.header.stateRoot;
      const stream = streamOf(alloc);
      const big = stream.find((x) => [...(x.storage ?? [])].length === 600)!;
      const rootRecord = store.accountTrie.get(pathKey([]))!;
      const storageRecord = store.storageTrie.get(pathKey([3], Buffer.from(big.hashedAddress)))!;
      const slot = [...big.storage!][5]!;
      const slotKey = storageKey(big.hashedAddress, slot.hashedSlot);
      const orphan = storageKey(new Uint8Array(32).fill(0xee), new Uint8Array(32).fill(1));
      store.root.transactionSync(() => {
        store.accountTrie.remove(pathKey([]));
        store.storageTrie.put(pathKey([3], Buffer.from(big.hashedAddress)), Buffer.concat([storageRecord.subarray(0, 3), Buffer.alloc(storageRecord.length - 3, 0x42)]));
        store.storageTrie.put(pathKey([15, 15, 15], new Uint8Array(32).fill(0xaa)), storageRecord);
        store.hashedStorage.put(slotKey, Buffer.from([0x99]));
        store.hashedStorage.put(orphan, Buffer.from([1]));
        // An account of no storage given another's balance: the account trie's root changes.
        const plain = stream.find((x) => x.storage === undefined && x.code === undefined)!;
        const value = store.hashedAccounts.get(Buffer.from(plain.hashedAddress))!;
        const [nonce, , sr, ch] = RLP.decode(value) as Uint8Array[];
        store.hashedAccounts.put(Buffer.from(plain.hashedAddress), Buffer.from(RLP.encode([nonce!, Uint8Array.of(0x77), sr!, ch!])));
      });
      const v = verifyState(store, root);
      const text = v.problems.join("\n");
      expect(text).toContain("account trie: missing node");
      expect(text).toContain(`storage trie of ${bytesToHex(big.hashedAddress)}: different node`);
      expect(text).toContain(`account ${bytesToHex(big.hashedAddress)}: its slots give storage root`);
      expect(text).toContain(`slot ${orphan.toString("hex")} belongs to no account`);
      expect(text).toContain("belong to no account");
      expect(text).toContain("the state's root is");
      void rootRecord;
    } finally {
      await chain.close();
    }
  });

  it("resumes a load killed in either phase to the same tables, and refuses a store that holds a state", async () => {
    const whole = tmp();
    await Chain.initWithState(whole, withAlloc, streamOf(alloc));
    const full = ChainStore.open(whole);
    const want = dump(full);
    await full.close();

    const d = tmp();
    const store = ChainStore.open(d);
    const stream = streamOf(alloc);
    // Killed in phase 1: the stream dies after 150 accounts (the open transaction is lost, the committed ones stay).
    const dying = function* (): Generator<BulkAccount> {
      let i = 0;
      for (const x of stream) {
        if (i++ === 150) throw new Error("killed");
        yield x;
      }
    };
    expect(() => bulkLoadState(store, dying())).toThrow("killed");
    // Killed in phase 2: the progress sink throws once the account trie is being written.
    let phase2 = 0;
    expect(() =>
      bulkLoadState(store, stream, {
        onProgress: (p) => {
          if (p.phase === 2 && phase2++ === 0) throw new Error("killed in phase 2");
        },
      }),
    ).toThrow(/killed/);
    const r = bulkLoadState(store, stream);
    expect(r.resumed).toBe(true);
    expect(store.getMeta(MetaKey.bulkLoad)).toBeUndefined();
    const got = dump(store);
    expect(got.accountTrie).toEqual(want.accountTrie);
    expect(got.storageTrie).toEqual(want.storageTrie);
    expect(got.hashedAccounts).toEqual(want.hashedAccounts);
    expect(got.hashedStorage).toEqual(want.hashedStorage);
    expect(() => bulkLoadState(store, stream)).toThrow(/already holds a state/);
    await store.close();
  });

  it("refuses a stream out of order", async () => {
    const store = ChainStore.open(tmp());
    const stream = streamOf(alloc);
    [stream[3], stream[4]] = [stream[4]!, stream[3]!];
    expect(() => bulkLoadState(store, stream)).toThrow(/must ascend/);
    await store.close();
  });
});

void KECCAK256_NULL;
