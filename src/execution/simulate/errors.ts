/**
 * Typed errors of eth_simulateV1 and of state/block overrides (eth_call, eth_estimateGas,
 * eth_simulateV1). Messages are geth's texts (internal/ethapi/simulate.go, errors.go,
 * override/override.go); the JSON-RPC codes (the execution-apis -380xx codes) are chosen in
 * src/rpc/errors.ts only.
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link SimulateError}. */
export const SimulateErrorCode = {
  /** A state override cannot be applied (both `state` and `stateDiff`, a bad precompile move…): geth's plain error (-32000). */
  BAD_OVERRIDE: "SIMULATE_BAD_OVERRIDE",
  /** The request is malformed in a way geth reports as invalid params (empty input). */
  INVALID_PARAMS: "SIMULATE_INVALID_PARAMS",
  /** Too many blocks or calls (geth -38026). */
  LIMIT_EXCEEDED: "SIMULATE_LIMIT_EXCEEDED",
  /** Block numbers not strictly increasing (geth -38020). */
  BLOCK_NUMBER_ORDER: "SIMULATE_BLOCK_NUMBER_ORDER",
  /** Block timestamps not strictly increasing (geth -38021). */
  BLOCK_TIMESTAMP_ORDER: "SIMULATE_BLOCK_TIMESTAMP_ORDER",
  /** A call's gas does not fit in what is left of its block (geth -38015). */
  BLOCK_GAS_LIMIT: "SIMULATE_BLOCK_GAS_LIMIT",
  /** Nonce below the sender's (geth -38010). */
  NONCE_TOO_LOW: "SIMULATE_NONCE_TOO_LOW",
  /** Nonce above the sender's (geth -38011). */
  NONCE_TOO_HIGH: "SIMULATE_NONCE_TOO_HIGH",
  /** Fee cap below the block's base fee (geth -38012). */
  BASE_FEE_TOO_LOW: "SIMULATE_BASE_FEE_TOO_LOW",
  /** Gas below the intrinsic gas (geth -38013). */
  INTRINSIC_GAS: "SIMULATE_INTRINSIC_GAS",
  /** The sender cannot pay (geth -38014). */
  INSUFFICIENT_FUNDS: "SIMULATE_INSUFFICIENT_FUNDS",
  /** The sender has code (geth -38024). */
  SENDER_NOT_EOA: "SIMULATE_SENDER_NOT_EOA",
  /** Init code above the limit (geth -38025). */
  INIT_CODE_TOO_LARGE: "SIMULATE_INIT_CODE_TOO_LARGE",
  /** Fee fields that contradict each other (geth -32602). */
  INVALID_FEES: "SIMULATE_INVALID_FEES",
  /** Any other refusal of a call as a transaction (geth -32603). */
  INVALID_TX: "SIMULATE_INVALID_TX",
} as const;
/** One of the {@link SimulateErrorCode} values. */
export type SimulateErrorCode = (typeof SimulateErrorCode)[keyof typeof SimulateErrorCode];

/** A simulation (or an override) that cannot run. */
export class SimulateError extends TypedError<{ code: SimulateErrorCode }> {
  constructor(code: SimulateErrorCode, message: string) {
    super({ code }, message);
  }
}
