/**
 * The state trie's batch update (execution/state/trieUpdate.ts) against @ethereumjs/mpt: random
 * batches of inserts, updates and deletes over keys that share long prefixes (so deletions
 * collapse branches into extensions and leaves, and extensions merge), short values (inline
 * nodes) and long ones, starting from the empty trie and emptying it again. After every batch
 * the roots are equal, and @ethereumjs/mpt reads every live key back from the nodes the update
 * wrote (they are complete and in mpt's encoding); deleted keys read as absent.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { KECCAK256_RLP, ValueEncoding, bytesToHex } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TrieNodeDb } from "../../../../src/execution/state/trieNodeDb.js";
import { TrieUpdateError, updateTrie, type TrieChange } from "../../../../src/execution/state/trieUpdate.js";

/** 24 keys: a few random 32-byte keys and variants of them differing from some nibble on. */
const keyPoolArb = fc
  .tuple(
    fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 3 }),
    fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 0, max: 63 }), fc.integer({ min: 0, max: 15 })), { minLength: 21, maxLength: 21 }),
  )
  .map(([bases, variants]) => {
    const keys = bases.map((b) => Uint8Array.from(b));
    for (const [bi, nib, val] of variants) {
      const k = Uint8Array.from(keys[bi % keys.length]!);
      const byte = nib >> 1;
      k[byte] = nib & 1 ? (k[byte]! & 0xf0) | val : (k[byte]! & 0x0f) | (val << 4);
      keys.push(k);
    }
    return keys;
  });

const valueArb = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 3 }), fc.uint8Array({ minLength: 1, maxLength: 80 }));
const opArb = fc.tuple(fc.nat(23), fc.option(valueArb, { freq: 3, nil: undefined }));
const batchesArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 });

function mpt(db: TrieNodeDb, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ db, valueEncoding: ValueEncoding.Bytes, useKeyHashing: false, ...(root === undefined ? {} : { root }) });
}

describe("trie batch update", () => {
  it("matches @ethereumjs/mpt on random insert/update/delete batches, and mpt reads the written nodes", async () => {
    await fc.assert(
      fc.asyncProperty(keyPoolArb, batchesArb, fc.boolean(), async (keys, batches, drain) => {
        const reference = mpt(new TrieNodeDb(undefined));
        const ours = new TrieNodeDb(undefined);
        let root = KECCAK256_RLP;
        const live = new Map<string, Uint8Array>();
        const all = drain ? [...batches, keys.map((_, i): [number, undefined] => [i, undefined])] : batches;
        for (const batch of all) {
          const changes: TrieChange[] = [];
          for (const [i, value] of batch) {
            const key = keys[i % keys.length]!;
            changes.push({ key, value });
            if (value === undefined) {
              await reference.del(key);
              live.delete(bytesToHex(key));
            } else {
              await reference.put(key, value);
              live.set(bytesToHex(key), value);
            }
          }
          root = updateTrie(ours, root, changes);
          expect(bytesToHex(root)).toBe(bytesToHex(reference.root()));
          const reader = mpt(ours, root);
          for (const key of keys) {
            const got = await reader.get(key);
            const want = live.get(bytesToHex(key));
            expect(got === null ? undefined : bytesToHex(got)).toBe(want === undefined ? undefined : bytesToHex(want));
          }
        }
        if (drain) expect(bytesToHex(root)).toBe(bytesToHex(KECCAK256_RLP));
      }),
      { numRuns: 300 },
    );
  });

  it("continues from a trie @ethereumjs/mpt wrote, and leaves the root alone without changes", async () => {
    const db = new TrieNodeDb(undefined);
    const reference = mpt(db);
    const keys = Array.from({ length: 40 }, (_, i) => Uint8Array.from({ length: 32 }, (_, j) => (i * 37 + j * (i % 3)) & 0xff));
    for (const [i, k] of keys.entries()) await reference.put(k, Uint8Array.of(i + 1));
    const start = reference.root();
    expect(updateTrie(db, start, [])).toBe(start);
    const changes: TrieChange[] = keys.filter((_, i) => i % 2 === 0).map((key) => ({ key, value: undefined }));
    changes.push({ key: keys[1]!, value: new Uint8Array(40).fill(7) });
    for (const c of changes) {
      if (c.value === undefined) await reference.del(c.key);
      else await reference.put(c.key, c.value);
    }
    expect(bytesToHex(updateTrie(db, start, changes))).toBe(bytesToHex(reference.root()));
  });

  it("fails with a typed error when a node it needs is not stored", () => {
    expect(() => updateTrie(new TrieNodeDb(undefined), new Uint8Array(32).fill(1), [{ key: new Uint8Array(32), value: Uint8Array.of(1) }])).toThrow(TrieUpdateError);
  });
});
