/**
 * Builds an OP block on the current head from payload attributes: the Engine API path an
 * OP consensus client (op-node, base-consensus) drives, and the one the devnet sequencer
 * uses internally. The result is an executed block ready to commit.
 */
import type { Logger } from "pino";
import { blockWriteOf, type Chain, type ExecutedBlock } from "../chain/chain.js";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { buildOpPayload, type OpPayloadAttributes, type PoolSource } from "../execution/op/opPayload.js";
import type { TxPool } from "../txpool/txpool.js";

/** The mempool as a source of candidates; transactions that can never apply are dropped. */
export function poolSource(pool: TxPool, log?: Logger): PoolSource {
  return {
    candidates: (baseFee) => pool.selectForBlock(baseFee),
    reject: (hash, reason) => {
      log?.debug({ tx: Buffer.from(hash).toString("hex"), reason: reason.slice(0, 200) }, "dropping transaction that failed to apply");
      pool.remove(hash);
    },
  };
}

/** Builds and executes an OP block on the head; does not commit it. */
export async function buildOpOnHead(chain: Chain, pool: TxPool | undefined, attrs: OpPayloadAttributes, log?: Logger): Promise<ExecutedBlock> {
  const op = chain.op;
  if (op === undefined) throw new ChainError(ChainErrorCode.INVALID_BLOCK, "OP payload attributes on a chain that is not an OP Stack chain");
  const parent = chain.head;
  const number = parent.header.number + 1n;
  const common = chain.commonAt(number, attrs.timestamp);
  const { state, nodes } = chain.stateManagerAt(parent.header);
  const vm = await chain.makeVM(common, state, parent.hash(), attrs.timestamp);
  const { block, totals } = await buildOpPayload(vm, common, op, parent.header, attrs, pool === undefined ? undefined : poolSource(pool, log));
  return { block, gasUsed: totals.gasUsed, write: blockWriteOf(block, totals.receipts, totals.senders, state, nodes) };
}
