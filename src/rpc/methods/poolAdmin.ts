/**
 * Mempool administration and Base's transaction status:
 * - reth's admin_clearTxpool (the number removed, a JSON number as reth's `u64`);
 * - Base's admin_dropTransaction and admin_dropSenderTransactions (base/base main and
 *   v0.6.0-rc) and the same three under the names of its last release, v0.5.1:
 *   txpool_removeAll, txpool_removeSender, txpool_removeTransaction;
 * - base_transactionStatus: `{"status":"Known"}` when the transaction is in the mempool, else
 *   `{"status":"Unknown"}`; with `--sequencer-http` the sequencer's answer (as base/base).
 * The admin and txpool_remove* methods are off on `--public` endpoints.
 */
import { toData } from "../../chain/json/index.js";
import type { RpcBackend } from "../backend.js";
import { parseAddress, parseHash } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";

/** Handlers of the pool administration family. */
export function poolAdminMethods(b: RpcBackend): MethodTable {
  const { pool } = b;
  const clear = (params: unknown[]): number => {
    maxParams(params, 0);
    return pool.clear();
  };
  const dropSender = (params: unknown[]): string[] => {
    maxParams(params, 1);
    return pool.removeSender(parseAddress(required(params, 0), 0)).map(toData);
  };
  const dropTransaction = (params: unknown[]): boolean => {
    maxParams(params, 1);
    return pool.remove(parseHash(required(params, 0), 0));
  };
  return {
    /** admin_clearTxpool(): drops every pooled transaction; how many (reth). */
    admin_clearTxpool: clear,
    /** admin_dropSenderTransactions(sender): drops the sender's pooled transactions; their hashes (Base). */
    admin_dropSenderTransactions: dropSender,
    /** admin_dropTransaction(hash): whether the transaction was pooled and is dropped (Base). */
    admin_dropTransaction: dropTransaction,
    /** txpool_removeAll(): admin_clearTxpool under base/base v0.5.1's name. */
    txpool_removeAll: clear,
    /** txpool_removeSender(sender): admin_dropSenderTransactions under base/base v0.5.1's name. */
    txpool_removeSender: dropSender,
    /** txpool_removeTransaction(hash): admin_dropTransaction under base/base v0.5.1's name. */
    txpool_removeTransaction: dropTransaction,
    /** base_transactionStatus(hash): Known (pooled) or Unknown; the sequencer's answer with `--sequencer-http`. */
    base_transactionStatus: async (params) => {
      maxParams(params, 1);
      const hash = parseHash(required(params, 0), 0);
      if (b.forwarder !== undefined) return b.forwarder.transactionStatus(toData(hash));
      return { status: pool.get(hash) === undefined ? "Unknown" : "Known" };
    },
  };
}
