/**
 * Blob transactions in their network form (EIP-4844 "PooledTransactions" encoding): the signed
 * transaction with its sidecar of blobs, KZG commitments and proofs —
 * `0x03 || rlp([tx_payload_body, blobs, commitments, proofs])`, the Cancun/Prague ("v0")
 * wrapper with one blob proof per blob. Osaka's wrapper (EIP-7594:
 * `rlp([tx_payload_body, 1, blobs, commitments, cell_proofs])`) is recognized and refused, since
 * no chain basalt produces runs Osaka.
 *
 * What a pool must check before keeping a sidecar (EIP-4844 "Networking"): as many blobs,
 * commitments and proofs as the transaction has versioned hashes; each commitment hashing to its
 * versioned hash (`0x01 ++ sha256(commitment)[1:]`); each proof showing the blob is the
 * polynomial committed to. The last check is KZG, which callers supply as a
 * {@link BlobProofCheck} (the node plugs in derivation's native KZG; the default is the pure-JS
 * KZG @ethereumjs already uses, `chain/crypto.ts`).
 */
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createBlob4844TxFromRLP, type Blob4844Tx } from "@ethereumjs/tx";
import { createHash } from "node:crypto";
import { BLOB_BYTES, KZG_POINT_BYTES, VERSIONED_HASH_VERSION_KZG } from "./constants.js";
import { bytesEqual, to0x } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { customCrypto } from "./crypto.js";

/** EIP-2718 type byte of blob transactions. */
export const BLOB_TX_TYPE = 3;
/** Items of the v0 (EIP-4844) network form: body, blobs, commitments, proofs. */
const V0_ITEMS = 4;
/** Items of the EIP-7594 network form: body, wrapper version, blobs, commitments, cell proofs. */
const V1_ITEMS = 5;
/** Wrapper version of EIP-7594's network form (cell proofs). */
const CELL_PROOFS_WRAPPER_VERSION = 1;

/** Stable codes of {@link BlobSidecarError}. */
export const BlobSidecarErrorCode = {
  /** A blob transaction came without its sidecar (the canonical form): its blobs could never be served. */
  MISSING: "BLOB_SIDECAR_MISSING",
  /** The network form is not the list it must be. */
  MALFORMED: "BLOB_SIDECAR_MALFORMED",
  /** An EIP-7594 (Osaka, cell proofs) wrapper on a chain that takes the EIP-4844 one. */
  UNSUPPORTED_VERSION: "BLOB_SIDECAR_UNSUPPORTED_VERSION",
  /** Blobs, commitments, proofs and versioned hashes are not as many each. */
  COUNT_MISMATCH: "BLOB_SIDECAR_COUNT_MISMATCH",
  /** A blob, commitment or proof of the wrong length. */
  WRONG_SIZE: "BLOB_SIDECAR_WRONG_SIZE",
  /** A commitment does not hash to the transaction's versioned hash at its index. */
  HASH_MISMATCH: "BLOB_SIDECAR_HASH_MISMATCH",
  /** A KZG proof does not verify its blob against its commitment. */
  PROOF_INVALID: "BLOB_SIDECAR_PROOF_INVALID",
} as const;

/** A {@link BlobSidecarError}'s code with its metadata. */
type BlobSidecarErrorType =
  | { code: typeof BlobSidecarErrorCode.MISSING }
  | { code: typeof BlobSidecarErrorCode.MALFORMED; reason: string }
  | { code: typeof BlobSidecarErrorCode.UNSUPPORTED_VERSION; version: number }
  | { code: typeof BlobSidecarErrorCode.COUNT_MISMATCH; hashes: number; blobs: number; commitments: number; proofs: number }
  | { code: typeof BlobSidecarErrorCode.WRONG_SIZE; what: "blob" | "commitment" | "proof"; index: number; expected: number; actual: number }
  | { code: typeof BlobSidecarErrorCode.HASH_MISMATCH; index: number; expected: string; actual: string }
  | { code: typeof BlobSidecarErrorCode.PROOF_INVALID; index: number; reason?: string };

/** A blob transaction's sidecar that is missing, malformed or does not verify. */
export class BlobSidecarError extends TypedError<BlobSidecarErrorType> {}

/** The sidecar of a blob transaction: per blob (in versioned-hash order) the blob, its commitment and its proof. */
export interface BlobSidecar {
  blobs: Uint8Array[];
  commitments: Uint8Array[];
  /** EIP-4844 (wrapper v0): one blob proof per blob; EIP-7594 (v1): the cell proofs, 128 per blob. */
  proofs: Uint8Array[];
  /** Wrapper version: 0 (EIP-4844) or 1 (EIP-7594 cell proofs, Osaka); 0 when absent. */
  version?: 0 | 1;
}

/** Cell proofs per blob in EIP-7594's wrapper (CELLS_PER_EXT_BLOB). */
const CELL_PROOFS_PER_BLOB = 128;

/** A blob transaction split from its network form: the canonical transaction bytes and the sidecar. */
interface BlobNetworkForm {
  /** `0x03 || rlp(tx_payload_body)`: what a block holds and the transaction hash is taken of. */
  canonical: Uint8Array;
  sidecar: BlobSidecar;
}

/**
 * Whether `proof` shows that `blob` is committed to by `commitment` (EIP-4844
 * `verify_blob_kzg_proof`). Inputs have their right lengths when called. A library that refuses
 * the input (a non-canonical field element, bytes that are no curve point) should throw: the
 * refusal is reported with its message.
 */
export type BlobProofCheck = (blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array) => Promise<boolean>;

function malformed(reason: string): BlobSidecarError {
  return new BlobSidecarError({ code: BlobSidecarErrorCode.MALFORMED, reason }, `malformed blob transaction network form: ${reason}`);
}

/** The byte strings of a list item of the wrapper, or a MALFORMED error naming it. */
function byteList(item: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(item) || item.some((x) => !(x instanceof Uint8Array))) throw malformed(`${what} must be a list of byte strings`);
  return item as Uint8Array[];
}

/**
 * Splits a raw blob transaction in network form into its canonical bytes and its sidecar.
 * Returns undefined for anything else: another type, or a blob transaction in the canonical form
 * (`0x03 || rlp(body)`, the body's first item being the chain id, not a list).
 * @throws BlobSidecarError MALFORMED for a wrapper that is not a list of the v0 items,
 * UNSUPPORTED_VERSION for EIP-7594's wrapper (cell proofs).
 */
export function splitBlobNetworkForm(raw: Uint8Array, opts: { cellProofs?: boolean } = {}): BlobNetworkForm | undefined {
  if (raw[0] !== BLOB_TX_TYPE) return undefined;
  let decoded: unknown;
  try {
    decoded = RLP.decode(raw.subarray(1));
  } catch (e) {
    throw malformed(`not RLP (${(e as Error).message})`);
  }
  if (!Array.isArray(decoded) || !Array.isArray(decoded[0])) return undefined;
  if (decoded.length === V1_ITEMS) {
    const version = decoded[1] instanceof Uint8Array && decoded[1].length <= 1 ? (decoded[1][0] ?? 0) : -1;
    if (version === CELL_PROOFS_WRAPPER_VERSION && opts.cellProofs === true) {
      return {
        canonical: canonicalOf(decoded[0]),
        sidecar: { blobs: byteList(decoded[2], "blobs"), commitments: byteList(decoded[3], "commitments"), proofs: byteList(decoded[4], "cell proofs"), version: 1 },
      };
    }
    if (version === CELL_PROOFS_WRAPPER_VERSION) {
      throw new BlobSidecarError(
        { code: BlobSidecarErrorCode.UNSUPPORTED_VERSION, version },
        "blob transaction sidecar has wrapper version 1 (EIP-7594 cell proofs, Osaka); this chain takes the EIP-4844 sidecar with one blob proof per blob",
      );
    }
    throw malformed(`5 items with wrapper version ${version}, expected [tx, blobs, commitments, proofs]`);
  }
  if (decoded.length !== V0_ITEMS) throw malformed(`${decoded.length} items, expected 4: [tx, blobs, commitments, proofs]`);
  return {
    canonical: canonicalOf(decoded[0]),
    sidecar: { blobs: byteList(decoded[1], "blobs"), commitments: byteList(decoded[2], "commitments"), proofs: byteList(decoded[3], "proofs") },
  };
}

/** `0x03 || rlp(body)`: the canonical bytes of a blob transaction body. */
function canonicalOf(body: unknown): Uint8Array {
  const encoded = RLP.encode(body as never);
  const canonical = new Uint8Array(encoded.length + 1);
  canonical[0] = BLOB_TX_TYPE;
  canonical.set(encoded, 1);
  return canonical;
}

/** The versioned hash of a KZG commitment: `0x01 ++ sha256(commitment)[1:]` (EIP-4844 `kzg_to_versioned_hash`). */
export function commitmentVersionedHash(commitment: Uint8Array): Uint8Array {
  const h = new Uint8Array(createHash("sha256").update(commitment).digest());
  h[0] = VERSIONED_HASH_VERSION_KZG;
  return h;
}

/**
 * The checks of a sidecar that need no KZG: counts, lengths, and each commitment's versioned hash
 * against the transaction's.
 * @throws BlobSidecarError COUNT_MISMATCH, WRONG_SIZE or HASH_MISMATCH, naming the blob.
 */
export function checkSidecarShape(sidecar: BlobSidecar, versionedHashes: readonly Uint8Array[]): void {
  const { blobs, commitments, proofs } = sidecar;
  const n = versionedHashes.length;
  const proofsExpected = sidecar.version === 1 ? n * CELL_PROOFS_PER_BLOB : n;
  if (n === 0 || blobs.length !== n || commitments.length !== n || proofs.length !== proofsExpected) {
    const counts = { hashes: n, blobs: blobs.length, commitments: commitments.length, proofs: proofs.length };
    throw new BlobSidecarError(
      { code: BlobSidecarErrorCode.COUNT_MISMATCH, ...counts },
      sidecar.version === 1
        ? `blob sidecar has ${blobs.length} blobs, ${commitments.length} commitments and ${proofs.length} cell proofs for ${n} versioned hashes; expected ${n}, ${n} and ${proofsExpected}`
        : `blob sidecar has ${blobs.length} blobs, ${commitments.length} commitments and ${proofs.length} proofs for ${n} versioned hashes; expected ${n} of each (at least 1)`,
    );
  }
  for (const [i, p] of proofs.entries()) {
    if (p.length !== KZG_POINT_BYTES) {
      throw new BlobSidecarError(
        { code: BlobSidecarErrorCode.WRONG_SIZE, what: "proof", index: i, expected: KZG_POINT_BYTES, actual: p.length },
        `blob sidecar proof ${i} is ${p.length} bytes, expected ${KZG_POINT_BYTES}`,
      );
    }
  }
  for (let i = 0; i < n; i++) {
    for (const [what, item, expected] of [
      ["blob", blobs[i]!, BLOB_BYTES],
      ["commitment", commitments[i]!, KZG_POINT_BYTES],
    ] as const) {
      if (item.length !== expected) {
        throw new BlobSidecarError(
          { code: BlobSidecarErrorCode.WRONG_SIZE, what, index: i, expected, actual: item.length },
          `blob sidecar ${what} ${i} is ${item.length} bytes, expected ${expected}`,
        );
      }
    }
    const actual = commitmentVersionedHash(commitments[i]!);
    if (!bytesEqual(actual, versionedHashes[i]!)) {
      const meta = { index: i, expected: to0x(versionedHashes[i]!), actual: to0x(actual) };
      throw new BlobSidecarError(
        { code: BlobSidecarErrorCode.HASH_MISMATCH, ...meta },
        `blob sidecar commitment ${i} hashes to ${meta.actual}, but the transaction's versioned hash ${i} is ${meta.expected}`,
      );
    }
  }
}

/**
 * Verifies a sidecar against its transaction's versioned hashes: {@link checkSidecarShape}, then
 * every blob proof with `check` (concurrently).
 * @throws BlobSidecarError as {@link checkSidecarShape}, or PROOF_INVALID naming the first blob whose proof fails.
 */
export async function verifyBlobSidecar(sidecar: BlobSidecar, versionedHashes: readonly Uint8Array[], check: BlobProofCheck = jsBlobProofCheck): Promise<void> {
  checkSidecarShape(sidecar, versionedHashes);
  // EIP-7594 cell proofs are checked for count and size only (known limit): the commitments still
  // bind to the transaction's versioned hashes.
  if (sidecar.version === 1) return;
  const results = await Promise.all(
    sidecar.blobs.map(async (blob, i): Promise<string | undefined> => {
      try {
        return (await check(blob, sidecar.commitments[i]!, sidecar.proofs[i]!)) ? undefined : "";
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
    }),
  );
  const index = results.findIndex((r) => r !== undefined);
  if (index < 0) return;
  const reason = results[index] === "" ? undefined : results[index];
  throw new BlobSidecarError(
    { code: BlobSidecarErrorCode.PROOF_INVALID, index, ...(reason === undefined ? {} : { reason }) },
    `blob sidecar proof ${index} does not verify blob ${index} against commitment ${index}${reason === undefined ? "" : `: ${reason}`}`,
  );
}

/** {@link BlobProofCheck} with the pure-JS KZG of `chain/crypto.ts` (micro-eth-signer, ~130 ms a blob, on the calling thread). */
export const jsBlobProofCheck: BlobProofCheck = async (blob, commitment, proof) =>
  customCrypto().kzg!.verifyBlobProofBatch([to0x(blob)], [to0x(commitment)], [to0x(proof)]);

/**
 * The blob transaction of `form` as @ethereumjs builds one from its network form: the canonical
 * transaction carrying its blobs, commitments and proofs (wrapper version 0), so a block builder
 * takes it. The sidecar is attached as given: verify it first ({@link verifyBlobSidecar}).
 * @throws what @ethereumjs throws for canonical bytes that are not a valid blob transaction.
 */
export function blobTxWithSidecar(form: BlobNetworkForm, common: Common): Blob4844Tx {
  const tx = createBlob4844TxFromRLP(form.canonical, { common, freeze: false });
  const wrapped = tx as unknown as { networkWrapperVersion: number; blobs: string[]; kzgCommitments: string[]; kzgProofs: string[] };
  wrapped.networkWrapperVersion = form.sidecar.version ?? 0;
  wrapped.blobs = form.sidecar.blobs.map(to0x);
  wrapped.kzgCommitments = form.sidecar.commitments.map(to0x);
  wrapped.kzgProofs = form.sidecar.proofs.map(to0x);
  Object.freeze(tx);
  return tx;
}
