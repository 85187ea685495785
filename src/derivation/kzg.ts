/**
 * KZG for L1 blobs (EIP-4844): commitments, blob proofs, versioned hashes, and the check
 * derivation needs — does this blob belong to this versioned hash?
 *
 * Two implementations behind one interface:
 * - `rust-eth-kzg` (default): `@crate-crypto/node-eth-kzg`, crate-crypto's Rust library as a
 *   napi addon, shipped prebuilt per platform in its optional packages (no install script) with
 *   the Ethereum trusted setup compiled in; its `async*` calls run on libuv's thread pool, so a
 *   ~30–70 ms commitment does not stall the event loop. Creating its context takes ~2 s once.
 * - `micro-eth-signer` (fallback): the pure-JS KZG basalt already uses for blob transactions
 *   (`chain/crypto.ts`), ~10× slower (~650 ms a commitment) and on the calling thread; used when
 *   the addon does not load on this platform, or with `BASALT_NATIVE_KZG=0`.
 * Both give byte-identical results (the tests cross-check them). Measurements and the choice:
 * docs/ARCHITECTURE.md "L1 derivation".
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { BLOB_BYTES, KZG_POINT_BYTES, VERSIONED_HASH_VERSION_KZG } from "../chain/constants.js";
import { customCrypto } from "../chain/crypto.js";
import { bytesEqual, fromHex, to0x } from "../util/bytes.js";
import { BlobError, BlobErrorCode, wrongSize } from "./blobErrors.js";

/** Names of the KZG implementations. */
export type KzgBackendName = "rust-eth-kzg" | "micro-eth-signer";

/** One KZG implementation; inputs are checked for length by the exported functions before they get here. */
export interface KzgBackend {
  readonly name: KzgBackendName;
  /** The blob's KZG commitment (48 bytes). */
  blobToCommitment(blob: Uint8Array): Promise<Uint8Array>;
  /** The blob's KZG proof for `commitment` (48 bytes). */
  computeBlobProof(blob: Uint8Array, commitment: Uint8Array): Promise<Uint8Array>;
  /** Whether `proof` shows that `blob` is the polynomial committed to by `commitment`. */
  verifyBlobProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): Promise<boolean>;
}

/** What the napi module exports (the part used here). */
interface NodeEthKzg {
  DasContextJs: {
    create(options: { usePrecomp: boolean }): {
      asyncBlobToKzgCommitment(blob: Uint8Array): Promise<Uint8Array>;
      asyncComputeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Promise<Uint8Array>;
      asyncVerifyBlobKzgProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): Promise<boolean>;
    };
  };
}

/** The Rust addon, or undefined when it does not load here (no prebuilt binary for the platform). */
function loadRust(): KzgBackend | undefined {
  let mod: NodeEthKzg;
  try {
    mod = createRequire(import.meta.url)("@crate-crypto/node-eth-kzg") as NodeEthKzg;
  } catch {
    return undefined;
  }
  // Precomputation only speeds up PeerDAS cell proofs, which derivation does not make.
  const ctx = mod.DasContextJs.create({ usePrecomp: false });
  return {
    name: "rust-eth-kzg",
    blobToCommitment: async (blob) => new Uint8Array(await ctx.asyncBlobToKzgCommitment(blob)),
    computeBlobProof: async (blob, commitment) => new Uint8Array(await ctx.asyncComputeBlobKzgProof(blob, commitment)),
    verifyBlobProof: (blob, commitment, proof) => ctx.asyncVerifyBlobKzgProof(blob, commitment, proof),
  };
}

/** micro-eth-signer's KZG, the instance `chain/crypto.ts` built (one trusted setup in memory). */
function loadJs(): KzgBackend {
  const kzg = customCrypto().kzg!;
  return {
    name: "micro-eth-signer",
    blobToCommitment: async (blob) => fromHex(kzg.blobToKzgCommitment(to0x(blob))),
    computeBlobProof: async (blob, commitment) => fromHex(kzg.computeBlobProof(to0x(blob), to0x(commitment))),
    verifyBlobProof: async (blob, commitment, proof) => kzg.verifyBlobProofBatch([to0x(blob)], [to0x(commitment)], [to0x(proof)]),
  };
}

const loaded = new Map<KzgBackendName, KzgBackend | undefined>();

/** The named implementation (created once per thread), or undefined when it does not load here. */
export function loadKzgBackend(name: KzgBackendName): KzgBackend | undefined {
  if (!loaded.has(name)) loaded.set(name, name === "rust-eth-kzg" ? loadRust() : loadJs());
  return loaded.get(name);
}

/** The implementation in use: the Rust addon, else (or with `BASALT_NATIVE_KZG=0`) micro-eth-signer. */
export function kzgBackend(): KzgBackend {
  const native = process.env.BASALT_NATIVE_KZG === "0" ? undefined : loadKzgBackend("rust-eth-kzg");
  return native ?? loadKzgBackend("micro-eth-signer")!;
}

function checkBlob(blob: Uint8Array): void {
  if (blob.length !== BLOB_BYTES) throw wrongSize("blob", BLOB_BYTES, blob.length);
}

function checkPoint(what: string, p: Uint8Array): void {
  if (p.length !== KZG_POINT_BYTES) throw wrongSize(what, KZG_POINT_BYTES, p.length);
}

/** Runs a backend call, turning the library's refusal into {@link BlobErrorCode.KZG_INVALID_INPUT}. */
async function call<T>(operation: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new BlobError({ code: BlobErrorCode.KZG_INVALID_INPUT, operation, reason }, `KZG ${operation} refused its input: ${reason}`);
  }
}

/**
 * The KZG commitment of a blob (48 bytes).
 * @throws BlobError WRONG_SIZE; KZG_INVALID_INPUT when a field element is not below the BLS modulus.
 */
export async function blobToCommitment(blob: Uint8Array, backend: KzgBackend = kzgBackend()): Promise<Uint8Array> {
  checkBlob(blob);
  return call("blobToCommitment", () => backend.blobToCommitment(blob));
}

/**
 * The KZG proof of a blob for its commitment (48 bytes), as a blob sidecar carries it.
 * @throws BlobError WRONG_SIZE; KZG_INVALID_INPUT for a non-canonical blob or a commitment that is no G1 point.
 */
export async function computeBlobProof(blob: Uint8Array, commitment: Uint8Array, backend: KzgBackend = kzgBackend()): Promise<Uint8Array> {
  checkBlob(blob);
  checkPoint("commitment", commitment);
  return call("computeBlobProof", () => backend.computeBlobProof(blob, commitment));
}

/**
 * Whether `proof` shows that `blob` is committed to by `commitment` (EIP-4844
 * `verify_blob_kzg_proof`); a few ms, against tens of ms for recomputing the commitment.
 * @throws BlobError WRONG_SIZE; KZG_INVALID_INPUT when the library refuses the input (a
 * non-canonical blob, bytes that are no G1 point; micro-eth-signer answers false to some of these).
 */
export async function verifyBlobProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array, backend: KzgBackend = kzgBackend()): Promise<boolean> {
  checkBlob(blob);
  checkPoint("commitment", commitment);
  checkPoint("proof", proof);
  return call("verifyBlobProof", () => backend.verifyBlobProof(blob, commitment, proof));
}

/**
 * The versioned hash of a commitment: `0x01 ++ sha256(commitment)[1:]` (EIP-4844
 * `kzg_to_versioned_hash`), as a blob transaction lists it.
 * @throws BlobError WRONG_SIZE for a commitment not 48 bytes.
 */
export function versionedHash(commitment: Uint8Array): Uint8Array {
  checkPoint("commitment", commitment);
  const h = new Uint8Array(createHash("sha256").update(commitment).digest());
  h[0] = VERSIONED_HASH_VERSION_KZG;
  return h;
}

/**
 * Whether `blob` is the blob of `hash`: recomputes its commitment and compares the versioned
 * hashes. False also for a blob no commitment exists for (a field element ≥ the BLS modulus).
 * @throws BlobError WRONG_SIZE for a blob not 131,072 bytes or a hash not 32.
 */
export async function verifyBlobAgainstVersionedHash(blob: Uint8Array, hash: Uint8Array, backend: KzgBackend = kzgBackend()): Promise<boolean> {
  if (hash.length !== 32) throw wrongSize("versioned hash", 32, hash.length);
  let commitment: Uint8Array;
  try {
    commitment = await blobToCommitment(blob, backend);
  } catch (e) {
    if (e instanceof BlobError && e.code === BlobErrorCode.KZG_INVALID_INPUT) return false;
    throw e;
  }
  return bytesEqual(versionedHash(commitment), hash);
}

/** A blob with what a blob transaction and its sidecar carry for it. */
export interface CommittedBlob {
  blob: Uint8Array;
  commitment: Uint8Array;
  proof: Uint8Array;
  versionedHash: Uint8Array;
}

/**
 * Commits to a blob: its commitment, proof and versioned hash (for a batcher, or a beacon-API
 * shim serving it).
 * @throws BlobError as {@link blobToCommitment}.
 */
export async function commitBlob(blob: Uint8Array, backend: KzgBackend = kzgBackend()): Promise<CommittedBlob> {
  const commitment = await blobToCommitment(blob, backend);
  const proof = await computeBlobProof(blob, commitment, backend);
  return { blob, commitment, proof, versionedHash: versionedHash(commitment) };
}
