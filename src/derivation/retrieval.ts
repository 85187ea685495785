/**
 * L1 retrieval (specs derivation.md "L1 Retrieval"; ecotone/derivation.md "Blob Retrieval"): the
 * frames one L1 block carries for the rollup. Only transactions to the batch inbox signed by the
 * batcher of the system config *at that L1 block* count; a type-3 transaction's data is its blobs
 * (fetched from the beacon API by slot and checked against their versioned hashes), any other
 * type's is its calldata. Each data item parses to frames whole or not at all. A blob whose OP
 * encoding is invalid is ignored; a blob the beacon node cannot serve, or serves wrong, stops
 * retrieval with an error the caller retries (the versioned hash on L1 proves the right blob
 * exists).
 */
import { equalsBytes } from "@ethereumjs/util";
import { TypedError } from "../util/errors.js";
import { isInvalidBlobEncoding } from "./blobErrors.js";
import { decodeBlob } from "./blobCodec.js";
import type { IndexedBlobHash } from "./beaconClient.js";
import type { DerivationCodecError } from "./codecErrors.js";
import { parseBatcherData, type Frame } from "./frame.js";
import type { L1Block } from "./l1Source.js";

/** Where blobs come from (a `BeaconClient` fits). */
export interface BlobSource {
  /** The blobs of the L1 block with `timestamp`, one per hash and in that order, each verified against its hash. */
  blobsForBlock(timestamp: bigint, hashes: readonly IndexedBlobHash[]): Promise<Uint8Array[]>;
}

/** What one L1 block gave, and what was dropped on the way (for metrics and warnings). */
export interface RetrievedData {
  frames: Frame[];
  /** Batcher transactions (calldata items or blobs) read. */
  items: number;
  /** Blobs fetched. */
  blobs: number;
  /** Items dropped: their frames did not parse (the codec error), or their blob's encoding was invalid. */
  dropped: { kind: "frames" | "blob"; reason: string; message: string }[];
  /** Items of another derivation version (ignored by the rules). */
  ignored: number;
  /** Inbox transactions from a sender other than the batcher. */
  unauthorized: number;
}

/** Stable code of {@link NoBeaconError}. */
const NoBeaconErrorCode = { NO_BEACON: "DERIVATION_NO_BEACON" } as const;
/** A {@link NoBeaconError}'s code with its metadata. */
type NoBeaconErrorType = { code: typeof NoBeaconErrorCode.NO_BEACON; l1Number: string };

/** A blob transaction met with no beacon API configured: derivation cannot go on. */
export class NoBeaconError extends TypedError<NoBeaconErrorType> {
  constructor(l1Number: bigint) {
    super({ code: NoBeaconErrorCode.NO_BEACON, l1Number: l1Number.toString() }, `L1 block ${l1Number} carries batcher blobs, but no beacon API is configured: give --l1.beacon`);
  }
}

/**
 * The frames L1 block `block` carries from `batcher`, in transaction order (blobs in their order
 * within a transaction). Rejects only when blobs cannot be fetched (see the module comment).
 */
export async function retrieveFrames(block: L1Block, batcher: Uint8Array, blobs: BlobSource | undefined): Promise<RetrievedData> {
  const out: RetrievedData = { frames: [], items: 0, blobs: 0, dropped: [], ignored: 0, unauthorized: 0 };
  const mine = block.inboxTxs.filter((t) => {
    const ok = equalsBytes(t.from, batcher);
    if (!ok) out.unauthorized++;
    return ok;
  });
  // Every blob of the batcher's transactions in one beacon request.
  const wanted: IndexedBlobHash[] = [];
  for (const t of mine) {
    if (t.data.kind !== "blobs") continue;
    t.data.versionedHashes.forEach((hash, i) => wanted.push({ hash, index: (t.data as { firstBlobIndex: number }).firstBlobIndex + i }));
  }
  let fetched: Uint8Array[] = [];
  if (wanted.length > 0) {
    if (blobs === undefined) throw new NoBeaconError(block.info.number);
    fetched = await blobs.blobsForBlock(block.info.timestamp, wanted);
    out.blobs = fetched.length;
  }
  let next = 0;
  const take = (data: Uint8Array): void => {
    out.items++;
    const parsed = parseBatcherData(data);
    if (parsed.status === "frames") out.frames.push(...parsed.frames);
    else if (parsed.status === "ignored") out.ignored++;
    else out.dropped.push({ kind: "frames", reason: (parsed.error as DerivationCodecError).code, message: parsed.error.message });
  };
  for (const t of mine) {
    if (t.data.kind === "calldata") {
      take(t.data.data);
      continue;
    }
    for (let i = 0; i < t.data.versionedHashes.length; i++) {
      const blob = fetched[next++]!;
      let payload: Uint8Array;
      try {
        payload = decodeBlob(blob);
      } catch (e) {
        if (!isInvalidBlobEncoding(e)) throw e;
        out.items++;
        out.dropped.push({ kind: "blob", reason: e.code, message: e.message });
        continue;
      }
      take(payload);
    }
  }
  return out;
}
