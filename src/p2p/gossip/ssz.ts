/**
 * SSZ of the gossiped execution payload, as op-node serializes it (op-service/eth/ssz.go):
 * the consensus-layer `ExecutionPayload` container of each fork, with OP's Isthmus extension.
 *
 * Fixed part, in order: parentHash 32, feeRecipient 20, stateRoot 32, receiptsRoot 32,
 * logsBloom 256, prevRandao 32, blockNumber u64, gasLimit u64, gasUsed u64, timestamp u64,
 * offset(extraData) 4, baseFeePerGas u256 (little-endian), blockHash 32, offset(transactions) 4 —
 * 508 bytes for v1; v2 adds offset(withdrawals) 4 (512); v3 adds blobGasUsed u64 and
 * excessBlobGas u64 (528); v4 adds withdrawalsRoot 32 (560). Then the variable parts in order:
 * extraData (≤ 32 bytes), transactions (a list of at most 2^20 byte lists, each ≤ 2^30 bytes:
 * MAX_TRANSACTIONS_PER_PAYLOAD, MAX_BYTES_PER_TRANSACTION of the consensus specs), withdrawals
 * (at most 16 of 44 bytes: index u64, validatorIndex u64, address 20, amount u64).
 *
 * The signed bytes of v3 and v4 are the 32-byte parent beacon block root followed by the
 * payload (op-node `ExecutionPayloadEnvelope.MarshalSSZ`; not an SSZ container: no offset).
 * Decoding never throws anything but {@link GossipCodecError}.
 */
import { ByteListType, ByteVectorType, ContainerType, ListCompositeType, UintBigintType } from "@chainsafe/ssz";
import type { GossipEnvelope, GossipPayload } from "./payload.js";
import { malformedSsz, unencodable } from "./errors.js";
import type { BlocksVersion } from "./topics.js";

/** MAX_EXTRA_DATA_BYTES (consensus specs bellatrix; op-node rejects a longer extraData). */
const MAX_EXTRA_DATA_BYTES = 32;
/** MAX_TRANSACTIONS_PER_PAYLOAD (consensus specs bellatrix; op-node `maxTransactionsPerPayload` = 1 << 20). */
const MAX_TRANSACTIONS_PER_PAYLOAD = 2 ** 20;
/** MAX_BYTES_PER_TRANSACTION (consensus specs bellatrix): 2^30. */
const MAX_BYTES_PER_TRANSACTION = 2 ** 30;
/** MAX_WITHDRAWALS_PER_PAYLOAD (consensus specs capella; op-node `maxWithdrawalsPerPayload` = 1 << 4). */
const MAX_WITHDRAWALS_PER_PAYLOAD = 16;
/** Bytes of the parent beacon block root in front of a v3/v4 payload. */
const PARENT_BEACON_ROOT_BYTES = 32;

/** Size of each version's fixed part (op-node `blockV1FixedPart` … `blockV4FixedPart`). */
const PAYLOAD_FIXED_PART_BYTES: Readonly<Record<BlocksVersion, number>> = { 1: 508, 2: 512, 3: 528, 4: 560 };

const Bytes20 = new ByteVectorType(20);
const Bytes32 = new ByteVectorType(32);
const Uint64 = new UintBigintType(8);

/** One EIP-4895 withdrawal (consensus specs capella `Withdrawal`). */
const WithdrawalType = new ContainerType({ index: Uint64, validatorIndex: Uint64, address: Bytes20, amount: Uint64 });

const v1Fields = {
  parentHash: Bytes32,
  feeRecipient: Bytes20,
  stateRoot: Bytes32,
  receiptsRoot: Bytes32,
  logsBloom: new ByteVectorType(256),
  prevRandao: Bytes32,
  blockNumber: Uint64,
  gasLimit: Uint64,
  gasUsed: Uint64,
  timestamp: Uint64,
  extraData: new ByteListType(MAX_EXTRA_DATA_BYTES),
  baseFeePerGas: new UintBigintType(32),
  blockHash: Bytes32,
  transactions: new ListCompositeType(new ByteListType(MAX_BYTES_PER_TRANSACTION), MAX_TRANSACTIONS_PER_PAYLOAD),
};
const v2Fields = { ...v1Fields, withdrawals: new ListCompositeType(WithdrawalType, MAX_WITHDRAWALS_PER_PAYLOAD) };
const v3Fields = { ...v2Fields, blobGasUsed: Uint64, excessBlobGas: Uint64 };
const v4Fields = { ...v3Fields, withdrawalsRoot: Bytes32 };

/** ExecutionPayload of Bedrock (consensus bellatrix), the v1 topic. */
const ExecutionPayloadV1 = new ContainerType(v1Fields, { typeName: "ExecutionPayloadV1" });
/** ExecutionPayload of Canyon (consensus capella), the v2 topic. */
const ExecutionPayloadV2 = new ContainerType(v2Fields, { typeName: "ExecutionPayloadV2" });
/** ExecutionPayload of Ecotone (consensus deneb), the v3 topic. */
const ExecutionPayloadV3 = new ContainerType(v3Fields, { typeName: "ExecutionPayloadV3" });
/** ExecutionPayload of Isthmus (deneb + OP's withdrawalsRoot), the v4 topic. */
const ExecutionPayloadV4 = new ContainerType(v4Fields, { typeName: "ExecutionPayloadV4" });

/** The container type of a version, seen through {@link GossipPayload} (the value shape of every version, later fields optional). */
function payloadType(version: BlocksVersion): { serialize(v: GossipPayload): Uint8Array; deserialize(b: Uint8Array): GossipPayload } {
  const types = { 1: ExecutionPayloadV1, 2: ExecutionPayloadV2, 3: ExecutionPayloadV3, 4: ExecutionPayloadV4 } as const;
  return types[version] as unknown as { serialize(v: GossipPayload): Uint8Array; deserialize(b: Uint8Array): GossipPayload };
}

const U64_MAX = 2n ** 64n - 1n;
const U256_MAX = 2n ** 256n - 1n;

/** Little-endian u32 at `at`. */
function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
}

/**
 * The offset checks op-node makes before reading the variable parts (ssz.go `UnmarshalSSZ`):
 * extraData starts right after the fixed part, is at most 32 bytes, transactions start at or after
 * it and withdrawals (v2+) after them, all within the payload. The SSZ library checks the rest
 * (list offsets, limits) while decoding.
 */
function checkOffsets(version: BlocksVersion, b: Uint8Array): void {
  const fixed = PAYLOAD_FIXED_PART_BYTES[version];
  if (b.length < fixed) throw malformedSsz(version, `${b.length} bytes, less than the ${fixed}-byte fixed part`);
  const extraDataOffset = u32(b, 436);
  if (extraDataOffset !== fixed) throw malformedSsz(version, `extraData offset ${extraDataOffset}, expected ${fixed}`);
  const txOffset = u32(b, 504);
  if (txOffset < extraDataOffset) throw malformedSsz(version, `transactions offset ${txOffset} is before the extraData offset ${extraDataOffset}`);
  if (txOffset > extraDataOffset + MAX_EXTRA_DATA_BYTES || txOffset > b.length) {
    throw malformedSsz(version, `extraData of ${txOffset - extraDataOffset} bytes, more than ${MAX_EXTRA_DATA_BYTES} or past the end`);
  }
  if (version >= 2) {
    const wOffset = u32(b, 508);
    if (wOffset < txOffset) throw malformedSsz(version, `withdrawals offset ${wOffset} is before the transactions offset ${txOffset}`);
    if (wOffset > b.length) throw malformedSsz(version, `withdrawals offset ${wOffset} is past the end (${b.length} bytes)`);
  }
}

/** Decodes an SSZ execution payload of `version`; throws {@link GossipCodecError} (`P2P_GOSSIP_MALFORMED_SSZ`). */
function decodePayload(version: BlocksVersion, bytes: Uint8Array): GossipPayload {
  checkOffsets(version, bytes);
  try {
    // The container of `version` has exactly that version's fields.
    return payloadType(version).deserialize(bytes);
  } catch (e) {
    throw malformedSsz(version, e instanceof Error ? e.message : String(e));
  }
}

/** Checks that a byte field has its fixed length. */
function fixedBytes(version: BlocksVersion, field: string, b: Uint8Array, len: number): Uint8Array {
  if (b.length !== len) throw unencodable(version, field, `${b.length} bytes, expected ${len}`);
  return b;
}

/** Checks an unsigned integer's range. */
function uint(version: BlocksVersion, field: string, v: bigint, max: bigint): bigint {
  if (v < 0n || v > max) throw unencodable(version, field, `${v} is outside 0..${max}`);
  return v;
}

/** A field the version requires, or an {@link unencodable} error. */
function present<T>(version: BlocksVersion, field: string, v: T | undefined): T {
  if (v === undefined) throw unencodable(version, field, "missing (required from this version on)");
  return v;
}

/**
 * Encodes a payload as `version`'s SSZ. Fields of later versions must be absent, fields of this
 * version present; throws {@link GossipCodecError} (`P2P_GOSSIP_UNENCODABLE`) otherwise or when a
 * value does not fit its SSZ type.
 */
function encodePayload(version: BlocksVersion, p: GossipPayload): Uint8Array {
  if (p.extraData.length > MAX_EXTRA_DATA_BYTES) throw unencodable(version, "extraData", `${p.extraData.length} bytes, at most ${MAX_EXTRA_DATA_BYTES}`);
  if (p.transactions.length > MAX_TRANSACTIONS_PER_PAYLOAD) throw unencodable(version, "transactions", `${p.transactions.length} transactions, at most ${MAX_TRANSACTIONS_PER_PAYLOAD}`);
  const v: GossipPayload = {
    parentHash: fixedBytes(version, "parentHash", p.parentHash, 32),
    feeRecipient: fixedBytes(version, "feeRecipient", p.feeRecipient, 20),
    stateRoot: fixedBytes(version, "stateRoot", p.stateRoot, 32),
    receiptsRoot: fixedBytes(version, "receiptsRoot", p.receiptsRoot, 32),
    logsBloom: fixedBytes(version, "logsBloom", p.logsBloom, 256),
    prevRandao: fixedBytes(version, "prevRandao", p.prevRandao, 32),
    blockNumber: uint(version, "blockNumber", p.blockNumber, U64_MAX),
    gasLimit: uint(version, "gasLimit", p.gasLimit, U64_MAX),
    gasUsed: uint(version, "gasUsed", p.gasUsed, U64_MAX),
    timestamp: uint(version, "timestamp", p.timestamp, U64_MAX),
    extraData: p.extraData,
    baseFeePerGas: uint(version, "baseFeePerGas", p.baseFeePerGas, U256_MAX),
    blockHash: fixedBytes(version, "blockHash", p.blockHash, 32),
    transactions: p.transactions,
  };
  if (version >= 2) {
    const ws = present(version, "withdrawals", p.withdrawals);
    if (ws.length > MAX_WITHDRAWALS_PER_PAYLOAD) throw unencodable(version, "withdrawals", `${ws.length} withdrawals, at most ${MAX_WITHDRAWALS_PER_PAYLOAD}`);
    v.withdrawals = ws.map((w, i) => ({
      index: uint(version, `withdrawals[${i}].index`, w.index, U64_MAX),
      validatorIndex: uint(version, `withdrawals[${i}].validatorIndex`, w.validatorIndex, U64_MAX),
      address: fixedBytes(version, `withdrawals[${i}].address`, w.address, 20),
      amount: uint(version, `withdrawals[${i}].amount`, w.amount, U64_MAX),
    }));
  } else if (p.withdrawals !== undefined) throw unencodable(version, "withdrawals", "v1 payloads have no withdrawals list");
  if (version >= 3) {
    v.blobGasUsed = uint(version, "blobGasUsed", present(version, "blobGasUsed", p.blobGasUsed), U64_MAX);
    v.excessBlobGas = uint(version, "excessBlobGas", present(version, "excessBlobGas", p.excessBlobGas), U64_MAX);
  } else if (p.blobGasUsed !== undefined || p.excessBlobGas !== undefined) throw unencodable(version, "blobGasUsed", "v1/v2 payloads have no blob gas fields");
  if (version >= 4) v.withdrawalsRoot = fixedBytes(version, "withdrawalsRoot", present(version, "withdrawalsRoot", p.withdrawalsRoot), 32);
  else if (p.withdrawalsRoot !== undefined) throw unencodable(version, "withdrawalsRoot", "only v4 payloads carry a withdrawalsRoot");
  return payloadType(version).serialize(v);
}

/**
 * Decodes the signed bytes of a `version` message: the payload (v1, v2), or the parent beacon
 * block root and the payload (v3, v4). Throws {@link GossipCodecError} (`P2P_GOSSIP_MALFORMED_SSZ`).
 */
export function decodeSignedBytes(version: BlocksVersion, bytes: Uint8Array): GossipEnvelope {
  if (version < 3) return { payload: decodePayload(version, bytes) };
  if (bytes.length < PARENT_BEACON_ROOT_BYTES) throw malformedSsz(version, `${bytes.length} bytes, too short for the parent beacon block root`);
  return { parentBeaconBlockRoot: bytes.slice(0, PARENT_BEACON_ROOT_BYTES), payload: decodePayload(version, bytes.subarray(PARENT_BEACON_ROOT_BYTES)) };
}

/** Encodes an envelope as the signed bytes of a `version` message (see {@link decodeSignedBytes}). */
export function encodeSignedBytes(version: BlocksVersion, env: GossipEnvelope): Uint8Array {
  const payload = encodePayload(version, env.payload);
  if (version < 3) {
    if (env.parentBeaconBlockRoot !== undefined) throw unencodable(version, "parentBeaconBlockRoot", "v1/v2 messages carry no parent beacon block root");
    return payload;
  }
  const root = fixedBytes(version, "parentBeaconBlockRoot", present(version, "parentBeaconBlockRoot", env.parentBeaconBlockRoot), PARENT_BEACON_ROOT_BYTES);
  const out = new Uint8Array(PARENT_BEACON_ROOT_BYTES + payload.length);
  out.set(root, 0);
  out.set(payload, PARENT_BEACON_ROOT_BYTES);
  return out;
}
