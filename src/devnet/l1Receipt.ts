/**
 * L1 receipts as the devnet's L1 tooling returns them: the JSON-RPC receipt
 * (`eth_getTransactionReceipt`, `eth_getBlockReceipts`) read into typed fields, its logs as
 * `Log`s with their block-level `logIndex`, so the receipts of a block go straight into
 * derivation's `l1OriginDeposits` and `configUpdatesOf` (src/derivation/attributesL1.ts).
 */
import { hexToBytes, isHexString } from "@ethereumjs/util";
import type { Log } from "../storage/types.js";
import { DevnetError, DevnetErrorCode } from "./errors.js";
import { withL1Client, type L1Target } from "./l1Client.js";

/** A log of an L1 receipt, with its index among all the logs of its block. */
export interface L1ReceiptLog extends Log {
  logIndex: number;
}

/** An L1 transaction receipt (the fields the devnet tooling and its callers use). */
export interface L1TxReceipt {
  /** 0x hex. */
  transactionHash: string;
  /** 0x hex. */
  blockHash: string;
  blockNumber: bigint;
  transactionIndex: number;
  /** 1 success, 0 reverted. */
  status: 0 | 1;
  gasUsed: bigint;
  /** The created contract (0x hex, lowercase) of a creation, else undefined. */
  contractAddress?: string;
  /** The logs, in order, with block-level log indexes. */
  logs: L1ReceiptLog[];
}

function bad(method: string, what: string, value: unknown): never {
  const text = JSON.stringify(value) ?? String(value);
  throw new DevnetError({ code: DevnetErrorCode.BAD_RPC_ANSWER, method, value: text.slice(0, 200) }, `${method}: ${what} expected, got ${text.slice(0, 200)}`);
}

function field(o: Record<string, unknown>, key: string, method: string): `0x${string}` {
  const v = o[key];
  if (typeof v !== "string" || !isHexString(v)) bad(method, `receipt field ${key} as 0x hex`, v);
  return v;
}

function logOf(raw: unknown, method: string): L1ReceiptLog {
  if (typeof raw !== "object" || raw === null) bad(method, "a log object", raw);
  const o = raw as Record<string, unknown>;
  const topics = o.topics;
  if (!Array.isArray(topics) || !topics.every((t) => typeof t === "string" && isHexString(t))) bad(method, "log topics as 0x hex strings", topics);
  return {
    address: hexToBytes(field(o, "address", method)),
    topics: (topics as `0x${string}`[]).map((t) => hexToBytes(t)),
    data: hexToBytes(field(o, "data", method)),
    logIndex: Number(BigInt(field(o, "logIndex", method))),
  };
}

/**
 * Reads a JSON-RPC receipt object into an {@link L1TxReceipt}.
 * @param method the RPC method that answered it (for error messages).
 * @throws DevnetError `DEVNET_L1_BAD_RPC_ANSWER` when a field is missing or not hex.
 */
export function parseL1Receipt(raw: unknown, method = "eth_getTransactionReceipt"): L1TxReceipt {
  if (typeof raw !== "object" || raw === null) bad(method, "a receipt object", raw);
  const o = raw as Record<string, unknown>;
  const status = BigInt(field(o, "status", method));
  if (status !== 0n && status !== 1n) bad(method, "receipt status 0x0 or 0x1", o.status);
  if (!Array.isArray(o.logs)) bad(method, "receipt logs as an array", o.logs);
  const contract = o.contractAddress;
  return {
    transactionHash: field(o, "transactionHash", method),
    blockHash: field(o, "blockHash", method),
    blockNumber: BigInt(field(o, "blockNumber", method)),
    transactionIndex: Number(BigInt(field(o, "transactionIndex", method))),
    status: status === 1n ? 1 : 0,
    gasUsed: BigInt(field(o, "gasUsed", method)),
    ...(typeof contract === "string" && isHexString(contract) ? { contractAddress: contract.toLowerCase() } : {}),
    logs: o.logs.map((l) => logOf(l, method)),
  };
}

/**
 * The receipts of L1 block `blockHash` in transaction order (`eth_getBlockReceipts`).
 * @throws DevnetError `DEVNET_L1_BAD_RPC_ANSWER` when the L1 has no such block or answers malformed receipts.
 */
export async function l1BlockReceipts(l1: L1Target, blockHash: string): Promise<L1TxReceipt[]> {
  const raw = await withL1Client(l1, (rpc) => rpc.call<unknown>("eth_getBlockReceipts", [blockHash]));
  if (!Array.isArray(raw)) bad("eth_getBlockReceipts", `the receipts of block ${blockHash}`, raw);
  return raw.map((r) => parseL1Receipt(r, "eth_getBlockReceipts"));
}
