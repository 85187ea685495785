/**
 * Transaction submission and the pool: eth_sendRawTransaction, txpool_content,
 * txpool_contentFrom, txpool_status, txpool_inspect.
 */
import { toChecksumAddress } from "@ethereumjs/util";
import type { OpChainConfig } from "../../chain/op/forks.js";
import type { PooledTx } from "../../txpool/txpool.js";
import type { RpcBackend } from "../backend.js";
import { ServerError } from "../errors.js";
import { formatTransaction, toData, toQuantity } from "../../chain/json/index.js";
import { parseAddress, parseData } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { SEND_MAX_SYNC_LAG_BLOCKS } from "../constants.js";

/**
 * eth_sendRawTransaction(Sync) while the node is more than {@link SEND_MAX_SYNC_LAG_BLOCKS} behind
 * the network: -32000 with how far behind it is, instead of relaying a transaction built on stale state.
 */
export class NodeSyncingError extends ServerError {
  constructor(
    readonly localHead: bigint,
    readonly networkHead: bigint,
  ) {
    super(
      `node is syncing: behind the network by ${networkHead - localHead} blocks ` +
        `(local head ${localHead}, network head ${networkHead}); retry once synced`,
      undefined,
      "RPC_NODE_SYNCING",
    );
  }
}

/**
 * Refuses a transaction submission while the node lags the network (as the follower sees the
 * source's head, `b.syncing()`) by more than {@link SEND_MAX_SYNC_LAG_BLOCKS}.
 * @throws NodeSyncingError when it does.
 */
export function assertSyncedForSend(b: Pick<RpcBackend, "syncing">): void {
  const s = b.syncing();
  if (s === false) return;
  if (s.highestBlock - s.currentBlock > SEND_MAX_SYNC_LAG_BLOCKS) throw new NodeSyncingError(s.currentBlock, s.highestBlock);
}

/** Pending transactions by nonce; on OP chains (`op` set) in op-reth's transaction form. */
function byNonce(list: PooledTx[], op: OpChainConfig | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of list) out[p.tx.nonce.toString()] = formatTransaction(p.tx, null, p.sender, { op });
  return out;
}

/** Handlers of the transaction-pool family. */
export function txpoolMethods(b: RpcBackend): MethodTable {
  const { pool } = b;
  const op = b.chain.op;
  const grouped = (m: Map<string, PooledTx[]>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [s, list] of m) out[toChecksumAddress("0x" + s)] = byNonce(list, op);
    return out;
  };
  return {
    /**
     * eth_sendRawTransaction(raw): validates (OP chains: also op-reth's pool rules), pools, returns the transaction hash.
     * With `--sequencer-http` (`b.forwarder`) the sequencer gets it first: its error is the answer, else it is also pooled here.
     * While the node is far behind the network: {@link NodeSyncingError} (checked after the parameters).
     */
    eth_sendRawTransaction: async (params) => {
      maxParams(params, 1);
      const raw = parseData(required(params, 0), 0);
      assertSyncedForSend(b);
      if (b.forwarder !== undefined) return b.forwarder.forward(toData(raw));
      return toData((await pool.addRaw(raw)).hash);
    },
    txpool_content: () => {
      const { pending, queued } = pool.content();
      return { pending: grouped(pending), queued: grouped(queued) };
    },
    txpool_contentFrom: (params) => {
      const addr = "0x" + Buffer.from(parseAddress(required(params, 0), 0)).toString("hex");
      const { pending, queued } = pool.content();
      return { pending: byNonce(pending.get(addr.slice(2)) ?? [], op), queued: byNonce(queued.get(addr.slice(2)) ?? [], op) };
    },
    txpool_status: () => {
      const { pending, queued } = pool.content();
      let p = 0;
      let q = 0;
      for (const l of pending.values()) p += l.length;
      for (const l of queued.values()) q += l.length;
      return { pending: toQuantity(p), queued: toQuantity(q) };
    },
    txpool_inspect: () => {
      const { pending, queued } = pool.content();
      const summary = (m: Map<string, PooledTx[]>): Record<string, Record<string, string>> => {
        const out: Record<string, Record<string, string>> = {};
        for (const [s, list] of m) {
          const e: Record<string, string> = {};
          for (const p of list) {
            const to = p.tx.to === undefined ? "contract creation" : p.tx.to.toString();
            const price = (p.tx as unknown as { maxFeePerGas?: bigint; gasPrice?: bigint }).maxFeePerGas ?? (p.tx as unknown as { gasPrice: bigint }).gasPrice;
            e[p.tx.nonce.toString()] = `${to}: ${p.tx.value} wei + ${p.tx.gasLimit} gas × ${price} wei`;
          }
          out[toChecksumAddress("0x" + s)] = e;
        }
        return out;
      };
      return { pending: summary(pending), queued: summary(queued) };
    },
  };
}
