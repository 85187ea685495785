/**
 * The scenario's request corpora: the same JSON-RPC request texts for basalt and anvil, each with
 * a validator of the answer (so a fast wrong answer counts as a failure, not as throughput).
 */
import { to0x } from "../../src/util/bytes.js";
import type { Corpus } from "../load/types.js";
import { balanceOfCalldata, transferCalldata } from "../workload/contracts.js";
import { ERC20_TRANSFER_GAS, TRANSFER_GAS, type Workload } from "../workload/workload.js";
import { txHash } from "./chain.js";

/** Names of the scenario's endpoints (the two nodes and the bare server's two paths). */
export const ENDPOINT = { basalt: "basalt", anvil: "anvil", bare: "bare", bareReceipts: "bare-receipts" } as const;

/** Names of the scenario's corpora (the targets refer to them). */
export const CORPUS = {
  blockFull: "eth_getBlockByNumber(latest,true)",
  blockHashes: "eth_getBlockByNumber(latest,false)",
  receipts: "eth_getBlockReceipts(latest)",
  balance: "eth_getBalance(sender)",
  txReceipt: "eth_getTransactionReceipt",
  callBalanceOf: "eth_call(balanceOf)",
  callTransfer: "eth_call(transfer)",
  estimateGas: "eth_estimateGas(transfer)",
} as const;

/** JSON-RPC id of every request: the bare server answers basalt's captured bytes, which carry the id of the capture request. */
const REQUEST_ID = 1;

/** The request text of `method(params)` with id {@link REQUEST_ID}. */
export function requestBody(method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: "2.0", id: REQUEST_ID, method, params });
}

/** `eth_getBlockByNumber("latest", true)`: the request whose answer basalt's bare counterpart serves on `/`. */
export const BLOCK_FULL_BODY = requestBody("eth_getBlockByNumber", ["latest", true]);
/** `eth_getBlockReceipts("latest")`: the request whose answer the bare server serves on `/receipts`. */
export const RECEIPTS_BODY = requestBody("eth_getBlockReceipts", ["latest"]);
/** Amount of the probe transfers (token units): tiny against the probe holder's balance. */
const PROBE_AMOUNT = 1n;
/** Most recipients the transfer corpora rotate over (distinct call bodies, so no answer cache short-cuts them). */
const MAX_PROBE_RECIPIENTS = 16;

const hex = to0x;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const WORD = /^0x[0-9a-f]{64}$/;

/** Where the bare server answers, when it runs. */
export interface CorporaEndpoints {
  /** endpoint names of the nodes (every corpus runs on them) */
  nodes: string[];
  /** endpoint name serving the block bytes (adds it to the full-block corpus) */
  bare?: string;
  /** endpoint name serving the receipts bytes (adds it to the receipts corpus) */
  bareReceipts?: string;
}

/**
 * The corpora on the chain built from `w` (its last block is the head):
 * - `eth_getBlockByNumber(latest, true|false)` and `eth_getBlockReceipts(latest)` (the full-block
 *   and receipts corpora also run on the bare server's endpoints);
 * - `eth_getBalance` of every sender, `eth_getTransactionReceipt` of every transaction of the
 *   head block;
 * - `eth_call` of `balanceOf(sender)` on every token, and of `transfer(recipient, 1)` from the
 *   probe holder, and `eth_estimateGas` of the same transfers.
 */
export function scenarioCorpora(w: Workload, ep: CorporaEndpoints): Corpus[] {
  const head = w.blocks[w.blocks.length - 1] ?? [];
  const minTxs = head.length;
  const headHashes = head.map(txHash);
  const recipients = w.senders.filter((s) => hex(s) !== hex(w.probe.from)).slice(0, MAX_PROBE_RECIPIENTS);
  const transferCalls = recipients.map((to) => ({ from: hex(w.probe.from), to: hex(w.probe.token), data: hex(transferCalldata(to, PROBE_AMOUNT)) }));
  const withBare = (extra: string | undefined): string[] => (extra === undefined ? ep.nodes : [...ep.nodes, extra]);
  return [
    {
      name: CORPUS.blockFull,
      bodies: [BLOCK_FULL_BODY],
      endpoints: withBare(ep.bare),
      validate: (r) => {
        if (!isObject(r) || !Array.isArray(r.transactions)) return "block object with transactions expected";
        if (r.transactions.length < minTxs) return `${r.transactions.length} transactions, at least ${minTxs} expected`;
        return r.transactions.every(isObject) ? undefined : "full transaction objects expected";
      },
    },
    {
      name: CORPUS.blockHashes,
      bodies: [requestBody("eth_getBlockByNumber", ["latest", false])],
      endpoints: ep.nodes,
      validate: (r) => {
        if (!isObject(r) || !Array.isArray(r.transactions)) return "block object with transactions expected";
        if (r.transactions.length < minTxs) return `${r.transactions.length} transactions, at least ${minTxs} expected`;
        return r.transactions.every((t) => typeof t === "string") ? undefined : "transaction hashes expected";
      },
    },
    {
      name: CORPUS.receipts,
      bodies: [RECEIPTS_BODY],
      endpoints: withBare(ep.bareReceipts),
      validate: (r) => {
        if (!Array.isArray(r)) return "array of receipts expected";
        if (r.length < minTxs) return `${r.length} receipts, at least ${minTxs} expected`;
        return r.every((x) => isObject(x) && x.status === "0x1") ? undefined : "every receipt with status 0x1 expected";
      },
    },
    {
      name: CORPUS.balance,
      bodies: w.senders.map((s) => requestBody("eth_getBalance", [hex(s), "latest"])),
      endpoints: ep.nodes,
      validate: (r) => (typeof r === "string" && QUANTITY.test(r) && r !== "0x0" ? undefined : "positive quantity expected"),
    },
    {
      name: CORPUS.txReceipt,
      bodies: headHashes.map((h) => requestBody("eth_getTransactionReceipt", [h])),
      endpoints: ep.nodes,
      validate: (r, i) => {
        if (!isObject(r)) return "receipt object expected";
        if (r.transactionHash !== headHashes[i ?? 0]) return `receipt of ${String(r.transactionHash)}, ${headHashes[i ?? 0]} expected`;
        return r.status === "0x1" ? undefined : `status ${String(r.status)}, 0x1 expected`;
      },
    },
    {
      name: CORPUS.callBalanceOf,
      bodies: w.tokens.flatMap((t) => w.senders.map((s) => requestBody("eth_call", [{ to: hex(t), data: hex(balanceOfCalldata(s)) }, "latest"]))),
      endpoints: ep.nodes,
      validate: (r) => (typeof r === "string" && WORD.test(r) && BigInt(r) > 0n ? undefined : "nonzero 32-byte balance expected"),
    },
    {
      name: CORPUS.callTransfer,
      bodies: transferCalls.map((c) => requestBody("eth_call", [c, "latest"])),
      endpoints: ep.nodes,
      validate: (r) => (typeof r === "string" && WORD.test(r) && BigInt(r) === 1n ? undefined : "true (word 1) expected"),
    },
    {
      name: CORPUS.estimateGas,
      bodies: transferCalls.map((c) => requestBody("eth_estimateGas", [c, "latest"])),
      endpoints: ep.nodes,
      validate: (r) => {
        if (typeof r !== "string" || !QUANTITY.test(r)) return "quantity expected";
        const g = BigInt(r);
        return g > TRANSFER_GAS && g <= ERC20_TRANSFER_GAS ? undefined : `${g} gas, between ${TRANSFER_GAS} and ${ERC20_TRANSFER_GAS} expected`;
      },
    },
  ];
}
