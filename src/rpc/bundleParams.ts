/**
 * The bundle object of eth_sendBundle, base_meterBundle and base_meteredPriorityFeePerGas, as
 * base/base's `Bundle` deserializes it (v0.6.0-rc.19 `crates/alloy/bundles/src/bundle.rs`):
 * `txs` (0x-hex EIP-2718 envelopes) and `blockNumber` (quantity) required; optional
 * `flashblockNumberMin`, `flashblockNumberMax`, `minTimestamp`, `maxTimestamp` (quantities),
 * `revertingTxHashes`, `droppingTxHashes` (hashes), `replacementUuid` (string); other fields are
 * ignored. A malformed object answers as jsonrpsee does for a parameter that does not
 * deserialize: -32602 "Invalid params" with the reason in `data`.
 */
import { RpcCode, RpcError } from "./errors.js";

/** A decoded bundle; quantities as bigint, byte strings as lowercase 0x-hex. */
interface BundleParams {
  txs: string[];
  blockNumber: bigint;
  flashblockNumberMin?: bigint;
  flashblockNumberMax?: bigint;
  minTimestamp?: bigint;
  maxTimestamp?: bigint;
  revertingTxHashes: string[];
  droppingTxHashes: string[];
  replacementUuid?: string;
}

/** jsonrpsee's answer to a parameter that does not deserialize: -32602 "Invalid params", the reason in `data`. */
export class BundleParamsError extends RpcError {
  constructor(reason: string) {
    super(RpcCode.InvalidParams, "Invalid params", reason, "RPC_BUNDLE_PARAMS");
  }
}

const U64_MAX = (1n << 64n) - 1n;

function quantity(v: unknown, field: string): bigint {
  let n: bigint | undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === "string" && /^0x[0-9a-fA-F]{1,16}$/.test(v)) n = BigInt(v);
  if (n === undefined || n > U64_MAX) throw new BundleParamsError(`invalid value for \`${field}\`: expected a 64-bit quantity (0x-hex string), got ${JSON.stringify(v)?.slice(0, 40)}`);
  return n;
}

function hexBytes(v: unknown, field: string, length?: number): string {
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v) || (length !== undefined && v.length !== 2 + 2 * length)) {
    const what = length === undefined ? "0x-prefixed hex bytes" : `a 0x-prefixed ${length}-byte hex string`;
    throw new BundleParamsError(`invalid value for \`${field}\`: expected ${what}, got ${JSON.stringify(v)?.slice(0, 40)}`);
  }
  return v.toLowerCase();
}

function hashList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new BundleParamsError(`invalid type for \`${field}\`: expected a sequence of hashes`);
  return v.map((h, i) => hexBytes(h, `${field}[${i}]`, 32));
}

function optQuantity(o: Record<string, unknown>, field: string): bigint | undefined {
  const v = o[field];
  return v === undefined || v === null ? undefined : quantity(v, field);
}

/**
 * Decodes a bundle parameter.
 * @throws BundleParamsError for a missing or malformed field
 */
export function parseBundleParams(value: unknown): BundleParams {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new BundleParamsError("invalid type: expected a bundle object");
  const o = value as Record<string, unknown>;
  if (o.txs === undefined) throw new BundleParamsError("missing field `txs`");
  if (!Array.isArray(o.txs)) throw new BundleParamsError("invalid type for `txs`: expected a sequence of 0x-hex transactions");
  const txs = o.txs.map((t, i) => hexBytes(t, `txs[${i}]`));
  if (o.blockNumber === undefined) throw new BundleParamsError("missing field `blockNumber`");
  const out: BundleParams = {
    txs,
    blockNumber: quantity(o.blockNumber, "blockNumber"),
    revertingTxHashes: hashList(o.revertingTxHashes, "revertingTxHashes"),
    droppingTxHashes: hashList(o.droppingTxHashes, "droppingTxHashes"),
  };
  const fmin = optQuantity(o, "flashblockNumberMin");
  if (fmin !== undefined) out.flashblockNumberMin = fmin;
  const fmax = optQuantity(o, "flashblockNumberMax");
  if (fmax !== undefined) out.flashblockNumberMax = fmax;
  const tmin = optQuantity(o, "minTimestamp");
  if (tmin !== undefined) out.minTimestamp = tmin;
  const tmax = optQuantity(o, "maxTimestamp");
  if (tmax !== undefined) out.maxTimestamp = tmax;
  if (o.replacementUuid !== undefined && o.replacementUuid !== null) {
    if (typeof o.replacementUuid !== "string") throw new BundleParamsError("invalid type for `replacementUuid`: expected a string");
    out.replacementUuid = o.replacementUuid;
  }
  return out;
}
