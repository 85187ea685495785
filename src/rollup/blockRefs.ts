/**
 * Block references in op-node's / base-consensus's JSON shape (ethereum-optimism/optimism
 * `op-service/eth/id.go` `L1BlockRef`/`L2BlockRef`; base/base `crates/consensus/protocol/src/block.rs`
 * `BlockInfo`/`L2BlockInfo`): camelCase keys in the order hash, number, parentHash, timestamp
 * (then `l1origin` and `sequenceNumber` for L2), numbers as decimal JSON numbers, and zeroed
 * references (zero hash, 0) where a value is unknown — never null.
 */
import type { Block } from "@ethereumjs/block";
import { decodeL1InfoCalldata } from "../chain/op/l1InfoTx.js";
import { isDeposit } from "../chain/op/depositTx.js";
import { to0x } from "../util/bytes.js";

/** The 32-byte zero hash, written for every unknown hash (op-node `common.Hash{}`). */
export const ZERO_HASH = "0x" + "00".repeat(32);

/** A block id: hash and number (op-node `BlockID`; the `l1origin` of an L2 ref). */
export interface BlockIdJson {
  hash: string;
  number: number;
}

/** An L1 block reference (op-node `L1BlockRef`, Base `BlockInfo`). */
export interface L1BlockRefJson {
  hash: string;
  number: number;
  parentHash: string;
  timestamp: number;
}

/** An L2 block reference (op-node `L2BlockRef`, Base `L2BlockInfo`): an L1 ref plus its L1 origin and position in the epoch. */
export interface L2BlockRefJson extends L1BlockRefJson {
  l1origin: BlockIdJson;
  sequenceNumber: number;
}

/** An L1 origin as carried by an L2 block's L1-attributes deposit (hash, number and timestamp of the L1 block). */
interface L1Origin {
  hash: Uint8Array;
  number: bigint;
  timestamp: bigint;
  /** Position of the L2 block within this origin's epoch. */
  sequenceNumber: bigint;
}

/** The zeroed L1 reference reported for every L1 value basalt does not know. */
export function zeroL1Ref(): L1BlockRefJson {
  return { hash: ZERO_HASH, number: 0, parentHash: ZERO_HASH, timestamp: 0 };
}

/** The L1 reference of an L1 block's header fields (a block read from an L1 RPC). */
export function l1RefOf(b: { hash: Uint8Array; number: bigint; parentHash: Uint8Array; timestamp: bigint }): L1BlockRefJson {
  return { hash: to0x(b.hash), number: Number(b.number), parentHash: to0x(b.parentHash), timestamp: Number(b.timestamp) };
}

/** The zeroed L2 reference reported for a missing L2 block (e.g. no `safe` pointer yet; base/base#3678). */
export function zeroL2Ref(): L2BlockRefJson {
  return { ...zeroL1Ref(), l1origin: { hash: ZERO_HASH, number: 0 }, sequenceNumber: 0 };
}

/**
 * The L1 origin of an OP L2 block, read from its first transaction, the L1-attributes deposit
 * (any calldata variant: Bedrock, Ecotone, Isthmus, Jovian). Undefined for a block without one
 * (the genesis block) or whose first transaction is not valid L1-info calldata.
 */
export function l1OriginOf(block: Block): L1Origin | undefined {
  const first = block.transactions[0] as unknown as { type: number; data: Uint8Array } | undefined;
  if (first === undefined || !isDeposit(first)) return undefined;
  try {
    const { values } = decodeL1InfoCalldata(first.data);
    return { hash: values.hash, number: values.number, timestamp: values.timestamp, sequenceNumber: values.sequenceNumber };
  } catch {
    return undefined;
  }
}

/**
 * The L2 reference of `block`: its own hash, number, parent hash and timestamp, with `l1origin`
 * and `sequenceNumber` from its L1-attributes deposit ({@link l1OriginOf}). A block without the
 * deposit (the L2 genesis) takes `genesisL1` as origin with sequence number 0, as op-node's
 * `L2BlockToBlockRef` does for the genesis block; zeroed when that is unknown too.
 */
export function l2RefOf(block: Block, genesisL1?: BlockIdJson): L2BlockRefJson {
  const h = block.header;
  const origin = l1OriginOf(block);
  return {
    hash: to0x(block.hash()),
    number: Number(h.number),
    parentHash: to0x(h.parentHash),
    timestamp: Number(h.timestamp),
    l1origin: origin === undefined ? (genesisL1 ?? { hash: ZERO_HASH, number: 0 }) : { hash: to0x(origin.hash), number: Number(origin.number) },
    sequenceNumber: origin === undefined ? 0 : Number(origin.sequenceNumber),
  };
}
