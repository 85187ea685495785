/**
 * The filter methods (geth's semantics, rpc/filters.ts): eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter.
 */
import type { RpcBackend } from "../backend.js";
import { InvalidParamsError } from "../errors.js";
import type { FilterRegistry } from "../filters.js";
import { maxParams, required } from "../params.js";
import { RawJson, type MethodTable } from "../types.js";
import { getLogs } from "./logs.js";

/** A filter id parameter: geth's ids are strings (a 0x quantity). */
function filterId(params: unknown[]): string {
  maxParams(params, 1);
  const id = required(params, 0);
  if (typeof id !== "string") throw new InvalidParamsError("invalid argument 0: filter id (hex string) expected");
  return id;
}

/** Handlers of the filter family over `filters`. */
export function filterMethods(b: RpcBackend, filters: FilterRegistry): MethodTable {
  return {
    /** eth_newFilter(criteria): a log filter (address, topics, fromBlock, toBlock; `toBlock: "pending"` adds pre-confirmed logs). */
    eth_newFilter: (params) => {
      maxParams(params, 1);
      return filters.newLogFilter(required(params, 0));
    },
    /** eth_newBlockFilter(): hashes of the blocks made canonical from now on. */
    eth_newBlockFilter: (params) => {
      maxParams(params, 0);
      return filters.newBlockFilter();
    },
    /** eth_newPendingTransactionFilter(fullTx?): hashes (or objects) of transactions entering the mempool or pre-confirmed. */
    eth_newPendingTransactionFilter: (params) => {
      maxParams(params, 1);
      const full = params[0];
      if (full != null && typeof full !== "boolean") throw new InvalidParamsError("invalid argument 0: boolean expected");
      return filters.newPendingTxFilter(full === true);
    },
    /** eth_getFilterChanges(id): what the filter saw since its last poll. */
    eth_getFilterChanges: (params) => {
      const changes = filters.changes(filterId(params));
      return Array.isArray(changes) ? changes : new RawJson(changes.json);
    },
    /** eth_getFilterLogs(id): a log filter's whole query, run as eth_getLogs. */
    eth_getFilterLogs: (params) => getLogs(b, filters.criteria(filterId(params))),
    /** eth_uninstallFilter(id): whether a filter was removed. */
    eth_uninstallFilter: (params) => filters.uninstall(filterId(params)),
  };
}
