/**
 * eth_sendRawTransactionSync (EIP-7966, as served by Base's flashblocks node base/base):
 * submits a raw transaction exactly as eth_sendRawTransaction does (same validation, same
 * sequencer forwarding, same errors), then waits for its first receipt — already canonical, in
 * a new pending (pre-confirmed) snapshot, or in a new canonical head — and returns it as
 * eth_getTransactionReceipt would (the pre-rendered pending receipt, or the canonical one).
 *
 * Timeout: the optional second parameter in milliseconds (a JSON number or a hex quantity);
 * omitted, null or 0 means the default, {@link SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS}; more than that
 * is refused with -32602 `time out too long, timeout: {ms} ms, max: 6000 ms` (base/base
 * `rpc/eth.rs`). When the wait runs out: {@link TransactionConfirmationTimeoutError}.
 */
import { SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS } from "../constants.js";
import type { PendingSnapshot } from "../../flashblocks/pendingSnapshot.js";
import { counter, histogram } from "../../util/metrics.js";
import type { RpcBackend } from "../backend.js";
import { InvalidParamsError, RpcError } from "../errors.js";
import { parseHash, parseQuantity } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import { RawJson, type MethodTable, type RpcContext } from "../types.js";
import { canonicalReceipt } from "./blocks.js";
import { findPendingTx, pendingFor } from "./pending.js";
import { txpoolMethods } from "./txpool.js";

/** EIP-7966: the JSON-RPC error code of a receipt wait that ran out (alloy `EthRpcErrorCode::TransactionConfirmationTimeout`, reth PR #18252). */
const TX_CONFIRMATION_TIMEOUT_CODE = 4;

/**
 * Rust's `Debug` form of a whole number of milliseconds as a `Duration` ("6s", "1.5s", "250ms"),
 * which reth prints in the timeout message.
 */
export function rustDurationDebug(ms: number): string {
  if (ms >= 1000) {
    const frac = String(ms % 1000).padStart(3, "0").replace(/0+$/, "");
    return `${Math.floor(ms / 1000)}${frac === "" ? "" : "." + frac}s`;
  }
  return ms === 0 ? "0ns" : `${ms}ms`;
}

/**
 * eth_sendRawTransactionSync: the transaction was accepted but no receipt appeared within the
 * timeout. JSON-RPC code 4 (EIP-7966) with reth's `TransactionConfirmationTimeout` message;
 * `data` is the transaction hash (as EIP-7966's example; the caller can keep polling with it).
 */
export class TransactionConfirmationTimeoutError extends RpcError {
  constructor(
    readonly txHash: string,
    readonly timeoutMs: number,
  ) {
    super(
      TX_CONFIRMATION_TIMEOUT_CODE,
      `Transaction ${txHash} was added to the mempool but wasn't confirmed within ${rustDurationDebug(timeoutMs)}.`,
      txHash,
      "RPC_TX_CONFIRMATION_TIMEOUT",
    );
  }
}

/**
 * The wait of one eth_sendRawTransactionSync call in milliseconds from its `timeout` parameter:
 * omitted, null or 0 → {@link SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS}.
 * @throws InvalidParamsError above the maximum (base/base's message) or for a malformed value.
 */
export function parseSyncTimeout(value: unknown): number {
  if (value === undefined || value === null) return SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS;
  let ms: bigint;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new InvalidParamsError(`invalid argument 1: timeout must be a non-negative whole number of milliseconds, got ${value}`);
    }
    ms = BigInt(value);
  } else {
    ms = parseQuantity(value, 1);
  }
  if (ms === 0n) return SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS;
  if (ms > BigInt(SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS)) {
    throw new InvalidParamsError(`time out too long, timeout: ${ms} ms, max: ${SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS} ms`);
  }
  return Number(ms);
}

/** Where a sync send's receipt came from, or that it timed out. */
type SyncOutcome = "canonical" | "pending" | "timeout";

/** eth_sendRawTransactionSync calls that got past submission, by outcome (`canonical`, `pending`, `timeout`). */
const rpcSendRawTxSyncTotal = counter({
  name: "basalt_rpc_send_raw_tx_sync_total",
  help: "eth_sendRawTransactionSync calls after submission, by outcome",
  labelNames: ["outcome"],
});
/** Time from submission to the receipt (or the timeout), in seconds, by outcome. */
const rpcSendRawTxSyncWait = histogram({
  name: "basalt_rpc_send_raw_tx_sync_wait_seconds",
  help: "eth_sendRawTransactionSync wait from submission to receipt or timeout, in seconds",
  labelNames: ["outcome"],
  // Flashblocks arrive every ~200 ms and blocks every 2 s on Base; the wait is capped at 6 s.
  buckets: [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 3, 4, 6],
});

/** The receipt of `hash` if one is already known: canonical first, then the current pending snapshot. */
function receiptNow(b: RpcBackend, hash: string, hashBytes: Uint8Array): { receipt: unknown; outcome: SyncOutcome } | undefined {
  const canonical = canonicalReceipt(b.chain, hashBytes);
  if (canonical !== null) return { receipt: canonical, outcome: "canonical" };
  const s = pendingFor(b, "eth_sendRawTransactionSync");
  const tx = s === undefined ? undefined : findPendingTx(s, hash);
  return tx === undefined ? undefined : { receipt: new RawJson(tx.receiptJson), outcome: "pending" };
}

/**
 * Waits up to `timeoutMs` for the first receipt of `hash`: already known, in the next pending
 * snapshot that holds it, or in a new canonical head. Listeners and the timer are removed once
 * it settles.
 * @throws TransactionConfirmationTimeoutError when none appears in time.
 */
export function waitForReceipt(b: RpcBackend, hash: string, timeoutMs: number): Promise<unknown> {
  const started = performance.now();
  const hashBytes = parseHash(hash, 0);
  const record = (outcome: SyncOutcome): void => {
    rpcSendRawTxSyncTotal.inc({ outcome });
    rpcSendRawTxSyncWait.observe({ outcome }, (performance.now() - started) / 1000);
  };
  const known = receiptNow(b, hash, hashBytes);
  if (known !== undefined) {
    record(known.outcome);
    return Promise.resolve(known.receipt);
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    let offSnapshot: () => void = () => undefined;
    let offHead: () => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    const settle = (outcome: SyncOutcome, finish: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      offSnapshot();
      offHead();
      record(outcome);
      finish();
    };
    offSnapshot = b.pending.onSnapshot((s: PendingSnapshot) => {
      const tx = findPendingTx(s, hash);
      if (tx !== undefined) settle("pending", () => resolve(new RawJson(tx.receiptJson)));
    });
    offHead = b.chain.onHead(() => {
      const r = canonicalReceipt(b.chain, hashBytes);
      if (r !== null) settle("canonical", () => resolve(r));
    });
    timer = setTimeout(() => settle("timeout", () => reject(new TransactionConfirmationTimeoutError(hash, timeoutMs))), timeoutMs);
  });
}

/** Handlers of eth_sendRawTransactionSync. */
export function sendSyncMethods(b: RpcBackend): MethodTable {
  // The very eth_sendRawTransaction handler the node serves: pool validation and sequencer forwarding.
  const send = txpoolMethods(b).eth_sendRawTransaction;
  return {
    /** eth_sendRawTransactionSync(rawTx, timeoutMs?): submits, then returns the first receipt (EIP-7966). */
    eth_sendRawTransactionSync: async (params: unknown[], ctx: RpcContext) => {
      maxParams(params, 2);
      const raw = required(params, 0);
      const timeoutMs = parseSyncTimeout(params[1]);
      const hash = (await send([raw], ctx)) as string;
      return waitForReceipt(b, hash, timeoutMs);
    },
  };
}
