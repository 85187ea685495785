/**
 * Proof reads at a block of the window, from the proofs store: `eth_getProof` and
 * `debug_proofsSyncStatus` (run in the proofs worker, which owns the store).
 */
import type { ChainReader } from "../blockchain/chainReader.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { accountProof, type NodeAt } from "./proof.js";
import { keccak256 } from "../util/keccak.js";
import { setLengthLeft } from "@ethereumjs/util";
import { PROOFS_PREFETCH_LEVELS } from "./constants.js";
import type { ProofsStore } from "./store.js";

/** An EIP-1186 answer's values as hex strings (the RPC layer renders the final JSON). */
export interface RawAccountProof {
  accountProof: string[];
  balance: string;
  nonce: string;
  codeHash: string;
  storageHash: string;
  storageProof: { value: string; proof: string[] }[];
}

/**
 * A node reader that starts the reads of the first {@link PROOFS_PREFETCH_LEVELS} path prefixes of
 * each key at once: a proof reads one node per level, each a RocksDB job on libuv's pool, so
 * walking them one after another costs a round trip per level. Reads are shared by path; a
 * prefix with no node reads nothing (undefined). Prefetched reads nobody awaits cannot reject
 * unhandled.
 */
function prefetching(read: NodeAt, keys: Uint8Array[]): NodeAt {
  const reads = new Map<string, Promise<Uint8Array | undefined>>();
  const get: NodeAt = (path) => {
    const id = Buffer.from(path).toString("hex");
    let r = reads.get(id);
    if (r === undefined) {
      r = read(path);
      r.catch(() => undefined);
      reads.set(id, r);
    }
    return r;
  };
  for (const key of keys) {
    const nibbles = new Uint8Array(key.length * 2);
    for (let i = 0; i < key.length; i++) {
      nibbles[2 * i] = key[i]! >> 4;
      nibbles[2 * i + 1] = key[i]! & 0x0f;
    }
    for (let level = 0; level <= PROOFS_PREFETCH_LEVELS; level++) void get(nibbles.subarray(0, level));
  }
  return get;
}

/** Base's node's answer for a block outside the window (reth's `StateForNumberNotFound`). */
function noState(number: bigint, earliest: bigint | undefined, latest: bigint | undefined): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.OUTSIDE_WINDOW, block: number.toString(), earliest: earliest?.toString(), latest: latest?.toString() }, `no state found for block number ${number}`);
}

const hex = (b: Uint8Array): string => "0x" + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/^0x/, ""), "hex"));

/** Reads proofs at blocks of the store's window. */
export class ProofsReader {
  constructor(
    private readonly chain: ChainReader,
    private readonly store: ProofsStore,
  ) {}

  /** `debug_proofsSyncStatus`: the window's ends (null before the first block is stored). */
  status(): { earliest: number | null; latest: number | null } {
    const w = this.store.window();
    return { earliest: w.earliest === undefined ? null : Number(w.earliest.number), latest: w.latest === undefined ? null : Number(w.latest.number) };
  }

  /**
   * The account and storage proofs of `address` at block `number`, which must be in the window
   * (else `PROOFS_NO_STATE`: "no state found for block number N", as Base's node answers).
   * @param slots storage keys as 32-byte hex.
   */
  async proof(address: string, slots: string[], number: bigint): Promise<RawAccountProof> {
    const w = this.store.window();
    if (w.earliest === undefined || w.latest === undefined || number < w.earliest.number || number > w.latest.number) {
      throw noState(number, w.earliest?.number, w.latest?.number);
    }
    const hash = this.chain.getCanonicalHash(number);
    const header = hash === undefined ? undefined : this.chain.getHeaderByHash(hash);
    if (header === undefined) throw noState(number, w.earliest.number, w.latest.number);
    const at = number;
    const address20 = unhex(address);
    const slotKeys = slots.map((s) => keccak256(setLengthLeft(unhex(s), 32)));
    const p = await accountProof(
      prefetching((path) => this.store.node({ kind: "account" }, path, at), [keccak256(address20)]),
      (hashedAddress) => prefetching((path) => this.store.node({ kind: "storage", hashedAddress }, path, at), slotKeys),
      header.stateRoot,
      address20,
      slots.map(unhex),
    );
    return {
      accountProof: p.accountProof.map(hex),
      balance: "0x" + p.balance.toString(16),
      nonce: "0x" + p.nonce.toString(16),
      codeHash: hex(p.codeHash),
      storageHash: hex(p.storageRoot),
      storageProof: p.storageProof.map((s) => ({ value: "0x" + s.value.toString(16), proof: s.proof.map(hex) })),
    };
  }
}

