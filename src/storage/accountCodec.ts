/**
 * How the flat state and its history hold an account: the **slim** RLP
 * `[nonce, balance, storageRoot, codeHash]` with the empty trie root and the empty code hash
 * written as empty strings (geth's snapshot encoding). An externally owned account is then
 * ~10–20 bytes instead of ~70, and most of Base's accounts are. The trie's leaf holds the full
 * RLP, rebuilt by {@link fullAccountRlp}.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";

const EMPTY = new Uint8Array(0);

function equal32(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== 32) return false;
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The slim RLP of an account given as its full RLP (what @ethereumjs's `Account.serialize()` gives). */
export function slimAccountRlp(full: Uint8Array): Uint8Array {
  const [nonce, balance, root, codeHash] = RLP.decode(full) as Uint8Array[];
  return RLP.encode([nonce!, balance!, equal32(root!, KECCAK256_RLP) ? EMPTY : root!, equal32(codeHash!, KECCAK256_NULL) ? EMPTY : codeHash!]);
}

/** The full RLP (the trie leaf's value) of an account given as its slim RLP. */
export function fullAccountRlp(slim: Uint8Array): Uint8Array {
  const [nonce, balance, root, codeHash] = RLP.decode(slim) as Uint8Array[];
  return RLP.encode([nonce!, balance!, root!.length === 0 ? KECCAK256_RLP : root!, codeHash!.length === 0 ? KECCAK256_NULL : codeHash!]);
}
