/**
 * base_flashblockHeight: this node's flashblock height over HTTP — the number and latest
 * applied flashblock index of its pending block, `{blockNumber, flashblockIndex}` (hex
 * quantities), or null when it has no pre-confirmed data ahead of its canonical head (then
 * `pending` answers as `latest`, and eth_blockNumber is the height). The same object
 * `eth_subscribe("flashblockHeight")` streams; a load balancer polls it (base/base issue #508)
 * where WebSockets are not available, and routes `{blockNumber, flashblockIndex}` requests to a
 * node whose height is at least the one asked.
 */
import { heightJson } from "../../flashblocks/errors.js";
import { flashblockHeight } from "../../flashblocks/pendingAt.js";
import { isAheadOfHead } from "../../flashblocks/pendingView.js";
import type { RpcBackend } from "../backend.js";
import { maxParams } from "../params.js";
import type { MethodTable } from "../types.js";

/** Handler of base_flashblockHeight. */
export function flashblockHeightMethods(b: RpcBackend): MethodTable {
  return {
    /** base_flashblockHeight(): `{blockNumber, flashblockIndex}` of the pending block, or null. */
    base_flashblockHeight: (params) => {
      maxParams(params, 0);
      const s = b.pending.current();
      const height = s !== undefined && isAheadOfHead(s, b.chain.head.header.number) ? flashblockHeight(s) : undefined;
      return height === undefined ? null : heightJson(height);
    },
  };
}
