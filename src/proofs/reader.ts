/**
 * Proof reads at a block of the window, from the proofs store: `eth_getProof` and
 * `debug_proofsSyncStatus` (run in the proofs worker, which owns the store).
 */
import type { Chain } from "../blockchain/chain.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { accountProof } from "./proof.js";
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

/** Base's node's answer for a block outside the window (reth's `StateForNumberNotFound`). */
function noState(number: bigint, earliest: bigint | undefined, latest: bigint | undefined): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.OUTSIDE_WINDOW, block: number.toString(), earliest: earliest?.toString(), latest: latest?.toString() }, `no state found for block number ${number}`);
}

const hex = (b: Uint8Array): string => "0x" + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/^0x/, ""), "hex"));

/** Reads proofs at blocks of the store's window. */
export class ProofsReader {
  constructor(
    private readonly chain: Chain,
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
    const p = await accountProof(
      (path) => this.store.node({ kind: "account" }, path, at),
      (hashedAddress) => (path) => this.store.node({ kind: "storage", hashedAddress }, path, at),
      header.stateRoot,
      unhex(address),
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

