/**
 * Blob transactions for tests of a plain Ethereum chain (basalt's devnet-l1): a signed
 * @ethereumjs `Blob4844Tx` in its network form (blobs, commitments, proofs), the commitments and
 * proofs made with `src/derivation/kzg.ts` `commitBlob`.
 */
import type { Common } from "@ethereumjs/common";
import { createBlob4844Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { BLOB_BYTES } from "../../src/chain/constants.js";
import { commitBlob, type CommittedBlob } from "../../src/derivation/kzg.js";
import { to0x } from "../../src/util/bytes.js";

/** A signed blob transaction: its network form, hash and the blobs it carries. */
export interface SignedBlobTx {
  /** `0x03 || rlp([tx, blobs, commitments, proofs])`, what eth_sendRawTransaction takes. */
  raw: Uint8Array;
  /** The transaction hash (of the canonical form). */
  hash: string;
  blobs: CommittedBlob[];
}

/** A blob whose field elements each hold `seed` and their index in their last bytes (canonical: byte 0 stays 0). */
export function testBlob(seed: number): Uint8Array {
  const blob = new Uint8Array(BLOB_BYTES);
  for (let i = 0; i < BLOB_BYTES / 32; i++) {
    blob[i * 32 + 29] = seed & 0xff;
    blob[i * 32 + 30] = (i >> 8) & 0xff;
    blob[i * 32 + 31] = i & 0xff;
  }
  return blob;
}

/** Fields of {@link signedBlobTx}. */
export interface BlobTxFields {
  common: Common;
  chainId: bigint;
  nonce: bigint;
  /** 0x-hex private key of the sender. */
  privateKey: string;
  /** Recipient (blob transactions cannot create contracts). */
  to: string;
  blobs: Uint8Array[];
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
}

/** Commits to `blobs` and signs a blob transaction carrying them, in its network form. */
export async function signedBlobTx(f: BlobTxFields): Promise<SignedBlobTx> {
  const committed = await Promise.all(f.blobs.map((b) => commitBlob(b)));
  const tx = createBlob4844Tx(
    {
      chainId: f.chainId,
      nonce: f.nonce,
      maxPriorityFeePerGas: f.maxPriorityFeePerGas ?? 1_000_000_000n,
      maxFeePerGas: f.maxFeePerGas ?? 100_000_000_000n,
      maxFeePerBlobGas: f.maxFeePerBlobGas ?? 1_000_000_000n,
      gasLimit: 21_000n,
      to: f.to as `0x${string}`,
      value: 0n,
      blobVersionedHashes: committed.map((c) => to0x(c.versionedHash) as `0x${string}`),
      blobs: committed.map((c) => to0x(c.blob) as `0x${string}`),
      kzgCommitments: committed.map((c) => to0x(c.commitment) as `0x${string}`),
      kzgProofs: committed.map((c) => to0x(c.proof) as `0x${string}`),
    },
    { common: f.common },
  ).sign(hexToBytes(f.privateKey as `0x${string}`));
  return { raw: tx.serializeNetworkWrapper(), hash: to0x(tx.hash()), blobs: committed };
}
