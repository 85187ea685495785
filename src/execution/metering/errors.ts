/**
 * Typed errors of metering (base_meterBundle, base_meterBlockByHash/ByNumber,
 * base_meteredPriorityFeePerGas). Messages are base/base's (v0.6.0-rc.19 and main
 * `crates/client/metering/src/rpc.rs`); src/rpc/errors.ts maps the codes to Base's JSON-RPC codes
 * (-32602 for what the caller named wrongly, -32603 for a failed metering).
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link MeteringError}. */
export const MeteringErrorCode = {
  /** A bundle transaction does not decode or its signer cannot be recovered (Base: -32602 "Failed to parse bundle: …"). */
  PARSE: "METERING_PARSE",
  /** The block to meter is not stored (Base: -32602 "Block not found: …"). */
  BLOCK_NOT_FOUND: "METERING_BLOCK_NOT_FOUND",
  /** The state block has no L1-attributes transaction to read L1 info from (Base: -32602 "Block has no transactions: …"). */
  NO_L1_INFO: "METERING_NO_L1_INFO",
  /** A bundle transaction failed validation or execution (Base: -32603 "Bundle metering failed: …"). */
  BUNDLE_FAILED: "METERING_BUNDLE_FAILED",
  /** Re-executing the block failed (Base: -32603 "Block metering failed: …"). */
  BLOCK_FAILED: "METERING_BLOCK_FAILED",
  /** base_meteredPriorityFeePerGas without resource limits (Base: -32603 "Priority fee estimation not configured"). */
  NOT_CONFIGURED: "METERING_NOT_CONFIGURED",
  /** The bundle's demand exceeds a resource limit (Base: -32603 "Priority fee estimation failed: …"). */
  ESTIMATE_FAILED: "METERING_ESTIMATE_FAILED",
} as const;
/** One of the {@link MeteringErrorCode} values. */
export type MeteringErrorCode = (typeof MeteringErrorCode)[keyof typeof MeteringErrorCode];

/** A {@link MeteringError}'s code with its metadata. */
type MeteringErrorType =
  | { code: typeof MeteringErrorCode.BLOCK_FAILED }
  | { code: typeof MeteringErrorCode.PARSE }
  | { code: typeof MeteringErrorCode.NO_L1_INFO }
  | { code: typeof MeteringErrorCode.BUNDLE_FAILED }
  | { code: typeof MeteringErrorCode.BLOCK_NOT_FOUND }
  | { code: typeof MeteringErrorCode.ESTIMATE_FAILED }
  | { code: typeof MeteringErrorCode.NOT_CONFIGURED };

/** A metering request that could not be answered. */
export class MeteringError extends TypedError<MeteringErrorType> {}
