/**
 * Stateless execution: state read from an execution witness — a content-addressed store of
 * preimages (keccak256(value) → value: trie nodes, bytecodes, block headers), as kona's
 * fixtures, `debug_executionWitness` and fault-proof programs carry it. Lookups walk the
 * Merkle-Patricia tries from a state root; a node the witness lacks is an error, never a
 * silent "absent".
 */
import { RLP } from "@ethereumjs/rlp";
import { Account, KECCAK256_RLP, createAccountFromRLP, equalsBytes } from "@ethereumjs/util";
import { keccak256 } from "../../util/keccak.js";
import { TypedError } from "../../util/errors.js";
import { toHex } from "../../util/bytes.js";
import type { StateReader } from "./stateReader.js";
import type { StateTrieSource } from "../../storage/trie/stateTries.js";
import type { TrieSource } from "../../storage/trie/source.js";

/** Trie nodes by hash (a witness's preimages). */
interface TrieNodeSource {
  getTrieNode(hash: Uint8Array): Uint8Array | undefined;
}

/** Every bit of a branch's stored-children mask: a witness cannot tell, and reads by hash anyway. */
const ALL_STORED = 0xffff;

/**
 * A witness's nodes as the tries' source (trie updates over a witness: the state root of a
 * stateless execution): every node by the hash its parent references it by, whatever the path.
 */
export function witnessTrieSource(src: TrieNodeSource): StateTrieSource {
  const trie: TrieSource = {
    node: (_path, hash) => {
      const rlp = src.getTrieNode(hash);
      return rlp === undefined ? undefined : { rlp, storedMask: ALL_STORED };
    },
  };
  return { account: trie, storage: () => trie };
}

/** Stable code of {@link WitnessMissingError}. */
const WitnessMissingErrorCode = { INCOMPLETE: "WITNESS_INCOMPLETE" } as const;
/** A {@link WitnessMissingError}'s code with its metadata. */
type WitnessMissingErrorType = { code: typeof WitnessMissingErrorCode.INCOMPLETE };

/** The witness lacks a preimage the execution needs. */
export class WitnessMissingError extends TypedError<WitnessMissingErrorType> {
  constructor(what: string, hash: Uint8Array) {
    super({ code: WitnessMissingErrorCode.INCOMPLETE }, `execution witness is missing the ${what} with hash 0x${toHex(hash)}`);
  }
}

/** Stable codes of {@link WitnessStateError}. */
const WitnessStateErrorCode = { TRIE_NODE_INVALID: "TRIE_NODE_INVALID", INCOMPLETE: WitnessMissingErrorCode.INCOMPLETE } as const;
/**
 * A {@link WitnessStateError}'s code with its metadata: `items` the decoded node's item count;
 * `block` the number BLOCKHASH asked for and `reached` the lowest header the witness's chain of
 * parents gave (decimal strings).
 */
type WitnessStateErrorType =
  | { code: typeof WitnessStateErrorCode.TRIE_NODE_INVALID; items: number }
  | { code: typeof WitnessStateErrorCode.INCOMPLETE; block: string; reached: string };

/**
 * A witness whose contents do not fit the execution: a trie node that is neither a branch nor a
 * leaf/extension, or a BLOCKHASH above the witness's headers. (Not a {@link WitnessMissingError}:
 * no preimage is missing, so callers do not read it as missing state.)
 */
class WitnessStateError extends TypedError<WitnessStateErrorType> {}

/**
 * Where stateless reads find preimages by keccak hash: trie nodes through
 * {@link TrieNodeSource.getTrieNode}, bytecodes and RLP headers through {@link PreimageSource.get}.
 * A {@link WitnessStore}, or a recorder over the chain store that builds a witness
 * (execution/witness/recorder.ts).
 */
interface PreimageSource extends TrieNodeSource {
  get(hash: Uint8Array): Uint8Array | undefined;
}

/** A keccak-addressed preimage store. */
export class WitnessStore implements PreimageSource {
  private readonly map = new Map<string, Uint8Array>();

  /** Adds a preimage; its key is computed, so a wrong pairing cannot be inserted. */
  add(value: Uint8Array): void {
    this.map.set(toHex(keccak256(value)), value);
  }

  /** Builds a store from values (keys are recomputed and not trusted). */
  static fromValues(values: Iterable<Uint8Array>): WitnessStore {
    const s = new WitnessStore();
    for (const v of values) s.add(v);
    return s;
  }

  get size(): number {
    return this.map.size;
  }

  get(hash: Uint8Array): Uint8Array | undefined {
    return this.map.get(toHex(hash));
  }

  getTrieNode(hash: Uint8Array): Uint8Array | undefined {
    return this.get(hash);
  }
}

type Node = Uint8Array | Node[];

function nibbles(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 0x0f;
  }
  return out;
}

/** Decodes a hex-prefix (compact) path: its nibbles and whether the node is a leaf. */
function decodePath(encoded: Uint8Array): { path: number[]; leaf: boolean } {
  const all = nibbles(encoded);
  const flag = all[0];
  const leaf = flag >= 2;
  const odd = flag % 2 === 1;
  return { path: all.slice(odd ? 1 : 2), leaf };
}

/**
 * Looks up `key` (already hashed: keccak of the address or slot) in the trie with root
 * `root`. Returns the leaf value or undefined when the key is provably absent.
 */
function trieGet(src: TrieNodeSource, root: Uint8Array, key: Uint8Array): Uint8Array | undefined {
  if (equalsBytes(root, KECCAK256_RLP)) return undefined;
  const want = nibbles(key);
  const resolve = (ref: Node): Node | undefined => {
    if (Array.isArray(ref)) return ref;
    if (ref.length === 0) return undefined;
    if (ref.length < 32) return RLP.decode(ref) as Node;
    const raw = src.getTrieNode(ref);
    if (raw === undefined) throw new WitnessMissingError("trie node", ref);
    return RLP.decode(raw) as Node;
  };
  let node = resolve(root);
  let i = 0;
  for (;;) {
    if (node === undefined || !Array.isArray(node)) return undefined;
    if (node.length === 17) {
      if (i === want.length) {
        const v = node[16] as Uint8Array;
        return v.length === 0 ? undefined : v;
      }
      node = resolve(node[want[i]]);
      i++;
      continue;
    }
    if (node.length !== 2) throw new WitnessStateError({ code: WitnessStateErrorCode.TRIE_NODE_INVALID, items: node.length }, `trie node with ${node.length} items; 2 or 17 expected`);
    const { path, leaf } = decodePath(node[0] as Uint8Array);
    for (let j = 0; j < path.length; j++) if (want[i + j] !== path[j]) return undefined;
    i += path.length;
    if (leaf) return i === want.length ? (node[1] as Uint8Array) : undefined;
    node = resolve(node[1]);
  }
}

/** The state at `stateRoot`, read from a witness. */
export class WitnessStateReader implements StateReader {
  private readonly accounts = new Map<string, Account | undefined>();

  constructor(
    private readonly witness: PreimageSource,
    readonly stateRoot: Uint8Array,
  ) {}

  account(address: Uint8Array): Account | undefined {
    const k = toHex(address);
    if (this.accounts.has(k)) return this.accounts.get(k);
    const rlp = trieGet(this.witness, this.stateRoot, keccak256(address));
    const a = rlp === undefined ? undefined : createAccountFromRLP(rlp);
    this.accounts.set(k, a);
    return a;
  }

  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const a = this.account(address);
    if (a === undefined) return new Uint8Array(0);
    const v = trieGet(this.witness, a.storageRoot, keccak256(slot));
    return v === undefined ? new Uint8Array(0) : (RLP.decode(v) as Uint8Array);
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    const c = this.witness.get(codeHash);
    if (c === undefined) throw new WitnessMissingError("bytecode", codeHash);
    return c;
  }
}

/**
 * The BLOCKHASH view of a witness: walks parent links of the RLP headers it holds, from
 * the parent of the block being executed.
 */
export function witnessBlockHashes(witness: PreimageSource, parentHash: Uint8Array) {
  const view = {
    async getBlock(n: number): Promise<{ hash(): Uint8Array }> {
      let hash = parentHash;
      for (;;) {
        const rlp = witness.get(hash);
        if (rlp === undefined) throw new WitnessMissingError("block header", hash);
        const fields = RLP.decode(rlp) as Uint8Array[];
        const num = fields[8].length === 0 ? 0 : Number(BigInt("0x" + toHex(fields[8])));
        if (num === n) {
          const found = hash;
          return { hash: () => found };
        }
        if (num < n) throw new WitnessStateError({ code: WitnessStateErrorCode.INCOMPLETE, block: n.toString(), reached: num.toString() }, `BLOCKHASH(${n}) asked above the witness's parent block ${num}`);
        hash = fields[0];
      }
    },
    shallowCopy() {
      return view;
    },
  };
  return view;
}
