/**
 * geth's call-message rules (`TransactionArgs.ToMessage` for eth_call, eth_estimateGas,
 * eth_createAccessList, eth_simulateV1 and traced calls), written once for both engines: the
 * fast engine's message (fastCalls.ts) and the reference engine's transaction (callExecutor.ts).
 */
import type { BlockHeader } from "@ethereumjs/block";
import type { CallArgs } from "./callArgs.js";

/** Which block environment a call runs in: geth zeroes the base fee (and blob base fee) for calls that pay nothing. */
export type FeeVariant = "base" | "zero" | "zero-blob";

/**
 * The transaction type of a call: it follows the fields given (authorizations → 4, blob hashes
 * → 3, a fee cap → 2, an access list → 1, or 2 without a gas price once EIP-1559 is active);
 * before EIP-1559, types 2 and above fall back to 1 (with an access list) or 0.
 */
export function callTxType(args: CallArgs, eip1559: boolean): number {
  let type = 0;
  if (args.authorizationList !== undefined) type = 4;
  else if (args.blobVersionedHashes !== undefined) type = 3;
  else if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined) type = 2;
  else if (args.accessList !== undefined && args.gasPrice === undefined) type = eip1559 ? 2 : 1;
  else if (args.accessList !== undefined) type = 1;
  if (type >= 2 && !eip1559) type = args.accessList !== undefined ? 1 : 0;
  return type;
}

/**
 * The fee cap and tip of a call of `type`: the gas price for types 0 and 1; for 2 and above,
 * with only one of the caps given the other defaults (cap = tip + 2 × base fee), with none, zero
 * fees. A tip above the cap is left for the transaction layer to refuse.
 */
export function callFees(args: CallArgs, type: number, baseFee: bigint | undefined): { maxFee: bigint; tip: bigint } {
  if (type < 2) {
    const price = args.gasPrice ?? 0n;
    return { maxFee: price, tip: price };
  }
  let maxFee = args.maxFeePerGas ?? args.gasPrice;
  let tip = args.maxPriorityFeePerGas ?? args.gasPrice;
  if (maxFee === undefined && tip !== undefined) maxFee = tip + (baseFee ?? 0n) * 2n;
  maxFee ??= 0n;
  tip ??= maxFee < 1n ? maxFee : 0n;
  return { maxFee, tip };
}

/** True when a call pays nothing per gas (geth then runs it with base fee 0). */
function isZeroFeeCall(args: CallArgs): boolean {
  return (args.gasPrice ?? 0n) === 0n && (args.maxFeePerGas ?? 0n) === 0n && (args.maxPriorityFeePerGas ?? 0n) === 0n;
}

/** The fee variant of `args` at a header (blob base fee zeroed only when the call pays no blob fee either). */
export function feeVariantOf(args: CallArgs, header: BlockHeader): FeeVariant {
  if (!isZeroFeeCall(args)) return "base";
  return (args.maxFeePerBlobGas ?? 0n) === 0n && header.excessBlobGas !== undefined ? "zero-blob" : "zero";
}
