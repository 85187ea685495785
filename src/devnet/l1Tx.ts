/**
 * Sending the devnet's L1 transactions (contract deployments, deposits, SystemConfig changes) to
 * any L1 JSON-RPC — anvil or basalt's own L1 — and waiting for their receipts: EIP-1559
 * transactions signed locally (`@ethereumjs/tx`), chain id from `eth_chainId`, nonce from
 * `eth_getTransactionCount(…, "pending")`, fees from the latest block's base fee, gas from
 * `eth_estimateGas` (whose revert is the L1's refusal, reported as a typed error with the
 * contract's error decoded), `eth_sendRawTransaction`, then `eth_getTransactionReceipt` polled at
 * a bounded interval until a timeout.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, createAddressFromPrivateKey, hexToBytes, isHexString } from "@ethereumjs/util";
import { decodeError } from "micro-eth-signer/abi.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { DEVNET_L1_GAS_MARGIN_PERCENT, DEVNET_L1_PRIORITY_FEE_WEI, DEVNET_L1_RECEIPT_POLL_MS, DEVNET_L1_RECEIPT_TIMEOUT_MS } from "./constants.js";
import { UpstreamRpcError, type JsonRpcClient } from "../util/rpcClient.js";
import { isRevertText } from "../util/foreignErrorText.js";
import { DevnetError, DevnetErrorCode } from "./errors.js";
import { parseL1Receipt, type L1TxReceipt } from "./l1Receipt.js";

/** A private key: 32 bytes, or 0x hex (as `devAccounts()` gives it). */
export type L1Key = Uint8Array | string;

/** Options of every L1 call that waits for a receipt. */
export interface L1WaitOptions {
  /** Most milliseconds to wait for the receipt; default `DEVNET_L1_RECEIPT_TIMEOUT_MS`. */
  receiptTimeoutMs?: number;
  /** Milliseconds between receipt polls; default `DEVNET_L1_RECEIPT_POLL_MS`. */
  pollIntervalMs?: number;
  /** Logger (one debug line per transaction); none by default. */
  logger?: Logger;
}

/** Options of the contract calls (deposits, SystemConfig setters): waiting, and the L1 gas limit. */
export interface L1SendOptions extends L1WaitOptions {
  /**
   * L1 gas limit of the transaction. Unset: estimated, and a call the contract refuses fails before
   * it is sent (`DEVNET_L1_CALL_REVERTED`, the contract's error named). Set: sent as is, and a
   * refusal is a reverted receipt (`DEVNET_L1_TX_REVERTED`).
   */
  l1GasLimit?: bigint;
}

/** One L1 transaction to send. */
interface L1TxRequest {
  /** Recipient (0x hex); undefined for a contract creation. */
  to?: string;
  /** Calldata (or init code for a creation). */
  data: Uint8Array;
  /** Wei sent with it; default 0. */
  value?: bigint;
  /** Gas limit; default the L1's estimate plus `DEVNET_L1_GAS_MARGIN_PERCENT` (and a refusal surfaces as `DEVNET_L1_CALL_REVERTED`). */
  gasLimit?: bigint;
  /** Nonce; default the sender's pending transaction count. */
  nonce?: bigint;
  /** ABI whose custom errors name a refusal in messages (the contract called). */
  errorAbi?: readonly unknown[];
}

/** A transaction accepted by the L1's pool, not yet included. */
interface SubmittedL1Tx {
  /** 0x hex. */
  hash: string;
  nonce: bigint;
  /** The sender (0x hex, lowercase). */
  from: string;
}

/** The 32-byte key of `key`. @throws DevnetError `DEVNET_INVALID_ARGUMENT` when it is not 32 bytes. */
function l1KeyBytes(key: L1Key): Uint8Array {
  const bytes = typeof key === "string" && isHexString(key) ? hexToBytes(key) : key;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) {
    throw new DevnetError({ code: DevnetErrorCode.INVALID_ARGUMENT, field: "key", value: "(redacted)" }, "an L1 private key must be 32 bytes (0x hex or bytes)");
  }
  return bytes;
}

/** The address (0x hex, lowercase) of `key`. */
export function l1AddressOf(key: L1Key): string {
  return createAddressFromPrivateKey(l1KeyBytes(key)).toString();
}

async function quantity(rpc: JsonRpcClient, method: string, params: unknown[]): Promise<bigint> {
  const v = await rpc.call<unknown>(method, params);
  if (typeof v !== "string" || !isHexString(v) || v.length < 3) {
    throw new DevnetError({ code: DevnetErrorCode.BAD_RPC_ANSWER, method, value: String(v) }, `${method}: a hex quantity expected, got ${JSON.stringify(v)}`);
  }
  return BigInt(v);
}

/** Why a call reverted, from the revert data: the custom error or revert string `abi` names, else the data itself. */
function revertReason(data: string, abi: readonly unknown[] | undefined): string {
  if (data === "0x") return "reverted without data";
  try {
    const decoded = decodeError(data, abi as Parameters<typeof decodeError>[1]);
    if (decoded !== undefined) return decoded.message;
  } catch {
    // not decodable: the raw data below
  }
  return `revert data ${data}`;
}

/** The revert data of an upstream error: `data` itself (geth, basalt) or `data.data` (some nodes), when it is 0x hex. */
function revertDataOf(e: UpstreamRpcError): string | undefined {
  const raw = e.data;
  const candidate = typeof raw === "object" && raw !== null ? (raw as { data?: unknown }).data : raw;
  return typeof candidate === "string" && isHexString(candidate) ? candidate : undefined;
}

/** The L1's refusal of an estimate as a typed error, or `e` unchanged when it is not a revert (no funds, a transport fault). */
function refusal(e: unknown, to: string, abi: readonly unknown[] | undefined): unknown {
  if (!(e instanceof UpstreamRpcError)) return e;
  const data = revertDataOf(e);
  if (e.rpcCode !== 3 && data === undefined && !isRevertText(e.message)) return e;
  const reason = data !== undefined ? revertReason(data, abi) : e.message;
  return new DevnetError({ code: DevnetErrorCode.CALL_REVERTED, to, reason, data: data ?? "0x" }, `the L1 refused the transaction to ${to}: ${reason}`, { cause: e });
}

/**
 * Signs `req` with `key` and hands it to the L1 (`eth_sendRawTransaction`) without waiting for
 * inclusion (for several transactions in one block; see {@link waitForL1Receipt}).
 * @throws DevnetError `DEVNET_L1_CALL_REVERTED` when the gas estimate reverts (the contract refused);
 *   `UpstreamRpcError` when the L1 rejects the transaction itself.
 */
export async function submitL1Transaction(rpc: JsonRpcClient, key: L1Key, req: L1TxRequest, logger?: Logger): Promise<SubmittedL1Tx> {
  const secret = l1KeyBytes(key);
  const from = l1AddressOf(secret);
  const value = req.value ?? 0n;
  const to = req.to ?? "creation";
  const [chainId, nonce, latest] = await Promise.all([
    quantity(rpc, "eth_chainId", []),
    req.nonce !== undefined ? Promise.resolve(req.nonce) : quantity(rpc, "eth_getTransactionCount", [from, "pending"]),
    rpc.call<{ baseFeePerGas?: string } | null>("eth_getBlockByNumber", ["latest", false]),
  ]);
  let gasLimit = req.gasLimit;
  if (gasLimit === undefined) {
    const call = { from, ...(req.to !== undefined ? { to: req.to } : {}), data: bytesToHex(req.data), value: `0x${value.toString(16)}` };
    let estimate: bigint;
    try {
      estimate = await quantity(rpc, "eth_estimateGas", [call]);
    } catch (e) {
      throw refusal(e, to, req.errorAbi);
    }
    gasLimit = estimate + (estimate * DEVNET_L1_GAS_MARGIN_PERCENT) / 100n;
  }
  const baseFee = latest?.baseFeePerGas !== undefined ? BigInt(latest.baseFeePerGas) : 0n;
  const common = createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Prague });
  const tx = createFeeMarket1559Tx(
    {
      chainId,
      nonce,
      maxPriorityFeePerGas: DEVNET_L1_PRIORITY_FEE_WEI,
      maxFeePerGas: 2n * baseFee + DEVNET_L1_PRIORITY_FEE_WEI,
      gasLimit,
      ...(req.to !== undefined ? { to: req.to as `0x${string}` } : {}),
      value,
      data: req.data,
    },
    { common },
  ).sign(secret);
  const hash = await rpc.call<string>("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
  logger?.debug({ hash, from, to, nonce: nonce.toString(), gasLimit: gasLimit.toString() }, "L1 transaction sent");
  return { hash, nonce, from };
}

/**
 * Polls `eth_getTransactionReceipt` for `txHash` every `pollIntervalMs` until it is there.
 * @throws DevnetError `DEVNET_L1_RECEIPT_TIMEOUT` after `receiptTimeoutMs` without a receipt.
 */
export async function waitForL1Receipt(rpc: JsonRpcClient, txHash: string, opts: L1WaitOptions = {}): Promise<L1TxReceipt> {
  const timeoutMs = opts.receiptTimeoutMs ?? DEVNET_L1_RECEIPT_TIMEOUT_MS;
  const pollMs = opts.pollIntervalMs ?? DEVNET_L1_RECEIPT_POLL_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const raw = await rpc.call<unknown>("eth_getTransactionReceipt", [txHash]);
    if (raw !== null && raw !== undefined) return parseL1Receipt(raw);
    const left = deadline - Date.now();
    if (left <= 0) {
      const message = `L1 transaction ${txHash} has no receipt after ${timeoutMs} ms: expected the L1 at ${rpc.endpoint} to include it (is it mining?)`;
      throw new DevnetError({ code: DevnetErrorCode.RECEIPT_TIMEOUT, txHash, timeoutMs }, message);
    }
    await sleep(Math.min(pollMs, left));
  }
}

/**
 * The receipt of a submitted transaction, which must have succeeded.
 * @throws DevnetError `DEVNET_L1_TX_REVERTED` for status 0, `DEVNET_L1_RECEIPT_TIMEOUT` as {@link waitForL1Receipt}.
 */
export async function successfulL1Receipt(rpc: JsonRpcClient, txHash: string, opts: L1WaitOptions = {}): Promise<L1TxReceipt> {
  const receipt = await waitForL1Receipt(rpc, txHash, opts);
  if (receipt.status !== 1) {
    const message = `L1 transaction ${txHash} reverted in block ${receipt.blockNumber} (gas used ${receipt.gasUsed}): expected it to succeed`;
    throw new DevnetError({ code: DevnetErrorCode.TX_REVERTED, txHash, blockNumber: receipt.blockNumber.toString() }, message);
  }
  return receipt;
}

/**
 * Sends `req` signed with `key` and waits for its successful receipt ({@link submitL1Transaction}
 * then {@link successfulL1Receipt}).
 */
export async function sendL1Transaction(rpc: JsonRpcClient, key: L1Key, req: L1TxRequest, opts: L1WaitOptions = {}): Promise<L1TxReceipt> {
  const { hash } = await submitL1Transaction(rpc, key, req, opts.logger);
  return successfulL1Receipt(rpc, hash, opts);
}
