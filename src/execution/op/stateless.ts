/**
 * Stateless OP block execution: builds a block from payload attributes on a parent header,
 * reading state only from an execution witness (keccak-addressed preimages). This is how
 * kona's executor fixtures, fault-proof programs and `debug_executePayload` run blocks.
 */
import type { BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { opForkAt, type OpChainConfig } from "../../chain/op/forks.js";
import { OverlayStateManager } from "../state/overlayStateManager.js";
import { TrieNodeDb } from "../state/trieNodeDb.js";
import { WitnessStateReader, witnessBlockHashes, type WitnessStore } from "../state/witnessState.js";
import { buildOpPayload, type BuiltOpBlock, type OpPayloadAttributes } from "./opPayload.js";
import { createOpVM } from "./opVm.js";

/** Builds the block of `attrs` on `parent` from the witness alone. */
export async function executeStateless(witness: WitnessStore, parent: BlockHeader, attrs: OpPayloadAttributes, op: OpChainConfig, common: Common): Promise<BuiltOpBlock> {
  const c = common.copy();
  c.setHardforkBy({ blockNumber: parent.number + 1n, timestamp: attrs.timestamp });
  const state = new OverlayStateManager(new WitnessStateReader(witness, parent.stateRoot), new TrieNodeDb(witness, { cache: false }));
  const vm = await createOpVM(c, state, witnessBlockHashes(witness, parent.hash()), opForkAt(op, attrs.timestamp));
  return buildOpPayload(vm, c, op, parent, attrs);
}
