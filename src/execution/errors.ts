/**
 * Typed errors of call execution (eth_call, eth_estimateGas, eth_createAccessList): stable codes
 * with metadata per code. Messages are geth's texts for the same failures; the JSON-RPC error
 * codes they answer with are chosen in one place only, `src/rpc/errors.ts` (a revert with data
 * answers code 3 with the data, everything else -32000).
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link ExecutionError}. */
export const ExecutionErrorCode = {
  /** The call reverted (REVERT opcode). */
  REVERTED: "EXECUTION_REVERTED",
  /** The EVM halted with an exceptional error other than a revert (out of gas, invalid opcode, …). */
  HALTED: "EXECUTION_HALTED",
  /** The call cannot run as a transaction at all (fees, funds, sender, gas limit); see {@link InvalidCallReason}. */
  INVALID_CALL: "EXECUTION_INVALID_CALL",
  /** eth_estimateGas: the call does not succeed with any gas limit up to the allowance. */
  GAS_ALLOWANCE_EXCEEDED: "EXECUTION_GAS_ALLOWANCE_EXCEEDED",
  /** The block the call targets is not stored (reorged away after the RPC thread resolved the tag). */
  HEADER_NOT_FOUND: "EXECUTION_HEADER_NOT_FOUND",
} as const;
/** One of the {@link ExecutionErrorCode} values. */
export type ExecutionErrorCode = (typeof ExecutionErrorCode)[keyof typeof ExecutionErrorCode];

/** Why a call cannot run as a transaction. */
export type InvalidCallReason =
  /** The sender cannot pay gas × price + value (geth `ErrInsufficientFunds`). */
  | "insufficient-funds"
  /** eth_estimateGas: the value is at least the sender's balance (geth `ErrInsufficientFundsForTransfer`). */
  | "insufficient-funds-for-transfer"
  /** The gas limit is below the intrinsic gas (geth `ErrIntrinsicGas`). */
  | "intrinsic-gas"
  /** The fee cap is below the block's base fee (geth `ErrFeeCapTooLow`). */
  | "fee-cap-below-base-fee"
  /** The priority fee is above the fee cap (geth `ErrTipAboveFeeCap`). */
  | "tip-above-fee-cap"
  /** The sender has code (EIP-3607, geth `ErrSenderNoEOA`). */
  | "sender-not-eoa"
  /** The gas limit is above the per-transaction maximum (EIP-7825, geth `ErrGasLimitTooHigh`). */
  | "gas-limit-too-high"
  /** Another refusal of the transaction that names its gas limit. */
  | "gas-limit"
  /** Any other refusal of the transaction; the message is the library's. */
  | "rejected";

/** An {@link ExecutionError}'s code with its metadata. */
type ExecutionErrorType =
  /** `data`: the revert data as 0x hex (`0x` when there is none). */
  | { code: typeof ExecutionErrorCode.REVERTED; data: string }
  /** `reason`: the EVM's error name, e.g. `out of gas`, `invalid opcode`. */
  | { code: typeof ExecutionErrorCode.HALTED; reason: string }
  /** `address`: the sender, where the message names it. */
  | { code: typeof ExecutionErrorCode.INVALID_CALL; reason: InvalidCallReason; address?: string }
  /** `allowance`: the highest gas limit tried (decimal). */
  | { code: typeof ExecutionErrorCode.GAS_ALLOWANCE_EXCEEDED; allowance: string }
  /** `hash`: the block hash the request named. */
  | { code: typeof ExecutionErrorCode.HEADER_NOT_FOUND; hash: string };

/** A call that did not produce a result. */
export class ExecutionError extends TypedError<ExecutionErrorType> {
}
