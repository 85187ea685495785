/**
 * Consolidation (specs derivation.md "Engine Queue": unsafe blocks become safe when derivation
 * reproduces them; op-node `AttributesMatchBlock`, kona `AttributesMatch`): whether derived
 * payload attributes describe exactly the block the node already holds on top of the safe head.
 * A match makes that block safe without executing anything; a mismatch means the unsafe chain is
 * wrong from there and the derived block replaces it.
 */
import type { Block } from "@ethereumjs/block";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import { extraDataFromEip1559Params } from "../chain/op/eip1559.js";
import { OpFork, opForkAt, type OpChainConfig } from "../chain/op/forks.js";
import { envelopeOf } from "../chain/envelope.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";

/** The outcome: a match, or the first field that differs. */
type AttributesMatch = { match: true } | { match: false; field: string; derived: string; block: string };

const differs = (field: string, derived: string, block: string): AttributesMatch => ({ match: false, field, derived, block });

/**
 * Compares derived `attrs` (to be built on `parentHash`) with `block`: parent, timestamp,
 * prevRandao, fee recipient, gas limit, parent beacon block root, every transaction byte for byte,
 * no withdrawals, and the EIP-1559 parameters and minimum base fee the header's extraData carries
 * (all-zero parameters stand for the chain's defaults, as when the block was built).
 */
export function attributesMatchBlock(attrs: OpPayloadAttributes, parentHash: Uint8Array, block: Block, op: OpChainConfig): AttributesMatch {
  const h = block.header;
  if (!equalsBytes(h.parentHash, parentHash)) return differs("parentHash", bytesToHex(parentHash), bytesToHex(h.parentHash));
  if (h.timestamp !== attrs.timestamp) return differs("timestamp", String(attrs.timestamp), String(h.timestamp));
  if (!equalsBytes(h.mixHash, attrs.prevRandao)) return differs("prevRandao", bytesToHex(attrs.prevRandao), bytesToHex(h.mixHash));
  if (!equalsBytes(h.coinbase.bytes, attrs.suggestedFeeRecipient)) return differs("feeRecipient", bytesToHex(attrs.suggestedFeeRecipient), h.coinbase.toString());
  if (h.gasLimit !== attrs.gasLimit) return differs("gasLimit", String(attrs.gasLimit), String(h.gasLimit));
  const beacon = attrs.parentBeaconBlockRoot;
  if ((beacon === undefined) !== (h.parentBeaconBlockRoot === undefined) || (beacon !== undefined && !equalsBytes(beacon, h.parentBeaconBlockRoot!))) {
    return differs("parentBeaconBlockRoot", beacon === undefined ? "none" : bytesToHex(beacon), h.parentBeaconBlockRoot === undefined ? "none" : bytesToHex(h.parentBeaconBlockRoot));
  }
  if (block.transactions.length !== attrs.transactions.length) return differs("transactions", `${attrs.transactions.length} transactions`, `${block.transactions.length} transactions`);
  for (let i = 0; i < attrs.transactions.length; i++) {
    const got = envelopeOf(block.transactions[i]!);
    if (!equalsBytes(got, attrs.transactions[i]!)) return differs(`transactions[${i}]`, bytesToHex(attrs.transactions[i]!), bytesToHex(got));
  }
  if (block.withdrawals !== undefined && block.withdrawals.length > 0) return differs("withdrawals", "none", `${block.withdrawals.length} withdrawals`);
  const fork = opForkAt(op, attrs.timestamp);
  if (fork >= OpFork.holocene) {
    if (attrs.eip1559Params === undefined) return differs("eip1559Params", "none", bytesToHex(h.extraData));
    const want = extraDataFromEip1559Params(attrs.eip1559Params, { denominator: op.eip1559DenominatorCanyon, elasticity: op.eip1559Elasticity }, fork, attrs.minBaseFee);
    if (!equalsBytes(want, h.extraData)) return differs("extraData", bytesToHex(want), bytesToHex(h.extraData));
  }
  return { match: true };
}
