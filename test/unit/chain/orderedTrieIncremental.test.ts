/**
 * The growing ordered trie (subtrees remembered between roots) against the from-scratch root
 * over random value sequences grown in random steps — across the key-length boundaries of
 * rlp(i) (0, 1..127, 128..255, 256+) — and the cache's reset when the values do not extend
 * the ones it saw.
 */
import fc from "fast-check";
import { bytesToHex } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { GrowingOrderedTrie, OrderedTrieCache, orderedTrieRoot } from "../../../src/chain/orderedTrie.js";

const value = fc.uint8Array({ minLength: 0, maxLength: 80 });
const hex = (b: Uint8Array): string => bytesToHex(b);

describe("incremental ordered trie root", () => {
  it("equals the from-scratch root after every step of random growth", () => {
    fc.assert(
      fc.property(fc.array(fc.array(value, { minLength: 0, maxLength: 40 }), { minLength: 1, maxLength: 12 }), (steps) => {
        const trie = new GrowingOrderedTrie();
        const cache = new OrderedTrieCache();
        const values: Uint8Array[] = [];
        for (const step of steps) {
          for (const v of step) {
            trie.push(v);
            values.push(v);
          }
          const want = hex(orderedTrieRoot(values));
          expect(hex(trie.root())).toBe(want);
          expect(hex(orderedTrieRoot(values, cache))).toBe(want);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("stays equal across 300 values added a few at a time", () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 300, maxLength: 300 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 300, maxLength: 300 }), (vals, sizes) => {
        const trie = new GrowingOrderedTrie();
        let n = 0;
        for (const size of sizes) {
          if (n >= vals.length) break;
          for (const v of vals.slice(n, n + size)) trie.push(v);
          n = Math.min(vals.length, n + size);
          expect(hex(trie.root())).toBe(hex(orderedTrieRoot(vals.slice(0, n))));
        }
      }),
      { numRuns: 5 },
    );
  });

  it("starts over when the values do not extend the ones the cache saw", () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 2, maxLength: 60 }), fc.array(value, { minLength: 1, maxLength: 60 }), fc.nat(), (a, b, cut) => {
        const cache = new OrderedTrieCache();
        expect(hex(orderedTrieRoot(a, cache))).toBe(hex(orderedTrieRoot(a)));
        // A different list of the same or another length (a rebuilt block) on the same cache.
        const other = [...a.slice(0, cut % a.length), ...b];
        expect(hex(orderedTrieRoot(other, cache))).toBe(hex(orderedTrieRoot(other)));
        const shorter = other.slice(0, Math.max(1, other.length - 1));
        expect(hex(orderedTrieRoot(shorter, cache))).toBe(hex(orderedTrieRoot(shorter)));
      }),
      { numRuns: 100 },
    );
  });
});
