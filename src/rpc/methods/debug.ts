/**
 * Raw consensus encodings: debug_getRawBlock, debug_getRawHeader, debug_getRawReceipts,
 * debug_getRawTransaction.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import type { StoredReceipt } from "../../storage/types.js";
import type { RpcBackend } from "../backend.js";
import { parseBlockParam, resolveBlock } from "../blockParam.js";
import { ServerError } from "../errors.js";
import { toData } from "../../chain/json/index.js";
import { parseHash } from "../hexParams.js";
import { required } from "../params.js";
import type { MethodTable } from "../types.js";

/** EIP-2718 consensus encoding of a receipt. */
function encodeReceipt(r: StoredReceipt): Uint8Array {
  const first = r.root !== undefined ? r.root : r.status === 1 ? Uint8Array.of(1) : new Uint8Array();
  const body = RLP.encode([first, bigIntToUnpaddedBytes(r.cumulativeGasUsed), r.bloom, r.logs.map((l) => [l.address, l.topics, l.data])] as never);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}

/** Handlers of the debug raw-data family. */
export function debugMethods(b: RpcBackend): MethodTable {
  const { chain } = b;
  const block = (params: unknown[]) => {
    const blk = resolveBlock(chain, parseBlockParam(required(params, 0), 0, { allowHash: true }));
    if (blk === undefined) throw new ServerError("block not found");
    return blk;
  };
  const proofs = b.proofs;
  return {
    // With --historical-proofs only (Base's node has it only with its proofs extension): the window's ends.
    ...(proofs === undefined ? {} : { debug_proofsSyncStatus: () => proofs.status() }),
    debug_getRawBlock: (params) => toData(block(params).serialize()),
    debug_getRawHeader: (params) => toData(block(params).header.serialize()),
    debug_getRawReceipts: (params) => {
      const blk = block(params);
      return (chain.getReceipts(blk.hash()) ?? []).map((r) => toData(encodeReceipt(r)));
    },
    debug_getRawTransaction: (params) => {
      const h = parseHash(required(params, 0), 0);
      const loc = chain.store.getTxLocation(h);
      if (loc === undefined) {
        const p = b.pool.get(h);
        return p === undefined ? "0x" : toData(p.tx.serialize());
      }
      const blk = chain.getBlockByHash(loc.blockHash);
      return blk === undefined ? "0x" : toData(blk.transactions[loc.index].serialize());
    },
  };
}
