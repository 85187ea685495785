/**
 * Builds an OP block on the current head from payload attributes: the Engine API path an
 * OP consensus client (op-node, base-consensus) drives, and the one the devnet sequencer
 * uses internally. The result is an executed block ready to commit. The mempool is seen through
 * a {@link PoolSource} (`src/txpool/poolSource.ts` adapts the node's TxPool).
 */
import type { Block } from "@ethereumjs/block";
import { blockWriteOf, type Chain, type ExecutedBlock } from "./chain.js";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { buildOpPayload, type OpPayloadAttributes, type PoolSource } from "../execution/op/opPayload.js";

/** Builds and executes an OP block on the head; does not commit it. */
export async function buildOpOnHead(chain: Chain, pool: PoolSource | undefined, attrs: OpPayloadAttributes): Promise<ExecutedBlock> {
  return buildOpOnParent(chain, chain.head, pool, attrs);
}

/**
 * Builds and executes an OP block on `parent` (any stored block whose state is kept: derivation
 * builds on the safe head, below the unsafe head); does not commit it.
 * @throws UnknownUpgradeError when `attrs.timestamp` is at or after an upgrade basalt does not implement ({@link Chain.upgrades}).
 */
export async function buildOpOnParent(chain: Chain, parent: Block, pool: PoolSource | undefined, attrs: OpPayloadAttributes): Promise<ExecutedBlock> {
  const op = chain.op;
  if (op === undefined) throw new ChainError(ChainErrorCode.INVALID_BLOCK, "OP payload attributes on a chain that is not an OP Stack chain");
  const number = parent.header.number + 1n;
  chain.upgrades.check(attrs.timestamp, { number, action: "build" });
  const common = chain.commonAt(number, attrs.timestamp);
  const { state } = chain.stateManagerAt(parent.header);
  const vm = await chain.makeVM(common, state, parent.hash(), attrs.timestamp);
  const { block, totals } = await buildOpPayload(vm, common, op, parent.header, attrs, pool);
  return { block, gasUsed: totals.gasUsed, write: blockWriteOf(block, totals.receipts, totals.senders, state) };
}
