/** The parent header a block's trace replays on (geth: genesis has none to replay on). */
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { CallChain } from "../callExecutor.js";
import { TraceError, TraceErrorCode } from "./errors.js";

/**
 * The stored parent of `block`.
 * @throws TraceError `GENESIS` for block 0, `BLOCK_NOT_FOUND` when the parent is not stored
 */
export function parentOf(chain: CallChain, block: Block): BlockHeader {
  if (block.header.number === 0n) throw new TraceError({ code: TraceErrorCode.GENESIS }, "genesis is not traceable");
  const parent = chain.getHeaderByHash(block.header.parentHash);
  if (parent === undefined) {
    const h = "0x" + Buffer.from(block.header.parentHash).toString("hex");
    throw new TraceError({ code: TraceErrorCode.BLOCK_NOT_FOUND, block: h }, `parent ${h} not found`);
  }
  return parent;
}
