/**
 * The chain as a worker thread sees it: the flashblocks, proofs and derivation workers open the
 * chain database read-only (`Chain.open(datadir, { readOnly: true })`) and are handed this view,
 * which has the reading members they use and none that import blocks or move the head
 * (`importBlock`, `setHead`, `commitCanonical`, `insertBlock`): only the main thread writes. The
 * main thread's {@link Chain} satisfies it.
 */
import type { Chain } from "./chain.js";

/** A read-only view of {@link Chain}: heads, headers, blocks, canonical hashes, state at a block, and `close` of the view. */
export type ChainReader = Pick<
  Chain,
  | "store"
  | "chainId"
  | "genesisHash"
  | "op"
  | "commonAt"
  | "headHeader"
  | "headHash"
  | "refreshHeadHeader"
  | "transactionHashesOf"
  | "getHeaderByHash"
  | "getBlockByHash"
  | "getBlockByNumber"
  | "pointer"
  | "getCanonicalHash"
  | "isCanonical"
  | "stateManagerAt"
  | "evmBlockchain"
  | "close"
>;
