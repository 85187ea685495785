/**
 * Recording what a block's execution reads, to build its execution witness
 * (`debug_executionWitness`, `debug_executePayload`): every trie node, bytecode, account and
 * slot key and BLOCKHASH number that the execution — and the state-root computation after it —
 * asks for. The execution reads the parent's state by walking its tries from the parent's state
 * root over the chain store's content-addressed nodes (the same walk the stateless executor
 * does over a witness), so the recorded nodes are exactly the ones a stateless re-execution
 * needs: the paths to every key read or written, and the siblings that a deletion folds into
 * its parent.
 */
import type { Account } from "@ethereumjs/util";
import { KECCAK256_NULL, KECCAK256_RLP, equalsBytes } from "@ethereumjs/util";
import { toHex } from "../../util/bytes.js";
import type { StateReader } from "../state/stateReader.js";
import type { PreimageSource } from "../state/witnessState.js";
import type { ExecutionWitness } from "./types.js";

/** Where the recorder reads preimages: the chain store's trie nodes and bytecodes by hash. */
export interface PreimageBacking {
  getTrieNode(hash: Uint8Array): Uint8Array | undefined;
  getCode(codeHash: Uint8Array): Uint8Array | undefined;
}

/** A BLOCKHASH view (@ethereumjs's `getBlock`, and the fast engine's synchronous `hashSync`). */
export interface BlockHashView {
  getBlock(n: number): Promise<{ hash(): Uint8Array }>;
  hashSync?(n: bigint): Uint8Array;
  shallowCopy(): BlockHashView;
}

/** Records every preimage read through it. */
export class WitnessRecorder implements PreimageSource {
  private readonly nodes = new Map<string, Uint8Array>();
  private readonly codes = new Map<string, Uint8Array>();
  private readonly keys = new Map<string, Uint8Array>();
  /** The lowest block number BLOCKHASH asked for (undefined: none). */
  lowestBlockHash: bigint | undefined;

  constructor(private readonly backing: PreimageBacking) {}

  getTrieNode(hash: Uint8Array): Uint8Array | undefined {
    const k = toHex(hash);
    const seen = this.nodes.get(k);
    if (seen !== undefined) return seen;
    const node = this.backing.getTrieNode(hash);
    if (node !== undefined) this.nodes.set(k, node);
    return node;
  }

  /** Bytecode by hash (the only non-node preimage execution reads from state). */
  get(hash: Uint8Array): Uint8Array | undefined {
    const k = toHex(hash);
    const seen = this.codes.get(k);
    if (seen !== undefined) return seen;
    const code = this.backing.getCode(hash);
    if (code !== undefined) this.codes.set(k, code);
    return code;
  }

  /** Records an account address or a storage slot read (the witness's unhashed `keys`). */
  recordKey(key: Uint8Array): void {
    const k = toHex(key);
    if (!this.keys.has(k)) this.keys.set(k, key);
  }

  /** Makes sure the root node of a state is in the witness, even when nothing walked it. */
  includeRoot(stateRoot: Uint8Array): void {
    if (!equalsBytes(stateRoot, KECCAK256_RLP)) this.getTrieNode(stateRoot);
  }

  /** A state reader over `stateRoot` whose reads are all recorded. */
  reader(inner: StateReader): StateReader {
    return new KeyRecordingReader(inner, this);
  }

  /** A BLOCKHASH view over `inner` that records the lowest number asked for. */
  blockHashes(inner: BlockHashView): BlockHashView {
    const note = (n: bigint): void => {
      if (this.lowestBlockHash === undefined || n < this.lowestBlockHash) this.lowestBlockHash = n;
    };
    const view: BlockHashView = {
      getBlock: (n) => {
        note(BigInt(n));
        return inner.getBlock(n);
      },
      shallowCopy: () => view,
    };
    if (inner.hashSync !== undefined) {
      const sync = inner.hashSync.bind(inner);
      view.hashSync = (n) => {
        note(n);
        return sync(n);
      };
    }
    return view;
  }

  /** The witness recorded so far, with `headers` (RLP, ascending) given by the caller. */
  witness(headers: Uint8Array[]): ExecutionWitness {
    return { state: [...this.nodes.values()], codes: [...this.codes.values()], keys: [...this.keys.values()], headers };
  }
}

/** A {@link StateReader} that records each account and slot key it is asked for. */
class KeyRecordingReader implements StateReader {
  constructor(
    private readonly inner: StateReader,
    private readonly recorder: WitnessRecorder,
  ) {}
  get stateRoot(): Uint8Array {
    return this.inner.stateRoot;
  }
  account(address: Uint8Array): Account | undefined {
    this.recorder.recordKey(address);
    return this.inner.account(address);
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    this.recorder.recordKey(address);
    this.recorder.recordKey(slot);
    return this.inner.storage(address, slot);
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return new Uint8Array(0);
    return this.inner.code(codeHash);
  }
}
