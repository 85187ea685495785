/**
 * Methods of basalt's local L1 (served only while basalt produces its `devnet-l1`), so tests can
 * drive and reorganize the L1 a rollup settles on:
 * - `debug_setHead(number)` (geth's): rewinds the canonical chain to block `number` and answers
 *   null; the unwound blocks' transactions are not put back in the pool and their blobs leave the
 *   beacon API; production goes on from the new head at the next slot;
 * - `evm_mine()` (anvil's): builds a block now and answers "0x0".
 */
import type { L1DevProducer } from "../../sequencer/l1DevProducer.js";
import { parseQuantity } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { checkEvmMineParams, EVM_MINE_RESULT } from "./dev.js";

/** Handlers of the devnet-l1 methods. */
export function l1DevMethods(producer: L1DevProducer): MethodTable {
  return {
    /**
     * debug_setHead(number): rewinds the chain to block `number` (a QUANTITY); null. A number
     * above the head is refused (-32000): the method only rewinds.
     */
    debug_setHead: async (params) => {
      maxParams(params, 1);
      await producer.setHead(parseQuantity(required(params, 0), 0));
      return null;
    },

    /** evm_mine(): builds and commits a block now (`L1DevProducer.sealOne`) and answers "0x0" like anvil. */
    evm_mine: async (params) => {
      checkEvmMineParams(params);
      await producer.sealOne();
      return EVM_MINE_RESULT;
    },
  };
}
