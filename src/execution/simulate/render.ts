/**
 * eth_simulateV1's result as geth renders it (`simBlockResult.MarshalJSON`): each block in
 * eth_getBlockByNumber's form (transaction hashes, or full transactions with their senders)
 * plus `calls`: return data, logs (with the simulated block's hash, block-wide log indexes),
 * gas used, peak gas (`maxUsedGas`), status and, for a failed call, its error.
 */
import { formatBlock } from "../../chain/json/block.js";
import { toData, toQuantity } from "../../chain/json/quantity.js";
import { txHashOf } from "../../chain/envelope.js";
import type { SimulatedBlock } from "./simulator.js";

/** The JSON text of a simulation's result. */
export function renderSimulation(blocks: SimulatedBlock[], fullTransactions: boolean): string {
  return JSON.stringify(
    blocks.map(({ block, calls, senders }) => {
      const out = formatBlock(block, { fullTransactions, senders }) as unknown as Record<string, unknown>;
      const blockHash = toData(block.hash());
      const blockNumber = toQuantity(block.header.number);
      const blockTimestamp = toQuantity(block.header.timestamp);
      out.calls = calls.map((c, i) => {
        const txHash = toData(txHashOf(block.transactions[i]!));
        const call: Record<string, unknown> = {
          returnData: toData(c.returnData),
          logs: c.logs.map((l) => ({
            address: toData(l.address),
            topics: l.topics.map(toData),
            data: toData(l.data),
            blockNumber,
            transactionHash: txHash,
            transactionIndex: toQuantity(i),
            blockHash,
            blockTimestamp,
            logIndex: toQuantity(l.index),
            removed: false,
          })),
          gasUsed: toQuantity(c.gasUsed),
          maxUsedGas: toQuantity(c.maxUsedGas),
          status: toQuantity(c.status),
        };
        if (c.error !== undefined) call.error = c.error;
        return call;
      });
      return out;
    }),
  );
}
