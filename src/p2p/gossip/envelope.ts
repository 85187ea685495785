/**
 * A gossiped block's envelope (./payload.ts) converted to the Engine API JSON basalt's newPayload
 * handler builds blocks from, and the signed bytes of a block basalt built, for publishing.
 */
import type { Block } from "@ethereumjs/block";
import { to0x } from "../../util/bytes.js";
import { unencodable } from "./errors.js";
import { encodeSignedBytes } from "./ssz.js";
import type { GossipEnvelope, GossipPayload } from "./payload.js";
import type { BlocksVersion } from "./topics.js";

/** A quantity as the Engine API writes it: 0x-prefixed hex without leading zeros. */
function quantity(v: bigint): string {
  return `0x${v.toString(16)}`;
}

/**
 * The Engine API JSON of an envelope (engine_newPayloadV1–V4 `ExecutionPayload`, quantities hex,
 * data 0x hex) with `parentBeaconBlockRoot` merged in for v3+ as basalt's newPayload handler
 * does: the object `blockFromOpPayload` (src/rpc/methods/engineOp.ts) builds and checks a block
 * from. The Isthmus `withdrawalsRoot` is included when the payload has one.
 */
export function envelopeToEnginePayloadJson(env: GossipEnvelope): Record<string, unknown> {
  const p = env.payload;
  const out: Record<string, unknown> = {
    parentHash: to0x(p.parentHash),
    feeRecipient: to0x(p.feeRecipient),
    stateRoot: to0x(p.stateRoot),
    receiptsRoot: to0x(p.receiptsRoot),
    logsBloom: to0x(p.logsBloom),
    prevRandao: to0x(p.prevRandao),
    blockNumber: quantity(p.blockNumber),
    gasLimit: quantity(p.gasLimit),
    gasUsed: quantity(p.gasUsed),
    timestamp: quantity(p.timestamp),
    extraData: to0x(p.extraData),
    baseFeePerGas: quantity(p.baseFeePerGas),
    blockHash: to0x(p.blockHash),
    transactions: p.transactions.map(to0x),
  };
  if (p.withdrawals !== undefined) {
    out.withdrawals = p.withdrawals.map((w) => ({ index: quantity(w.index), validatorIndex: quantity(w.validatorIndex), address: to0x(w.address), amount: quantity(w.amount) }));
  }
  if (p.blobGasUsed !== undefined) out.blobGasUsed = quantity(p.blobGasUsed);
  if (p.excessBlobGas !== undefined) out.excessBlobGas = quantity(p.excessBlobGas);
  if (p.withdrawalsRoot !== undefined) out.withdrawalsRoot = to0x(p.withdrawalsRoot);
  if (env.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = to0x(env.parentBeaconBlockRoot);
  return out;
}

/** The header field of `block`, or an {@link unencodable} error naming it. */
function required<T>(v: T | undefined, version: BlocksVersion, field: string): T {
  if (v === undefined) throw unencodable(version, field, "the block's header has no such field (is the version right for its fork?)");
  return v;
}

/**
 * The envelope of a block basalt built or imported, in `version`'s shape: v2+ carry the empty
 * withdrawals list, v3+ the blob gas fields and the parent beacon block root, v4 the header's
 * `withdrawalsRoot` (Isthmus: the L2ToL1MessagePasser storage root). Throws
 * {@link GossipCodecError} (`P2P_GOSSIP_UNENCODABLE`) when the header lacks a field the version needs.
 */
function envelopeOfBlock(block: Block, version: BlocksVersion): GossipEnvelope {
  const h = block.header;
  const payload: GossipPayload = {
    parentHash: h.parentHash,
    feeRecipient: h.coinbase.bytes,
    stateRoot: h.stateRoot,
    receiptsRoot: h.receiptTrie,
    logsBloom: h.logsBloom,
    prevRandao: h.mixHash,
    blockNumber: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    baseFeePerGas: required(h.baseFeePerGas, version, "baseFeePerGas"),
    blockHash: block.hash(),
    transactions: block.transactions.map((tx) => tx.serialize()),
  };
  if (version >= 2) {
    if (block.withdrawals !== undefined && block.withdrawals.length > 0) throw unencodable(version, "withdrawals", "OP blocks carry no withdrawals");
    payload.withdrawals = [];
  }
  const env: GossipEnvelope = { payload };
  if (version >= 3) {
    payload.blobGasUsed = required(h.blobGasUsed, version, "blobGasUsed");
    payload.excessBlobGas = required(h.excessBlobGas, version, "excessBlobGas");
    env.parentBeaconBlockRoot = required(h.parentBeaconBlockRoot, version, "parentBeaconBlockRoot");
  }
  if (version >= 4) payload.withdrawalsRoot = required(h.withdrawalsRoot, version, "withdrawalsRoot");
  return env;
}

/**
 * The signed bytes of `block` for publishing on the `version` topic: the SSZ payload (v1, v2)
 * or the parent beacon block root followed by the SSZ payload (v3, v4). Sign them with
 * `signBlockPayload` and wrap them with `encodeBlockMessage`.
 */
export function envelopeFromBlock(block: Block, version: BlocksVersion): Uint8Array {
  return encodeSignedBytes(version, envelopeOfBlock(block, version));
}
