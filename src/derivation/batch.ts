/**
 * Batches: `batch_type ++ content` (specs derivation.md "Batch Format"; op-node `batch.go`
 * `BatchData`). Type 0 is a singular batch, type 1 a span batch (Delta); any other type, the
 * un-activated type 2 included, is unknown. In a channel each batch is wrapped in an RLP byte
 * string (channel.ts).
 */
import { DerivationCodecError, DerivationCodecErrorCode } from "./codecErrors.js";
import { type SingularBatch, decodeSingularBatch, encodeSingularBatch } from "./singularBatch.js";
import { type RawSpanBatch, decodeSpanBatch, encodeSpanBatch } from "./spanBatch.js";

/** Batch type bytes. */
const BatchType = {
  /** One L2 block (`SingularBatchType`). */
  SINGULAR: 0,
  /** A span of L2 blocks, from Delta on (`SpanBatchType`). */
  SPAN: 1,
} as const;

/** A decoded batch: a singular batch, or a span batch in its encoded (raw) form. */
export type Batch = { type: "singular"; batch: SingularBatch } | { type: "span"; batch: RawSpanBatch };

/**
 * Decodes `batch_type ++ content`. Throws a {@link DerivationCodecError}: UNKNOWN_BATCH_TYPE for
 * empty bytes or a type other than 0 and 1, else the singular or span batch decoder's error.
 */
export function decodeBatch(data: Uint8Array): Batch {
  if (data.length === 0) {
    throw new DerivationCodecError({ code: DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE, batchType: -1 }, "batch is empty; expected a type byte (0 singular, 1 span) and its content");
  }
  const content = data.subarray(1);
  switch (data[0]) {
    case BatchType.SINGULAR:
      return { type: "singular", batch: decodeSingularBatch(content) };
    case BatchType.SPAN:
      return { type: "span", batch: decodeSpanBatch(content) };
    default:
      throw new DerivationCodecError(
        { code: DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE, batchType: data[0]! },
        `batch type ${data[0]} is unknown; expected 0 (singular) or 1 (span)`,
      );
  }
}

/** Encodes `batch_type ++ content`. */
export function encodeBatch(batch: Batch): Uint8Array {
  const content = batch.type === "singular" ? encodeSingularBatch(batch.batch) : encodeSpanBatch(batch.batch);
  const out = new Uint8Array(1 + content.length);
  out[0] = batch.type === "singular" ? BatchType.SINGULAR : BatchType.SPAN;
  out.set(content, 1);
  return out;
}
