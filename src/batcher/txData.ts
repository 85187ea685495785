/**
 * A channel's frames as batcher transactions (specs derivation.md "Batcher Transaction Format",
 * ecotone/derivation.md "Blob Encoding"): each frame becomes one batcher-data item,
 * `0x00 ++ frame`. As calldata, one item per transaction, at most `BATCHER_MAX_CALLDATA_BYTES`
 * (op-batcher's default `--max-l1-tx-size-bytes`). As blobs, one item per blob (OP blob encoding
 * v0, at most 130,044 bytes of payload) and up to `--batcher.blobs-per-tx` blobs per transaction.
 * Frame sizes are chosen so every item fits: the frame plus the version byte.
 */
import { BLOB_MAX_PAYLOAD_BYTES } from "../config/constants.js";
import { BATCHER_MAX_CALLDATA_BYTES } from "./constants.js";
import { encodeBlob } from "../derivation/blobCodec.js";
import type { BatcherData } from "../config/options.js";
import { encodeBatcherData, type Frame } from "../derivation/frame.js";

/** Where batcher data goes (`--batcher.data`). */
export type BatcherDataKind = BatcherData;

/** What one batcher transaction carries. */
export type TxCandidate =
  /** A type-2 transaction whose calldata is one frame's batcher data. */
  | { kind: "calldata"; data: Uint8Array; frames: number }
  /** A type-3 transaction whose blobs each hold one frame's batcher data; `payloadBytes` is that data, summed. */
  | { kind: "blobs"; blobs: Uint8Array[]; frames: number; payloadBytes: number };

/** Most encoded bytes of one frame for `kind`: what one item holds less its version byte. */
export function maxFrameBytesFor(kind: BatcherDataKind): number {
  return (kind === "blobs" ? BLOB_MAX_PAYLOAD_BYTES : BATCHER_MAX_CALLDATA_BYTES) - 1;
}

/** Frames of one channel for `kind`: one calldata transaction's worth, or `blobsPerTx` blobs' worth. */
export function targetFramesFor(kind: BatcherDataKind, blobsPerTx: number): number {
  return kind === "blobs" ? blobsPerTx : 1;
}

/** The transactions carrying `frames`, in order: one per frame as calldata, `blobsPerTx` frames per transaction as blobs. */
export function txCandidatesOf(frames: readonly Frame[], kind: BatcherDataKind, blobsPerTx: number): TxCandidate[] {
  const items = frames.map((f) => encodeBatcherData([f]));
  if (kind === "calldata") return items.map((data) => ({ kind, data, frames: 1 }));
  const out: TxCandidate[] = [];
  for (let i = 0; i < items.length; i += blobsPerTx) {
    const group = items.slice(i, i + blobsPerTx);
    out.push({ kind, blobs: group.map(encodeBlob), frames: group.length, payloadBytes: group.reduce((n, d) => n + d.length, 0) });
  }
  return out;
}
