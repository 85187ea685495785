/**
 * The gas search of eth_estimateGas, independent of any EVM: it drives an executor callback
 * the way geth's `eth/gasestimator.Estimate` does (reth's `estimate.rs` is the same search):
 *
 * 1. a plain value transfer is tried at 21000 first;
 * 2. one run at the highest allowed limit `hi`; failing there is final (revert error, the
 *    halt reason, or `gas required exceeds allowance (hi)`);
 * 3. `lo` = gas used − 1, then an optimistic probe at `(used + refund + 2300) × 64/63`;
 * 4. bisection (skewed low: `mid ≤ 2·lo`) until `(hi − lo)/hi < 1.5 %`; the answer is `hi`.
 *
 * Computing `hi` is the caller's part: the call's `gas` if it is ≥ 21000, else the block gas
 * limit; then {@link capByAllowance} (what the sender can pay for); then `RPC_GAS_CAP`.
 */
import { CALL_STIPEND_GAS, ESTIMATE_GAS_ERROR_RATIO } from "./constants.js";
import { ExecutionError, ExecutionErrorCode } from "./errors.js";
import { revertError } from "./revert.js";

/** Gas of a plain value transfer (`params.TxGas`). */
export const TX_GAS = 21_000n;

/** The halt reason that means "not enough gas" (`vm.ErrOutOfGas`); any other reason is final. */
const OUT_OF_GAS = "out of gas";

/**
 * Outcome of one execution of the call at a given gas limit.
 *
 * - success: `ok: true` with `gasUsed` (after refund) and `refund` (the refund applied, so
 *   `gasUsed + refund` is the peak gas the run needed);
 * - revert: `ok: false` with `revertData` (possibly empty);
 * - halt: `ok: false` with `error`, e.g. `"out of gas"`, `"invalid opcode: INVALID"`;
 * - a gas limit below the intrinsic gas (geth `ErrIntrinsicGas`) or above what the block allows
 *   (`ErrGasLimitTooHigh`): `ok: false` without `error` or `revertData` (treated as out of gas).
 *
 * Failures unrelated to gas (nonce, balance, fee cap below base fee, …) should be thrown by
 * `run`: the search stops and rethrows them, as geth does.
 */
export interface GasRunResult {
  ok: boolean;
  gasUsed: bigint;
  refund: bigint;
  /** revert data when the run reverted */
  revertData?: Uint8Array;
  /** a non-revert failure reason e.g. "out of gas", "invalid opcode" */
  error?: string;
}

/** Input of {@link searchGas}. */
interface EstimateInput {
  /** Executes the call with this gas limit on a throw-away copy of the state. */
  run(gasLimit: bigint): Promise<GasRunResult>;
  /**
   * Highest gas limit to try, computed by the caller: the call's `gas` (when ≥ 21000) or the
   * block gas limit, capped by {@link capByAllowance} and then by `RPC_GAS_CAP`.
   */
  hi: bigint;
  /** true when the call has no data and the target has no code */
  isPlainTransfer: boolean;
  /** The call's intrinsic gas, when known: lets the search skip runs that cannot succeed. */
  intrinsicGas?: bigint;
}

/** True when a failed run failed for lack of gas (so more gas might make it succeed). */
function failedForGas(r: GasRunResult): boolean {
  if (r.revertData !== undefined) return false;
  return r.error === undefined || r.error === OUT_OF_GAS;
}

/**
 * The gas search of eth_estimateGas (geth `gasestimator.Estimate`). Returns the smallest gas
 * limit found to succeed, within 1.5 % above the true minimum.
 * @throws ExecutionError: from {@link revertError} when the call reverts at `hi`; `HALTED` with
 *   the halt reason for other halts; `GAS_ALLOWANCE_EXCEEDED` (`gas required exceeds allowance
 *   (<hi>)`) when it runs out of gas at `hi`; and whatever `run` throws.
 */
export async function searchGas(input: EstimateInput): Promise<bigint> {
  const { run, isPlainTransfer } = input;
  let hi = input.hi;

  // A plain transfer usually costs exactly 21000, but access lists or other fields may raise
  // it: try it rather than assume it. Errors here are ignored (geth), the full run reports them.
  if (isPlainTransfer) {
    try {
      const r = await run(TX_GAS);
      if (r.ok) return TX_GAS;
    } catch {
      // fall through to the full search
    }
  }

  const allowanceError = (): ExecutionError =>
    new ExecutionError({ code: ExecutionErrorCode.GAS_ALLOWANCE_EXCEEDED, allowance: hi.toString() }, `gas required exceeds allowance (${hi})`);
  if (input.intrinsicGas !== undefined && hi < input.intrinsicGas) throw allowanceError();

  // One run at the highest limit: if it fails there, more gas will not help.
  const top = await run(hi);
  if (!top.ok) {
    if (top.revertData !== undefined) throw revertError(top.revertData);
    if (!failedForGas(top)) throw new ExecutionError({ code: ExecutionErrorCode.HALTED, reason: top.error! }, top.error!);
    throw allowanceError();
  }

  // The gas the unconstrained run used lower-bounds the limit it needs (except for calls
  // that inspect their remaining gas).
  let lo = top.gasUsed - 1n;
  if (input.intrinsicGas !== undefined && lo < input.intrinsicGas - 1n) lo = input.intrinsicGas - 1n;

  // Most calls succeed with the gas they used plus their refund, plus a call stipend, with
  // 1/64 kept back per EIP-150: try that first to shrink the range.
  const optimistic = ((top.gasUsed + top.refund + CALL_STIPEND_GAS) * 64n) / 63n;
  if (optimistic < hi) {
    const r = await run(optimistic);
    if (r.ok) hi = optimistic;
    else lo = optimistic;
  }

  // Bisect, skewed towards the low side, until the range is within the error ratio.
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_GAS_ERROR_RATIO) break;
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    const r = await run(mid);
    if (r.ok) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Caps the gas search's `hi` by what the sender can pay (geth `gasestimator`): with a non-zero
 * fee per gas (`maxFeePerGas`, else `gasPrice`), `hi = min(hi, (balance − value − blobCost) / feePerGas)`.
 * A zero fee leaves `hi` unchanged. Used by eth_estimateGas (and eth_createAccessList).
 * @param blobCost for blob calls: `blobs × 131072 × maxFeePerBlobGas` (Cancun and later).
 * @throws ExecutionError `INVALID_CALL`: `insufficient funds for transfer` when `value ≥ balance`
 *   (geth compares with ≥: nothing would be left for gas), or `insufficient funds for gas * price
 *   + value` when the blob fee does not fit.
 */
export function capByAllowance(hi: bigint, balance: bigint, value: bigint, feePerGas: bigint, blobCost?: bigint): bigint {
  if (feePerGas <= 0n) return hi;
  let available = balance;
  if (value >= available) {
    throw new ExecutionError({ code: ExecutionErrorCode.INVALID_CALL, reason: "insufficient-funds-for-transfer" }, "insufficient funds for transfer");
  }
  available -= value;
  if (blobCost !== undefined) {
    if (blobCost >= available) {
      throw new ExecutionError({ code: ExecutionErrorCode.INVALID_CALL, reason: "insufficient-funds" }, "insufficient funds for gas * price + value");
    }
    available -= blobCost;
  }
  const allowance = available / feePerGas;
  return hi > allowance ? allowance : hi;
}
