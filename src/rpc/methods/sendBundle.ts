/**
 * eth_sendBundle as Base's ingress serves it (base/base v0.6.0-rc.19
 * `crates/infra/ingress-rpc/src/service.rs` and `validation.rs`): the bundle is checked against
 * Base's limits, then its transactions enter the mempool in order, as eth_sendRawTransaction's
 * do (with `--sequencer-http`, the sequencer first). The answer is `{"bundleHash": …}`, the
 * keccak256 of the transaction hashes concatenated.
 *
 * Base's checks, in its order, with its answers:
 * - no transaction: -32602 "Bundle cannot have empty transactions";
 * - each transaction: empty → -32000 "empty transaction data"; undecodable or unsigned → -32000
 *   "failed to decode signed transaction";
 * - `maxTimestamp` more than an hour ahead: -32602 "Bundle cannot be more than 1 hour in the future";
 * - total gas limit above 25 000 000: -32602 "Bundle gas limit exceeds maximum allowed";
 * - more than 3 transactions: -32602 "Bundle can only contain 3 transactions";
 * - `droppingTxHashes` not empty: -32602 "Partial transaction dropping is not supported";
 * - `revertingTxHashes` not exactly the bundle's hashes: -32602 "Revert protection is not
 *   supported. reverting_tx_hashes must include all hashes";
 * - `replacementUuid` not a UUID: -32602 "Invalid UUID: …".
 * Base's ingress then meters the bundle on a simulation node and queues it for its builder;
 * basalt has no separate builder queue: the transactions go to the mempool, which is what its
 * sequencer builds from. A transaction the pool refuses answers the pool's error (earlier
 * transactions of the bundle stay pooled, as separately sent ones would).
 */
import { toData } from "../../chain/json/index.js";
import { decodeOpTransaction } from "../../execution/op/opPayload.js";
import { isDeposit } from "../../chain/op/depositTx.js";
import { senderOf } from "../../chain/sender.js";
import type { TypedTransaction } from "@ethereumjs/tx";
import { keccak256 } from "../../util/keccak.js";
import { counter } from "../../util/metrics.js";
import { BUNDLE_MAX_FUTURE_SECONDS, BUNDLE_MAX_GAS, BUNDLE_MAX_TXS } from "../constants.js";
import { bundleHashOf } from "../../execution/metering/meterBundle.js";
import type { RpcBackend } from "../backend.js";
import { parseBundleParams } from "../bundleParams.js";
import { RpcCode, RpcError, ServerError } from "../errors.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { assertSyncedForSend } from "./txpool.js";

/** eth_sendBundle calls by outcome (`accepted`, `rejected`). */
const sendBundleTotal = counter({
  name: "basalt_rpc_send_bundle_total",
  help: "eth_sendBundle calls by outcome (accepted: every transaction pooled; rejected: a Base limit, a malformed bundle or a pool refusal)",
  labelNames: ["outcome"],
});

/** Base's ingress refusal of a bundle: -32602 with its text (reth `EthApiError::InvalidParams`). */
export class BundleRejectedError extends RpcError {
  constructor(message: string) {
    super(RpcCode.InvalidParams, message, undefined, "RPC_BUNDLE_REJECTED");
  }
}

const UUID = /^(urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

/** Handlers of eth_sendBundle. */
export function sendBundleMethods(b: RpcBackend, now: () => number = () => Math.floor(Date.now() / 1000)): MethodTable {
  return {
    /** eth_sendBundle(bundle): Base's limits, then every transaction pooled in order; `{bundleHash}`. */
    eth_sendBundle: async (params) => {
      try {
        maxParams(params, 1);
        const bundle = parseBundleParams(required(params, 0));
        if (bundle.txs.length === 0) throw new BundleRejectedError("Bundle cannot have empty transactions");
        const common = b.chain.commonAt(b.chain.head.header.number + 1n, BigInt(now()));
        const raws: Uint8Array[] = [];
        const hashes: Uint8Array[] = [];
        let gas = 0n;
        for (const hex of bundle.txs) {
          const raw = Buffer.from(hex.slice(2), "hex");
          if (raw.length === 0) throw new ServerError("empty transaction data", undefined, "RPC_EMPTY_RAW_TX");
          let tx;
          try {
            tx = decodeOpTransaction(raw, common);
            if (isDeposit(tx)) throw new Error("deposit");
            senderOf(tx as TypedTransaction);
          } catch {
            throw new ServerError("failed to decode signed transaction", undefined, "RPC_UNDECODABLE_TX");
          }
          gas += tx.gasLimit;
          raws.push(raw);
          hashes.push(keccak256(raw));
        }
        if (bundle.maxTimestamp !== undefined && bundle.maxTimestamp > BigInt(now() + BUNDLE_MAX_FUTURE_SECONDS)) throw new BundleRejectedError("Bundle cannot be more than 1 hour in the future");
        if (gas > BUNDLE_MAX_GAS) throw new BundleRejectedError("Bundle gas limit exceeds maximum allowed");
        if (bundle.txs.length > BUNDLE_MAX_TXS) throw new BundleRejectedError(`Bundle can only contain ${BUNDLE_MAX_TXS} transactions`);
        if (bundle.droppingTxHashes.length > 0) throw new BundleRejectedError("Partial transaction dropping is not supported");
        const txSet = new Set(hashes.map((h) => toData(h)));
        const revertSet = new Set(bundle.revertingTxHashes);
        if (txSet.size !== revertSet.size || [...txSet].some((h) => !revertSet.has(h))) {
          throw new BundleRejectedError("Revert protection is not supported. reverting_tx_hashes must include all hashes");
        }
        if (bundle.replacementUuid !== undefined && !UUID.test(bundle.replacementUuid)) throw new BundleRejectedError(`Invalid UUID: ${bundle.replacementUuid}`);
        assertSyncedForSend(b);
        for (const raw of raws) {
          if (b.forwarder !== undefined) await b.forwarder.forward(toData(raw));
          else await b.pool.addRaw(raw);
        }
        sendBundleTotal.inc({ outcome: "accepted" });
        return { bundleHash: bundleHashOf(hashes) };
      } catch (e) {
        sendBundleTotal.inc({ outcome: "rejected" });
        throw e;
      }
    },
  };
}
