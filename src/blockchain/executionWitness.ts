/**
 * Execution witnesses of the chain's blocks (`debug_executionWitness`) and of payloads built on
 * one of its blocks (`debug_executePayload`): the block runs on its parent's state, read by
 * walking the parent's tries over the chain store's trie nodes (content-addressed and never
 * deleted, so every stored block's state can be walked), and everything it reads is recorded
 * (execution/witness/recorder.ts). The re-execution is checked against the block's header, so a
 * witness is only ever answered for an execution that reproduced the block.
 */
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createVM, runBlock, type VM } from "@ethereumjs/vm";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { opForkAt } from "../chain/op/forks.js";
import { buildOpPayload, verifyOpBlock, type OpPayloadAttributes } from "../execution/op/opPayload.js";
import { createOpVM } from "../execution/op/opVm.js";
import { installEvmCaches } from "../execution/evmSpeedups.js";
import { OverlayStateManager } from "../execution/state/overlayStateManager.js";
import { WitnessMissingError } from "../execution/state/witnessState.js";
import { StateTries } from "../storage/trie/stateTries.js";
import { StateTrieError } from "../storage/trie/errors.js";
import { WitnessRecorder } from "../execution/witness/recorder.js";
import { deserializePayloadAttributes, type WitnessRequest } from "../execution/witness/request.js";
import { executionWitnessJson, type ExecutionWitness } from "../execution/witness/types.js";
import { fromHex, to0x } from "../util/bytes.js";
import type { Chain } from "./chain.js";

/** A recorder and a VM on `parent`'s state whose every read is recorded. */
async function recordingVm(chain: Chain, parent: BlockHeader, common: Common, timestamp: bigint): Promise<{ vm: VM; recorder: WitnessRecorder }> {
  const recorder = new WitnessRecorder({ tries: chain.trieSourceAt(parent), getCode: (h) => chain.store.getCode(h) });
  recorder.includeRoot(parent.stateRoot);
  const reader = recorder.reader(parent.stateRoot);
  const state = new OverlayStateManager(reader, new StateTries(recorder.tries));
  const hashes = recorder.blockHashes(chain.evmBlockchain(parent.hash()));
  if (chain.op !== undefined) return { vm: await createOpVM(common, state, hashes, opForkAt(chain.op, timestamp)), recorder };
  await installEvmCaches();
  return { vm: await createVM({ common, stateManager: state, blockchain: hashes as never }), recorder };
}

/** A trie node or bytecode the chain store lacks: the parent's state is not walkable. */
function unavailable(parent: BlockHeader, e: unknown): unknown {
  if (e instanceof StateTrieError) {
    return new ChainError(ChainErrorCode.STATE_UNAVAILABLE, `state of block ${parent.number} is incomplete in the store: ${e.message}`, { number: parent.number });
  }
  if (!(e instanceof WitnessMissingError)) return e;
  return new ChainError(ChainErrorCode.STATE_UNAVAILABLE, `state of block ${parent.number} is incomplete in the store: ${e.message.replace("execution witness is missing", "no")}`, {
    number: parent.number,
  });
}

/** The parent of `block`, or a typed error. */
function parentOf(chain: Chain, header: BlockHeader): BlockHeader {
  const parent = chain.getHeaderByHash(header.parentHash);
  if (parent === undefined) {
    throw new ChainError(ChainErrorCode.UNKNOWN_PARENT, `block ${header.number}: unknown parent ${to0x(header.parentHash)}`, { number: header.number });
  }
  return parent;
}

/**
 * RLP headers from `lowest` (the lowest BLOCKHASH target, or the parent) up to `parent`,
 * ascending, following parent links (so a non-canonical parent gets its own ancestors).
 */
function headersDownTo(chain: Chain, parent: BlockHeader, lowest: bigint | undefined): Uint8Array[] {
  const floor = lowest === undefined || lowest > parent.number ? parent.number : lowest;
  const out: Uint8Array[] = [];
  let h: BlockHeader | undefined = parent;
  while (h !== undefined && h.number >= floor) {
    out.push(h.serialize());
    if (h.number === 0n) break;
    h = chain.getHeaderByHash(h.parentHash);
  }
  return out.reverse();
}

/**
 * `debug_executionWitness`: re-executes `block` on its parent's state, checks every header
 * commitment (state root included), and returns what a stateless executor needs to do the same:
 * the parent state's trie nodes on every path the block read or wrote, the bytecodes, the keys,
 * and the headers BLOCKHASH reaches (at least the parent's).
 */
export async function blockExecutionWitness(chain: Chain, block: Block): Promise<ExecutionWitness> {
  const parent = parentOf(chain, block.header);
  const { vm, recorder } = await recordingVm(chain, parent, block.common, block.header.timestamp);
  try {
    if (chain.op !== undefined) await verifyOpBlock(vm, block, chain.op, parent);
    else {
      const r = await runBlock(vm, { block, skipHeaderValidation: true, skipHardForkValidation: true });
      if (!equalsBytes(r.stateRoot, block.header.stateRoot)) {
        throw new ChainError(ChainErrorCode.INVALID_BLOCK, `block ${block.header.number}: stateRoot is ${bytesToHex(block.header.stateRoot)} in the header but execution gives ${bytesToHex(r.stateRoot)}`, {
          number: block.header.number,
        });
      }
    }
  } catch (e) {
    throw unavailable(parent, e);
  }
  return recorder.witness(headersDownTo(chain, parent, recorder.lowestBlockHash));
}

/**
 * `debug_executePayload`: builds the block of `attrs` (their transactions only, no mempool) on
 * `parent` and returns the witness of that execution, with no headers (as Base's node answers).
 */
export async function payloadExecutionWitness(chain: Chain, parent: BlockHeader, attrs: OpPayloadAttributes): Promise<ExecutionWitness> {
  const op = chain.op;
  if (op === undefined) throw new ChainError(ChainErrorCode.INVALID_BLOCK, "debug_executePayload needs an OP chain: payload attributes carry the forced transactions");
  const common = chain.commonAt(parent.number + 1n, attrs.timestamp);
  const { vm, recorder } = await recordingVm(chain, parent, common, attrs.timestamp);
  try {
    await buildOpPayload(vm, common, op, parent, { ...attrs, noTxPool: true });
  } catch (e) {
    throw unavailable(parent, e);
  }
  return recorder.witness([]);
}

/**
 * Answers a {@link WitnessRequest} on the thread holding `chain` (an execution-pool worker, or the
 * calling thread in in-process tests): the witness as JSON text.
 */
export async function answerWitnessRequest(chain: Chain, req: WitnessRequest): Promise<string> {
  if (req.kind === "block") {
    const block = chain.getBlockByHash(fromHex(req.hash));
    // The block was found when the RPC thread resolved it; a reorg since removed it.
    if (block === undefined) throw new ChainError(ChainErrorCode.STATE_UNAVAILABLE, `block ${req.hash} is no longer stored`);
    return executionWitnessJson(await blockExecutionWitness(chain, block));
  }
  const parent = chain.getHeaderByHash(fromHex(req.parentHash));
  if (parent === undefined) throw new ChainError(ChainErrorCode.UNKNOWN_PARENT, `no header found for Hash(${req.parentHash})`);
  return executionWitnessJson(await payloadExecutionWitness(chain, parent, deserializePayloadAttributes(req.attrs)));
}
