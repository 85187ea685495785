/**
 * Stateless OP block execution: builds a block from payload attributes on a parent header,
 * reading state only from an execution witness (keccak-addressed preimages). This is how
 * kona's executor fixtures, fault-proof programs and `debug_executePayload` run blocks.
 */
import { createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { opForkAt, type OpChainConfig } from "../../chain/op/forks.js";
import { OverlayStateManager } from "../state/overlayStateManager.js";
import { TrieNodeDb } from "../state/trieNodeDb.js";
import { WitnessStateReader, witnessBlockHashes, type WitnessStore } from "../state/witnessState.js";
import { buildOpPayload, type BuiltOpBlock, type OpPayloadAttributes } from "./opPayload.js";
import { createOpVM } from "./opVm.js";

/** Decodes a JSON header (eth_getBlockByNumber field names) with the fork rules of its timestamp. */
export function headerFromJson(json: Record<string, unknown>, common: Common): BlockHeader {
  const c = common.copy();
  c.setHardforkBy({ blockNumber: BigInt(json.number as string), timestamp: BigInt(json.timestamp as string) });
  return createBlockHeader(
    {
      parentHash: json.parentHash as string,
      uncleHash: (json.sha3Uncles ?? json.uncleHash) as string,
      coinbase: (json.miner ?? json.coinbase) as string,
      stateRoot: json.stateRoot as string,
      transactionsTrie: (json.transactionsRoot ?? json.transactionsTrie) as string,
      receiptTrie: (json.receiptsRoot ?? json.receiptTrie) as string,
      logsBloom: json.logsBloom as string,
      difficulty: json.difficulty as string,
      number: json.number as string,
      gasLimit: json.gasLimit as string,
      gasUsed: json.gasUsed as string,
      timestamp: json.timestamp as string,
      extraData: json.extraData as string,
      mixHash: json.mixHash as string,
      nonce: json.nonce as string,
      baseFeePerGas: json.baseFeePerGas as string | undefined,
      withdrawalsRoot: json.withdrawalsRoot as string | undefined,
      blobGasUsed: json.blobGasUsed as string | undefined,
      excessBlobGas: json.excessBlobGas as string | undefined,
      parentBeaconBlockRoot: json.parentBeaconBlockRoot as string | undefined,
      requestsHash: json.requestsHash as string | undefined,
    } as never,
    { common: c, skipConsensusFormatValidation: true },
  );
}

/** Builds the block of `attrs` on `parent` from the witness alone. */
export async function executeStateless(witness: WitnessStore, parent: BlockHeader, attrs: OpPayloadAttributes, op: OpChainConfig, common: Common): Promise<BuiltOpBlock> {
  const c = common.copy();
  c.setHardforkBy({ blockNumber: parent.number + 1n, timestamp: attrs.timestamp });
  const state = new OverlayStateManager(new WitnessStateReader(witness, parent.stateRoot), new TrieNodeDb(witness));
  const vm = await createOpVM(c, state, witnessBlockHashes(witness, parent.hash()), opForkAt(op, attrs.timestamp));
  return buildOpPayload(vm, c, op, parent, attrs);
}
