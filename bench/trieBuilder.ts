/**
 * Bench: the streaming trie builder (src/storage/trie/builder.ts) over N random sorted 32-byte
 * keys with account-like values (~77 bytes: RLP of nonce, an 8-byte balance, two hashes) and
 * storage-like values (33 bytes: RLP of a 32-byte word), emitting every stored node to a sink
 * that only counts them, against the keccak floor (one keccak per leaf and per emitted node, of
 * the same sizes). With the crypto in use (the native addon unless BASALT_NATIVE_CRYPTO=0).
 *
 * `node dist/bench/trieBuilder.js [leaves=1000000] [rounds=3]`; prints one JSON line per value
 * kind (best round).
 */
import { randomBytes } from "node:crypto";
import { RLP } from "@ethereumjs/rlp";
import { TrieBuilder } from "../src/storage/trie/builder.js";
import { keccak256, keccakBackend } from "../src/util/keccak.js";

const N = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 3);
/** Distinct values cycled through (their content does not change the work, only their size). */
const VALUE_POOL = 1024;

/**
 * N random keys in ascending order, laid out in that order in one buffer (as a cursor over a
 * table would hand them over: sorted keys scattered in memory would time cache misses instead).
 */
function sortedKeys(n: number): Uint8Array[] {
  const all = randomBytes(32 * n);
  const sorted = Array.from({ length: n }, (_, i) => all.subarray(32 * i, 32 * i + 32)).sort((a, b) => Buffer.compare(a, b));
  const packed = new Uint8Array(32 * n);
  sorted.forEach((k, i) => packed.set(k, 32 * i));
  return Array.from({ length: n }, (_, i) => packed.subarray(32 * i, 32 * i + 32));
}

const values = {
  account: Array.from({ length: VALUE_POOL }, (_, i) => RLP.encode([i, randomBytes(8), randomBytes(32), randomBytes(32)])),
  storage: Array.from({ length: VALUE_POOL }, () => RLP.encode(randomBytes(32))),
};

const keys = sortedKeys(N);

for (const [kind, pool] of Object.entries(values)) {
  let best = Infinity;
  let nodes = 0;
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    nodes = 0;
    bytes = 0;
    const t0 = performance.now();
    const b = new TrieBuilder((_path, record) => {
      nodes++;
      bytes += record.length;
    });
    for (let i = 0; i < N; i++) b.add(keys[i]!, pool[i & (VALUE_POOL - 1)]!);
    b.finish();
    best = Math.min(best, performance.now() - t0);
  }
  // The keccak floor: one hash per leaf (its RLP: ~35 bytes of path and the value) and per stored node (~530 bytes).
  const leafInput = new Uint8Array(36 + pool[0]!.length);
  const nodeInput = new Uint8Array(Math.round(bytes / Math.max(nodes, 1)));
  const t1 = performance.now();
  for (let i = 0; i < N; i++) keccak256(leafInput);
  for (let i = 0; i < nodes; i++) keccak256(nodeInput);
  const hashMs = performance.now() - t1;
  console.log(
    JSON.stringify({
      bench: "trie-builder",
      keccak: keccakBackend,
      values: kind,
      valueBytes: pool[0]!.length,
      leaves: N,
      storedNodes: nodes,
      recordBytes: bytes,
      ms: Math.round(best),
      leavesPerSecond: Math.round(N / (best / 1000)),
      keccakFloorMs: Math.round(hashMs),
    }),
  );
}
