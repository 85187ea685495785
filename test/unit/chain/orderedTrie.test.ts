/**
 * The ordered-trie root against @ethereumjs/mpt for every size up to 300 (all key-length
 * boundaries of rlp(i): 0, 1..127, 128..255, 256+), short values (embedded nodes) and long
 * ones, with and without a cache reused while the list grows.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { OrderedTrieCache, orderedTrieRoot } from "../../../src/chain/orderedTrie.js";

async function mptRoot(values: Uint8Array[]): Promise<string> {
  const t = new MerklePatriciaTrie();
  for (const [i, v] of values.entries()) await t.put(RLP.encode(i), v);
  return bytesToHex(t.root());
}

function value(i: number, long: boolean): Uint8Array {
  const len = long ? 40 + ((i * 37) % 300) : 1 + (i % 5);
  return Uint8Array.from({ length: len }, (_, k) => (i * 131 + k * 7 + 1) & 255);
}

describe("ordered trie root", () => {
  for (const long of [false, true]) {
    it(`matches a general trie for 0..300 ${long ? "long" : "short"} values, growing with one cache`, async () => {
      const cache = new OrderedTrieCache();
      const values: Uint8Array[] = [];
      for (let n = 0; n <= 300; n++) {
        if (n > 0) values.push(value(n - 1, long));
        if (n <= 140 || n % 7 === 0 || (n >= 250 && n <= 260)) {
          const want = await mptRoot(values);
          expect(bytesToHex(orderedTrieRoot(values, cache))).toBe(want);
          expect(bytesToHex(orderedTrieRoot(values))).toBe(want);
        }
      }
    }, 60_000);
  }
});
