/**
 * Recording what a block's execution reads, to build its execution witness
 * (`debug_executionWitness`, `debug_executePayload`): every trie node, bytecode, account and
 * slot key and BLOCKHASH number that the execution — and the state-root computation after it —
 * asks for. The execution reads the parent's state by walking its tries from the parent's state
 * root through the parent state's trie source (the chain store's path-keyed tries, with later
 * blocks reverted for an older parent), the same walk a stateless executor does over a witness,
 * and every node a read returns is recorded by its hash (a leaf the store rebuilds from the flat
 * state as its RLP): the paths to every key read or written, and the siblings that a deletion
 * folds into its parent.
 */
import { createAccountFromRLP, type Account } from "@ethereumjs/util";
import { KECCAK256_NULL, KECCAK256_RLP, equalsBytes } from "@ethereumjs/util";
import { RLP } from "@ethereumjs/rlp";
import type { TrieSource } from "../../storage/trie/source.js";
import type { StateTrieSource } from "../../storage/trie/stateTries.js";
import { nodeRlp, walkKey } from "../../storage/trie/walk.js";
import { toHex } from "../../util/bytes.js";
import { keccak256 } from "../../util/keccak.js";
import { hashAddress } from "../../storage/hashedKeys.js";
import type { StateReader } from "../state/stateReader.js";
import type { ExecutionWitness } from "./types.js";

/** Where the recorder reads: the parent state's tries, and bytecodes by hash. */
interface PreimageBacking {
  tries: StateTrieSource;
  getCode(codeHash: Uint8Array): Uint8Array | undefined;
}

/** A BLOCKHASH view (@ethereumjs's `getBlock`, and the fast engine's synchronous `hashSync`). */
interface BlockHashView {
  getBlock(n: number): Promise<{ hash(): Uint8Array }>;
  hashSync?(n: bigint): Uint8Array;
  shallowCopy(): BlockHashView;
}

/** Records every preimage read through it. */
export class WitnessRecorder {
  private readonly nodes = new Map<string, Uint8Array>();
  private readonly codes = new Map<string, Uint8Array>();
  private readonly keys = new Map<string, Uint8Array>();
  /** The lowest block number BLOCKHASH asked for (undefined: none). */
  lowestBlockHash: bigint | undefined;
  /** The parent state's tries, every node read recorded: what the execution's state roots read through. */
  readonly tries: StateTrieSource;

  constructor(private readonly backing: PreimageBacking) {
    const record = (inner: TrieSource): TrieSource => ({
      node: (path, hash, hint) => {
        const r = inner.node(path, hash, hint);
        if (r !== undefined) {
          const k = toHex(hash);
          if (!this.nodes.has(k)) this.nodes.set(k, nodeRlp(r, path.length));
        }
        return r;
      },
    });
    this.tries = { account: record(backing.tries.account), storage: (h) => record(backing.tries.storage(h)) };
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
    if (!equalsBytes(stateRoot, KECCAK256_RLP)) this.tries.account.node(new Uint8Array(0), stateRoot, "unknown");
  }

  /** A state reader over `stateRoot` whose reads are all recorded: each account and slot walked down its trie. */
  reader(stateRoot: Uint8Array): StateReader {
    return new RecordingReader(stateRoot, this);
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

/** A {@link StateReader} walking the recorded tries, recording each account and slot key it is asked for. */
class RecordingReader implements StateReader {
  private readonly accounts = new Map<string, Account | undefined>();

  constructor(
    readonly stateRoot: Uint8Array,
    private readonly recorder: WitnessRecorder,
  ) {}
  account(address: Uint8Array): Account | undefined {
    this.recorder.recordKey(address);
    const k = toHex(address);
    if (this.accounts.has(k)) return this.accounts.get(k);
    const v = walkKey(this.recorder.tries.account, this.stateRoot, hashAddress(address)).value;
    const a = v === undefined ? undefined : createAccountFromRLP(v);
    this.accounts.set(k, a);
    return a;
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    this.recorder.recordKey(slot);
    const a = this.account(address);
    if (a === undefined || equalsBytes(a.storageRoot, KECCAK256_RLP)) return new Uint8Array(0);
    const v = walkKey(this.recorder.tries.storage(hashAddress(address)), a.storageRoot, keccak256(slot)).value;
    return v === undefined ? new Uint8Array(0) : (RLP.decode(v) as Uint8Array);
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return new Uint8Array(0);
    return this.recorder.get(codeHash);
  }
}
