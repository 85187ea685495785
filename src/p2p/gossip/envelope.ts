/**
 * The decoded form of a gossiped block (op-node `eth.ExecutionPayloadEnvelope`): the execution
 * payload with every field of its version, plus the parent beacon block root from v3 on; its
 * conversion to the Engine API JSON basalt's newPayload handler builds blocks from; and the
 * signed bytes of a block basalt built, for publishing.
 */
import type { Block } from "@ethereumjs/block";
import { to0x } from "../../util/bytes.js";
import { unencodable } from "./errors.js";
import { encodeSignedBytes } from "./ssz.js";
import type { BlocksVersion } from "./topics.js";

/** A withdrawal of a payload (EIP-4895; OP payloads carry none, but v2+ have the empty list). */
export interface GossipWithdrawal {
  index: bigint;
  validatorIndex: bigint;
  /** 20 bytes. */
  address: Uint8Array;
  /** In gwei. */
  amount: bigint;
}

/** An execution payload as gossip carries it (op-service/eth `ExecutionPayload`); byte fields are fixed-size as noted. */
export interface GossipPayload {
  /** 32 bytes. */
  parentHash: Uint8Array;
  /** 20 bytes. */
  feeRecipient: Uint8Array;
  /** 32 bytes. */
  stateRoot: Uint8Array;
  /** 32 bytes. */
  receiptsRoot: Uint8Array;
  /** 256 bytes. */
  logsBloom: Uint8Array;
  /** 32 bytes (the header's mixHash). */
  prevRandao: Uint8Array;
  blockNumber: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  /** At most 32 bytes. */
  extraData: Uint8Array;
  baseFeePerGas: bigint;
  /** 32 bytes. */
  blockHash: Uint8Array;
  /** EIP-2718 encoded transactions, deposits included. */
  transactions: Uint8Array[];
  /** v2+ only (always empty on OP chains). */
  withdrawals?: GossipWithdrawal[];
  /** v3+ only; from Jovian the block's DA footprint. */
  blobGasUsed?: bigint;
  /** v3+ only. */
  excessBlobGas?: bigint;
  /** v4 only: the L2ToL1MessagePasser storage root (specs isthmus/exec-engine.md), 32 bytes. */
  withdrawalsRoot?: Uint8Array;
}

/** A decoded gossip block: the payload, and from v3 on the parent beacon block root (32 bytes) signed with it. */
export interface GossipEnvelope {
  parentBeaconBlockRoot?: Uint8Array;
  payload: GossipPayload;
}

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
export function envelopeOfBlock(block: Block, version: BlocksVersion): GossipEnvelope {
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
