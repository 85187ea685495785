/**
 * Call arguments in the form that crosses thread boundaries (call-family requests and
 * eth_simulateV1's calls): the decoded {@link CallArgs} as strings only.
 */
import { fromHex, to0x } from "../util/bytes.js";
import type { CallArgs } from "./callExecutor.js";

/**
 * Decoded {@link CallArgs} in the form that crosses the thread boundary: the same fields, bytes
 * as 0x hex, quantities as 0x-hex (or decimal) strings.
 */
export interface SerializedCallArgs {
  from?: string;
  to?: string | null;
  gas?: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  maxFeePerBlobGas?: string;
  value?: string;
  data?: string;
  nonce?: string;
  accessList?: { address: string; storageKeys: string[] }[];
  blobVersionedHashes?: string[];
  /** Each authorization's six fields (chain id, address, nonce, y parity, r, s) as bytes. */
  authorizationList?: string[][];
  chainId?: string;
}

/** The quantity fields of {@link CallArgs}. */
const QUANTITY_FIELDS = ["gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "maxFeePerBlobGas", "value", "nonce", "chainId"] as const;

/** {@link CallArgs} as {@link SerializedCallArgs} (the RPC thread, before sending). */
export function serializeCallArgs(args: CallArgs): SerializedCallArgs {
  const out: SerializedCallArgs = {};
  if (args.from !== undefined) out.from = to0x(args.from);
  if (args.to !== undefined) out.to = args.to === null ? null : to0x(args.to);
  for (const k of QUANTITY_FIELDS) {
    const v = args[k];
    if (v !== undefined) out[k] = "0x" + v.toString(16);
  }
  if (args.data !== undefined) out.data = to0x(args.data);
  if (args.accessList !== undefined) out.accessList = args.accessList.map((e) => ({ address: to0x(e.address), storageKeys: e.storageKeys.map(to0x) }));
  if (args.blobVersionedHashes !== undefined) out.blobVersionedHashes = args.blobVersionedHashes.map(to0x);
  if (args.authorizationList !== undefined) out.authorizationList = args.authorizationList.map((a) => a.map(to0x));
  return out;
}

/** {@link SerializedCallArgs} back as {@link CallArgs} (the executing thread). */
export function deserializeCallArgs(w: SerializedCallArgs): CallArgs {
  const out: CallArgs = {};
  if (w.from !== undefined) out.from = fromHex(w.from);
  if (w.to !== undefined) out.to = w.to === null ? null : fromHex(w.to);
  for (const k of QUANTITY_FIELDS) {
    const v = w[k];
    if (v !== undefined) out[k] = BigInt(v);
  }
  if (w.data !== undefined) out.data = fromHex(w.data);
  if (w.accessList !== undefined) out.accessList = w.accessList.map((e) => ({ address: fromHex(e.address), storageKeys: e.storageKeys.map(fromHex) }));
  if (w.blobVersionedHashes !== undefined) out.blobVersionedHashes = w.blobVersionedHashes.map(fromHex);
  if (w.authorizationList !== undefined) out.authorizationList = w.authorizationList.map((a) => a.map(fromHex));
  return out;
}
