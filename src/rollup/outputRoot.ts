/**
 * L2 output roots (`optimism_outputAtBlock`): the commitment an L2 block's output is proposed to L1
 * with (specs protocol/proposals.md "L2 Output Commitment Construction"; op-node
 * `rollup/output_root.go`; base/base `crates/consensus/rpc/src/output.rs`).
 *
 * Version 0: `outputRoot = keccak256(version ‖ stateRoot ‖ withdrawalStorageRoot ‖ blockHash)`,
 * with `version` 32 zero bytes and `withdrawalStorageRoot` the storage root of the
 * L2ToL1MessagePasser predeploy after the block.
 */
import type { Block } from "@ethereumjs/block";
import { KECCAK256_RLP } from "@ethereumjs/util";
import type { Chain } from "../blockchain/chain.js";
import { OpFork, opForkAt } from "../chain/op/forks.js";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../chain/op/predeploys.js";
import { fromHex, to0x } from "../util/bytes.js";
import { keccak256 } from "../util/keccak.js";

/** Output root version 0: 32 zero bytes (specs proposals.md; op-node `eth.OutputVersionV0`). */
const OUTPUT_VERSION_V0: Uint8Array = new Uint8Array(32);

/** Bytes of the v0 output-root preimage: four 32-byte words. */
const OUTPUT_V0_PREIMAGE_BYTES = 128;

/** The v0 output root of (stateRoot, withdrawalStorageRoot, blockHash): keccak256 over the four 32-byte words. */
function outputRootV0(stateRoot: Uint8Array, withdrawalStorageRoot: Uint8Array, blockHash: Uint8Array): Uint8Array {
  const pre = new Uint8Array(OUTPUT_V0_PREIMAGE_BYTES);
  pre.set(OUTPUT_VERSION_V0, 0);
  pre.set(stateRoot, 32);
  pre.set(withdrawalStorageRoot, 64);
  pre.set(blockHash, 96);
  return keccak256(pre);
}

/**
 * Storage root of the L2ToL1MessagePasser (0x4200…0016) after `block`, read from the state
 * (`Chain.stateAt`; the empty-trie root when the account is absent). From Isthmus on the header's
 * `withdrawalsRoot` carries the same value, and op-node reads it from there
 * ({@link withdrawalStorageRootOf} does the same when the state is not available).
 * @throws ChainError STATE_UNAVAILABLE when the block's state is pruned.
 */
function messagePasserStorageRoot(chain: Chain, block: Block): Uint8Array {
  const account = chain.stateAt(block.header).account(fromHex(L2_TO_L1_MESSAGE_PASSER_ADDRESS));
  return account === undefined ? KECCAK256_RLP : account.storageRoot;
}

/**
 * The withdrawal storage root of `block`: the header's `withdrawalsRoot` when Isthmus is active and
 * the state is pruned (specs isthmus/exec-engine.md: from Isthmus the header commits to the
 * L2ToL1MessagePasser storage root), else the state's {@link messagePasserStorageRoot}.
 */
function withdrawalStorageRootOf(chain: Chain, block: Block): Uint8Array {
  const h = block.header;
  const isthmus = chain.op !== undefined && opForkAt(chain.op, h.timestamp) >= OpFork.isthmus && h.withdrawalsRoot !== undefined;
  if (isthmus && h.number < chain.oldestStateBlock()) return h.withdrawalsRoot as Uint8Array;
  return messagePasserStorageRoot(chain, block);
}

/** The parts of an `optimism_outputAtBlock` answer that depend on the block only. */
interface BlockOutput {
  version: string;
  outputRoot: string;
  withdrawalStorageRoot: string;
  stateRoot: string;
}

/** The v0 output of `block`: version, output root, withdrawal storage root and state root as 0x hex. */
export function blockOutputOf(chain: Chain, block: Block): BlockOutput {
  const withdrawalRoot = withdrawalStorageRootOf(chain, block);
  const root = outputRootV0(block.header.stateRoot, withdrawalRoot, block.hash());
  return {
    version: to0x(OUTPUT_VERSION_V0),
    outputRoot: to0x(root),
    withdrawalStorageRoot: to0x(withdrawalRoot),
    stateRoot: to0x(block.header.stateRoot),
  };
}
