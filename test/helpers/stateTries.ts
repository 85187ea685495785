/**
 * Helpers of tests over the path-keyed state tries:
 * - {@link walkStoredState}: walks a whole stored state (account trie and every storage trie)
 *   through the chain store's trie source, node by node from the root, so a missing or wrong
 *   node anywhere fails;
 * - {@link effectiveTrieWrites}: what committing a state's trie changes would do to the tables.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP, bytesToHex, equalsBytes } from "@ethereumjs/util";
import type { Chain } from "../../src/blockchain/chain.js";
import { StoreTrieSource } from "../../src/storage/stateTrieSource.js";
import { toNibbles } from "../../src/storage/trie/path.js";
import type { NodeHint, TrieSource } from "../../src/storage/trie/source.js";
import type { StateTries } from "../../src/storage/trie/stateTries.js";
import { nodeRlp } from "../../src/storage/trie/walk.js";
import { keccak256 } from "../../src/util/keccak.js";

type Item = Uint8Array | Item[];

/**
 * Walks every node of the state `root` through the store's tries (hash-checked: each node read
 * must hash to its parent's reference). Returns the nodes and leaves visited.
 */
export function walkStoredState(chain: Chain, root: Uint8Array): { nodes: number; accounts: number; slots: number } {
  const source = new StoreTrieSource(chain.store);
  const out = { nodes: 0, accounts: 0, slots: 0 };
  const walk = (trie: TrieSource, root: Uint8Array, onLeaf: (key: Uint8Array, value: Uint8Array) => void): void => {
    if (equalsBytes(root, KECCAK256_RLP)) return;
    const visit = (path: number[], ref: Item, hint: NodeHint): void => {
      let node: Item;
      let mask: number | undefined;
      if (ref instanceof Uint8Array) {
        if (ref.length === 0) return;
        const r = trie.node(Uint8Array.from(path), ref, hint);
        if (r === undefined) throw new Error(`trie node ${bytesToHex(ref)} at path ${path.join(",")} is missing`);
        const rlp = nodeRlp(r, path.length);
        if (!equalsBytes(keccak256(rlp), ref)) throw new Error(`trie node at path ${path.join(",")} does not hash to its reference ${bytesToHex(ref)}`);
        out.nodes++;
        mask = r.storedMask;
        node = RLP.decode(rlp) as Item;
      } else node = ref;
      const list = node as Item[];
      if (list.length === 17) {
        for (let i = 0; i < 16; i++) visit([...path, i], list[i]!, mask === undefined ? "unknown" : (mask & (1 << i)) !== 0 ? "stored" : "leaf");
        return;
      }
      const compact = list[0] as Uint8Array;
      const flag = compact[0]! >> 4;
      const nib = [...toNibbles(compact)].slice(flag & 1 ? 1 : 2);
      if (flag >= 2) {
        const full = [...path, ...nib];
        const key = new Uint8Array(32);
        for (let i = 0; i < 32; i++) key[i] = (full[2 * i]! << 4) | full[2 * i + 1]!;
        onLeaf(key, list[1] as Uint8Array);
        return;
      }
      visit([...path, ...nib], list[1]!, "stored");
    };
    visit([], root, "unknown");
  };
  walk(source.account, root, (hashedAddress, value) => {
    out.accounts++;
    const storageRoot = (RLP.decode(value) as Uint8Array[])[2]!;
    walk(source.storage(hashedAddress), storageRoot, () => out.slots++);
  });
  return out;
}

/**
 * What committing `tries` writes: "put" entries (trie, path → record RLP) and "delete" entries
 * (paths whose stored node goes), keyed `a:<path>` / `s:<hashed address>:<path>`.
 */
export function effectiveTrieWrites(tries: StateTries): Map<string, string> {
  const out = new Map<string, string>();
  const add = (prefix: string, o: StateTries["account"]): void => {
    for (const [p, e] of o.entries) {
      if (e !== null && e.rlp !== undefined) out.set(prefix + p, bytesToHex(e.rlp));
      else if (o.baseStored.has(p)) out.set(prefix + p, "delete");
    }
    if (o.wiped) out.set(prefix + "*", "wipe");
  };
  add("a:", tries.account);
  for (const [h, o] of tries.storage) add(`s:${h}:`, o);
  return out;
}
