/**
 * The mempool as the block builders see it (`PoolSource`): the Engine API's payload building and
 * the devnet sequencer take candidates from it and drop the ones that can never apply.
 */
import type { Logger } from "pino";
import type { PoolSource } from "../execution/op/opPayload.js";
import type { TxPool } from "./txpool.js";

/** The mempool as a source of candidates; transactions that can never apply are dropped. */
export function poolSource(pool: TxPool, log?: Logger): PoolSource {
  return {
    candidates: (baseFee) => pool.selectForBlock(baseFee),
    limits: pool.builderLimits,
    reject: (hash, reason) => {
      log?.debug({ tx: Buffer.from(hash).toString("hex"), reason: reason.slice(0, 200) }, "dropping transaction that failed to apply");
      pool.remove(hash);
    },
  };
}
