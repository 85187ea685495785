/**
 * A witness request (`debug_executionWitness`, `debug_executePayload`) in the form that crosses
 * thread boundaries: strings only (0x hex), no bigint and no class instance. The RPC thread
 * resolves the block or parent and parses the attributes before sending, so malformed requests
 * are refused without a thread hop; the execution pool's worker answers with the witness's JSON
 * text.
 */
import { toData } from "../../chain/json/quantity.js";
import { fromHex } from "../../util/bytes.js";
import type { OpPayloadAttributes } from "../op/opPayload.js";

/** {@link OpPayloadAttributes} with bytes as 0x hex and numbers as decimal strings. */
interface SerializedPayloadAttributes {
  timestamp: string;
  prevRandao: string;
  suggestedFeeRecipient: string;
  parentBeaconBlockRoot?: string;
  transactions: string[];
  gasLimit: string;
  eip1559Params?: string;
  minBaseFee?: string;
}

/** The witness of canonical block `hash`, or of the payload `attrs` built on block `parentHash`. */
export type WitnessRequest = { kind: "block"; hash: string } | { kind: "payload"; parentHash: string; attrs: SerializedPayloadAttributes };

/** Payload attributes for the boundary (the RPC thread). */
export function serializePayloadAttributes(a: OpPayloadAttributes): SerializedPayloadAttributes {
  const out: SerializedPayloadAttributes = {
    timestamp: a.timestamp.toString(),
    prevRandao: toData(a.prevRandao),
    suggestedFeeRecipient: toData(a.suggestedFeeRecipient),
    transactions: a.transactions.map(toData),
    gasLimit: a.gasLimit.toString(),
  };
  if (a.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = toData(a.parentBeaconBlockRoot);
  if (a.eip1559Params !== undefined) out.eip1559Params = toData(a.eip1559Params);
  if (a.minBaseFee !== undefined) out.minBaseFee = a.minBaseFee.toString();
  return out;
}

/** Payload attributes back from the boundary (the executing thread); only the given transactions run. */
export function deserializePayloadAttributes(s: SerializedPayloadAttributes): OpPayloadAttributes {
  return {
    timestamp: BigInt(s.timestamp),
    prevRandao: fromHex(s.prevRandao),
    suggestedFeeRecipient: fromHex(s.suggestedFeeRecipient),
    parentBeaconBlockRoot: s.parentBeaconBlockRoot === undefined ? undefined : fromHex(s.parentBeaconBlockRoot),
    transactions: s.transactions.map(fromHex),
    noTxPool: true,
    gasLimit: BigInt(s.gasLimit),
    eip1559Params: s.eip1559Params === undefined ? undefined : fromHex(s.eip1559Params),
    minBaseFee: s.minBaseFee === undefined ? undefined : BigInt(s.minBaseFee),
  };
}
