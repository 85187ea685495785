/**
 * Blob transactions in their network form: splitting the wrapper into the canonical transaction
 * and its sidecar, and verifying the sidecar (counts, sizes, versioned hashes, KZG proofs with
 * the native and the pure-JS KZG) — a bad proof, a swapped commitment or an Osaka wrapper are
 * refused, each naming what is wrong.
 */
import { RLP } from "@ethereumjs/rlp";
import { createTxFromRLP } from "@ethereumjs/tx";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BlobSidecarErrorCode,
  blobTxWithSidecar,
  checkSidecarShape,
  jsBlobProofCheck,
  splitBlobNetworkForm,
  verifyBlobSidecar,
  type BlobSidecar,
} from "../../../src/chain/blobSidecar.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { devnetL1Genesis } from "../../../src/chain/devnetL1.js";
import { DEVNET_L1_CHAIN_ID } from "../../../src/chain/constants.js";
import { verifyBlobProof } from "../../../src/derivation/kzg.js";
import { to0x } from "../../../src/util/bytes.js";
import { signedBlobTx, testBlob, type SignedBlobTx } from "../../helpers/blobTx.js";

const common = commonFromGenesis(devnetL1Genesis());
const acct = devAccounts()[0]!;
const nativeCheck = (b: Uint8Array, c: Uint8Array, p: Uint8Array): Promise<boolean> => verifyBlobProof(b, c, p);
const code = (c: string) => expect.objectContaining({ code: c });

let two: SignedBlobTx;
let hashes: Uint8Array[];

/** A copy of `s` with `f` applied. */
function altered(s: BlobSidecar, f: (c: BlobSidecar) => void): BlobSidecar {
  const c = { blobs: [...s.blobs], commitments: [...s.commitments], proofs: [...s.proofs] };
  f(c);
  return c;
}

beforeAll(async () => {
  two = await signedBlobTx({ common, chainId: DEVNET_L1_CHAIN_ID, nonce: 0n, privateKey: acct.privateKey, to: acct.address, blobs: [testBlob(1), testBlob(2)] });
  hashes = two.blobs.map((b) => b.versionedHash);
}, 60_000);

describe("splitBlobNetworkForm", () => {
  it("splits the network form into the canonical transaction and its sidecar", () => {
    const form = splitBlobNetworkForm(two.raw)!;
    const tx = createTxFromRLP(form.canonical, { common });
    expect(to0x(tx.hash())).toBe(two.hash);
    expect(form.sidecar.blobs).toEqual(two.blobs.map((b) => b.blob));
    expect(form.sidecar.commitments).toEqual(two.blobs.map((b) => b.commitment));
    expect(form.sidecar.proofs).toEqual(two.blobs.map((b) => b.proof));
    // The transaction rebuilt with its sidecar carries the blobs, as @ethereumjs's own network decoder does.
    const wrapped = blobTxWithSidecar(form, common);
    expect(wrapped.blobs).toEqual(two.blobs.map((b) => to0x(b.blob)));
    expect(to0x(wrapped.serializeNetworkWrapper())).toBe(to0x(two.raw));
  });

  it("leaves other transactions and the canonical form alone", () => {
    const form = splitBlobNetworkForm(two.raw)!;
    expect(splitBlobNetworkForm(form.canonical)).toBeUndefined();
    expect(splitBlobNetworkForm(new Uint8Array([2, 0xc0]))).toBeUndefined();
  });

  it("refuses Osaka's cell-proof wrapper (version 1) before Osaka, takes it on Osaka chains, refuses malformed wrappers", () => {
    const items = RLP.decode(two.raw.subarray(1)) as unknown[];
    const wrap = (list: unknown[]): Uint8Array => new Uint8Array([3, ...RLP.encode(list as never)]);
    expect(() => splitBlobNetworkForm(wrap([items[0], new Uint8Array([1]), items[1], items[2], items[3]]))).toThrow(
      code(BlobSidecarErrorCode.UNSUPPORTED_VERSION),
    );
    expect(() => splitBlobNetworkForm(wrap([items[0], items[1], items[2]]))).toThrow(code(BlobSidecarErrorCode.MALFORMED));
    // On an Osaka chain the cell-proof wrapper is taken: 128 cell proofs per blob, commitments bound to the versioned hashes.
    const cellProofs = (n: number): Uint8Array[] => Array.from({ length: n }, () => new Uint8Array(48));
    const v1 = splitBlobNetworkForm(wrap([items[0], new Uint8Array([1]), items[1], items[2], cellProofs(2 * 128)]), { cellProofs: true })!;
    expect(v1.sidecar.version).toBe(1);
    expect(v1.sidecar.proofs.length).toBe(256);
    expect(() => checkSidecarShape(v1.sidecar, hashes)).not.toThrow();
    const short = splitBlobNetworkForm(wrap([items[0], new Uint8Array([1]), items[1], items[2], cellProofs(2)]), { cellProofs: true })!;
    expect(() => checkSidecarShape(short.sidecar, hashes)).toThrow(/expected 2, 2 and 256/);
    const swapped = splitBlobNetworkForm(wrap([items[0], new Uint8Array([1]), items[1], [...(items[2] as Uint8Array[])].reverse(), cellProofs(256)]), { cellProofs: true })!;
    expect(() => checkSidecarShape(swapped.sidecar, hashes)).toThrow(code(BlobSidecarErrorCode.HASH_MISMATCH));
    expect(() => splitBlobNetworkForm(wrap([items[0], items[1], items[2], new Uint8Array([5])]))).toThrow(/proofs must be a list of byte strings/);
  });
});

describe("verifyBlobSidecar", () => {
  const sidecar = (): BlobSidecar => splitBlobNetworkForm(two.raw)!.sidecar;

  it("accepts a sidecar that matches its versioned hashes, with the native and the pure-JS KZG", async () => {
    await expect(verifyBlobSidecar(sidecar(), hashes, nativeCheck)).resolves.toBeUndefined();
    await expect(verifyBlobSidecar(sidecar(), hashes, jsBlobProofCheck)).resolves.toBeUndefined();
  }, 60_000);

  it("refuses a proof that does not verify its blob, naming the blob", async () => {
    // Blob 1's proof is blob 0's: the commitment still hashes to the versioned hash, the proof fails.
    const bad = altered(sidecar(), (c) => (c.proofs[1] = c.proofs[0]!));
    for (const check of [nativeCheck, jsBlobProofCheck]) {
      const err = await verifyBlobSidecar(bad, hashes, check).catch((e: unknown) => e);
      expect(err).toEqual(expect.objectContaining({ code: BlobSidecarErrorCode.PROOF_INVALID, meta: expect.objectContaining({ index: 1 }) }));
      expect((err as Error).message).toMatch(/^blob sidecar proof 1 does not verify blob 1 against commitment 1/);
    }
  }, 60_000);

  it("refuses a commitment that does not hash to the transaction's versioned hash", () => {
    const swapped = altered(sidecar(), (c) => c.commitments.reverse());
    expect(() => checkSidecarShape(swapped, hashes)).toThrow(code(BlobSidecarErrorCode.HASH_MISMATCH));
    expect(() => checkSidecarShape(swapped, hashes)).toThrow(/commitment 0 hashes to 0x01.*but the transaction's versioned hash 0 is 0x01/);
  });

  it("refuses wrong counts and sizes", () => {
    expect(() => checkSidecarShape(altered(sidecar(), (c) => c.proofs.pop()), hashes)).toThrow(
      /2 blobs, 2 commitments and 1 proofs for 2 versioned hashes; expected 2 of each/,
    );
    expect(() => checkSidecarShape({ blobs: [], commitments: [], proofs: [] }, [])).toThrow(code(BlobSidecarErrorCode.COUNT_MISMATCH));
    expect(() => checkSidecarShape(altered(sidecar(), (c) => (c.blobs[0] = c.blobs[0]!.subarray(1))), hashes)).toThrow(
      /blob sidecar blob 0 is 131071 bytes, expected 131072/,
    );
  });
});
