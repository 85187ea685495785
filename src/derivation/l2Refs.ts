/**
 * L2 blocks as derivation sees them: number, hash, parent, timestamp, L1 origin and sequence
 * number, read from the block's L1-info deposit (the genesis block takes the rollup's L1 anchor
 * and sequence number 0).
 */
import type { Block } from "@ethereumjs/block";
import { decodeL1InfoCalldata } from "../chain/op/l1InfoTx.js";
import type { RollupConfig } from "../chain/op/rollupConfig.js";
import { fromHex } from "../util/bytes.js";
import { DerivationError, DerivationErrorCode } from "./errors.js";
import type { AttributesParent } from "./payloadAttributes.js";

/** An L2 block reference with its parent hash (what the pipeline keeps of the safe chain). */
export interface SafeRef extends AttributesParent {
  parentHash: Uint8Array;
}

/** The derivation reference of L2 block `block` (see the module comment). */
export function l2RefOf(block: Block, cfg: Pick<RollupConfig, "genesis">): SafeRef {
  const h = block.header;
  if (h.number === cfg.genesis.l2.number) {
    return {
      number: h.number,
      hash: block.hash(),
      parentHash: h.parentHash,
      timestamp: h.timestamp,
      l1Origin: { number: cfg.genesis.l1.number, hash: fromHex(cfg.genesis.l1.hash) },
      sequenceNumber: 0n,
    };
  }
  const first = block.transactions[0];
  if (first === undefined || (first.type as number) !== 0x7e) {
    throw new DerivationError({ code: DerivationErrorCode.NO_L1_INFO, number: h.number.toString() }, `L2 block ${h.number} does not start with an L1-info deposit: expected a block of an OP chain`);
  }
  const { values } = decodeL1InfoCalldata(first.data);
  return {
    number: h.number,
    hash: block.hash(),
    parentHash: h.parentHash,
    timestamp: h.timestamp,
    l1Origin: { number: values.number, hash: values.hash },
    sequenceNumber: values.sequenceNumber,
  };
}
