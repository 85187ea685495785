/**
 * Stateless OP block execution: builds a block from payload attributes on a parent header,
 * reading state only from an execution witness (keccak-addressed preimages). This is how
 * kona's executor fixtures, fault-proof programs and `debug_executePayload` run blocks.
 */
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { opForkAt, type OpChainConfig } from "../../chain/op/forks.js";
import { OverlayStateManager } from "../state/overlayStateManager.js";
import { StateTries } from "../../storage/trie/stateTries.js";
import { WitnessStateReader, witnessBlockHashes, witnessTrieSource, type WitnessStore } from "../state/witnessState.js";
import { buildOpPayload, verifyOpBlock, type BuiltOpBlock, type OpPayloadAttributes } from "./opPayload.js";
import type { OpBlockTotals } from "./opBlockExecutor.js";
import { createOpVM } from "./opVm.js";

/** A VM over `parent`'s state read from `witness` alone, for a block at `timestamp`. */
function statelessVm(witness: WitnessStore, parent: BlockHeader, op: OpChainConfig, common: Common, timestamp: bigint) {
  const state = new OverlayStateManager(new WitnessStateReader(witness, parent.stateRoot), new StateTries(witnessTrieSource(witness)));
  return createOpVM(common, state, witnessBlockHashes(witness, parent.hash()), opForkAt(op, timestamp));
}

/** Builds the block of `attrs` on `parent` from the witness alone. */
export async function executeStateless(witness: WitnessStore, parent: BlockHeader, attrs: OpPayloadAttributes, op: OpChainConfig, common: Common): Promise<BuiltOpBlock> {
  const c = common.copy();
  c.setHardforkBy({ blockNumber: parent.number + 1n, timestamp: attrs.timestamp });
  return buildOpPayload(await statelessVm(witness, parent, op, c, attrs.timestamp), c, op, parent, attrs);
}

/**
 * Re-executes `block` on `parent` from the witness alone (a `debug_executionWitness` answer) and
 * checks every header commitment, the state root included; throws on any mismatch or on a
 * preimage the witness lacks.
 */
export async function verifyStateless(witness: WitnessStore, block: Block, parent: BlockHeader, op: OpChainConfig): Promise<OpBlockTotals> {
  const vm = await statelessVm(witness, parent, op, block.common, block.header.timestamp);
  return verifyOpBlock(vm, block, op, parent);
}
