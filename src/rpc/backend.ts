/**
 * What the RPC method families need from the node: the chain, the mempool, the call
 * executor and node settings. One instance per node; handlers take it by closure.
 */
import type { RawAccountProof } from "../proofs/reader.js";
import type { Chain } from "../blockchain/chain.js";
import type { CallService } from "../execution/callRequest.js";
import type { TxPool } from "../txpool/txpool.js";
import type { PendingSource } from "../flashblocks/pendingView.js";
import type { TxForwarder } from "../sync/sequencerForward.js";
import type { ElNetwork } from "../p2p/el/network.js";

/** Node-level settings the RPC reads. */
export interface RpcSettings {
  gasCap: bigint;
  clientVersion: string;
  /** `--rpc.eth-proof-window`: eth_getProof's maximum distance below the head without the proofs extension (0 = no limit). */
  ethProofWindow?: number;
  /** `--rpc.max-trace-filter-blocks`: most blocks one trace_filter request may span (default TRACE_FILTER_MAX_BLOCKS). */
  maxTraceFilterBlocks?: number;
  /** `--rpc.max-logs-per-response`: most logs one eth_getLogs / eth_getFilterLogs answer holds (0 = no limit; default MAX_LOGS_PER_RESPONSE). */
  maxLogsPerResponse?: number;
  /** `--rpc.max-blocks-per-filter`: most blocks one eth_getLogs / eth_getFilterLogs range may span (0 = no limit; default MAX_LOGS_BLOCK_RANGE). */
  maxBlocksPerFilter?: number;
  /** `--rpc.response-cache-blocks`: blocks the response cache keeps rendered (default RESPONSE_CACHE_BLOCKS; 0 = none). */
  responseCacheBlocks?: number;
}

/** The historical proofs extension (`--historical-proofs`), as the RPC methods use it. */
interface ProofsSource {
  /** eth_getProof at block `number` of the window; throws `PROOFS_NO_STATE` outside it. */
  proof(address: string, slots: string[], number: bigint): Promise<RawAccountProof>;
  /** debug_proofsSyncStatus. */
  status(): { earliest: number | null; latest: number | null };
}

/** Dependencies of the RPC methods. */
export interface RpcBackend {
  chain: Chain;
  pool: TxPool;
  /** Runs eth_call, eth_estimateGas and eth_createAccessList (the execution pool in a running node). */
  calls: CallService;
  settings: RpcSettings;
  /** Pre-confirmed state (flashblocks) answering the `pending` tag; {@link NO_PENDING} without a stream. */
  pending: PendingSource;
  /** Set with `--sequencer-http`: raw transactions also go to the sequencer. */
  forwarder?: TxForwarder;
  /** Set with `--historical-proofs`: eth_getProof within the window and debug_proofsSyncStatus come from the proofs store. */
  proofs?: ProofsSource;
  /** The execution-layer network (devp2p), unless `--p2p.el.disable`: admin_nodeInfo, admin_peers, net_peerCount, net_listening. */
  network?: ElNetwork;
  /** Whether the node is importing/syncing (eth_syncing). */
  syncing(): false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint };
}
