/**
 * The read-only view of the chain a worker thread gets (it opens the store read-only and must not
 * import blocks or move the head: only the main thread writes). `Chain` satisfies it; workers type
 * what they hand on as this, so their code cannot reach `importBlock` or `setHead`.
 */
import type { Block } from "@ethereumjs/block";
import type { Chain } from "./chain.js";

/** The reading methods of {@link Chain} that workers use. */
export interface ChainReader {
  /** Re-reads the head from the store (another thread moves it). */
  refreshHeadHeader(): ReturnType<Chain["refreshHeadHeader"]>;
  getBlockByHash(hash: Uint8Array): Block | undefined;
  getBlockByNumber(n: bigint): Block | undefined;
  /** The safe or finalized block, if set. */
  pointer(name: "safe" | "finalized"): Block | undefined;
}
