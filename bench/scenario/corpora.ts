/**
 * The scenario's request corpora: the same JSON-RPC request texts for basalt and anvil, each with
 * a validator of the answer (so a fast wrong answer counts as a failure, not as throughput).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { CALL_CACHE_ENTRIES } from "../../src/rpc/constants.js";
import { to0x } from "../../src/util/bytes.js";
import type { Corpus } from "../load/types.js";
import { validatorRef } from "../load/validator.js";
import { balanceOfCalldata, transferCalldata } from "../workload/contracts.js";
import { ERC20_TRANSFER_GAS, TRANSFER_GAS, type Workload } from "../workload/workload.js";
import { labelledTxs } from "./chain.js";
import { balanceCheck, blockAtCheck, blockCheck, CHECKS_MODULE, gasCheck, nonzeroWordCheck, receiptsAtCheck, receiptsCheck, trueWordCheck, txReceiptCheck } from "./checks.js";

/** Names of the scenario's endpoints (the two nodes and the bare server's two paths). */
export const ENDPOINT = {
  basalt: "basalt",
  anvil: "anvil",
  bare: "bare",
  bareReceipts: "bare-receipts",
  /** the same basalt restarted on its datadir with `--rpc.response-cache-blocks 0` */
  basaltUncached: "basalt-uncached",
  /** the bare server answering basalt's bytes per request body (each block number's answer) */
  bareBodies: "bare-bodies",
} as const;

/** Names of the scenario's corpora (the targets refer to them). */
export const CORPUS = {
  blockFull: "eth_getBlockByNumber(latest,true)",
  blockHashes: "eth_getBlockByNumber(latest,false)",
  receipts: "eth_getBlockReceipts(latest)",
  balance: "eth_getBalance(distinct)",
  txReceipt: "eth_getTransactionReceipt(all txs)",
  blockFullUncached: "eth_getBlockByNumber(n,true) uncached",
  receiptsUncached: "eth_getBlockReceipts(n) uncached",
  callBalanceOf: "eth_call(balanceOf)",
  callTransfer: "eth_call(transfer)",
  estimateGas: "eth_estimateGas(transfer)",
  estimateEth: "eth_estimateGas(ETH transfer)",
  callRepeated: "eth_call(transfer) repetitive",
  estimateRepeated: "eth_estimateGas(transfer) repetitive",
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
/** Base amount of the probe transfers (token units / wei), plus the body's index: tiny against every sender's balance. */
const PROBE_AMOUNT = 1n;
/**
 * Distinct bodies of the eth_call / eth_estimateGas throughput corpora (distinct sender, token,
 * recipient and amount): four times basalt's call cache (CALL_CACHE_ENTRIES, oldest evicted
 * first). Sent round-robin, a body comes round again only after 4× the cache's size of other
 * bodies were answered, so the cache never holds it any more and the targets measure execution,
 * not the cache. (With exactly the cache's size, every body after the first round was a hit.)
 */
export const DISTINCT_CALL_BODIES = 4 * CALL_CACHE_ENTRIES;
/** The note of the repetitive corpora, shown next to their figures. */
export const REPETITIVE_NOTE = "repetitive: one body repeated; cacheable, never used for a target";

const hex = to0x;
/** One absent account per this many existing ones in the eth_getBalance corpus (unknown addresses are asked for too). */
const ABSENT_BALANCE_SHARE = 8;

/**
 * The request of block `n`'s full body and of its receipts: the bodies of the uncached corpora
 * (one per block, every block of the chain, round-robin), which the bare server answers per body.
 */
export function uncachedBodies(n: bigint): { block: string; receipts: string } {
  const q = `0x${n.toString(16)}`;
  return { block: requestBody("eth_getBlockByNumber", [q, true]), receipts: requestBody("eth_getBlockReceipts", [q]) };
}

/**
 * The corpora outside the response cache: `eth_getBlockByNumber(n, true)` and
 * `eth_getBlockReceipts(n)` of every block 1..`head`, on `nodes` (basalt restarted with
 * `--rpc.response-cache-blocks 0`, and anvil) and the bare server's per-body path.
 */
export function uncachedCorpora(head: bigint, nodes: string[], bareBodies: string): Corpus[] {
  const numbers = Array.from({ length: Number(head) }, (_, i) => BigInt(i + 1));
  const quantities = numbers.map((n) => `0x${n.toString(16)}`);
  const here = CHECKS_MODULE;
  return [
    { name: CORPUS.blockFullUncached, bodies: numbers.map((n) => uncachedBodies(n).block), endpoints: [...nodes, bareBodies], ...validatorRef(here, blockAtCheck, quantities) },
    { name: CORPUS.receiptsUncached, bodies: numbers.map((n) => uncachedBodies(n).receipts), endpoints: [...nodes, bareBodies], ...validatorRef(here, receiptsAtCheck, quantities) },
  ];
}

/** The `i`-th recipient of the distinct corpora: an address nobody holds (no code, no balance). */
export function freshRecipient(i: number): Uint8Array {
  return keccak_256(new TextEncoder().encode(`basalt-bench-recipient-${i}`)).subarray(12);
}

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
 * - `eth_getBalance` of every funded holder and sender (a positive balance expected), token and
 *   pool (no ether: 0x0), plus one absent address per eight (0x0); `eth_getTransactionReceipt` of every transaction of the chain (setup and blocks);
 *   `eth_call` of `balanceOf(sender)` on every token;
 * - {@link DISTINCT_CALL_BODIES} distinct ERC-20 `transfer(freshRecipient(i), 1 + i)` calls (sender
 *   and token rotating) as `eth_call` and `eth_estimateGas`, and as many distinct plain ETH
 *   transfers (sender rotating, fresh recipient, 1 + i wei) as `eth_estimateGas`;
 * - the repetitive corpora: the first ERC-20 transfer alone, as `eth_call` and `eth_estimateGas`
 *   (labelled with {@link REPETITIVE_NOTE}; their figures are never used for a target).
 */
export function scenarioCorpora(w: Workload, ep: CorporaEndpoints): Corpus[] {
  const head = w.blocks[w.blocks.length - 1] ?? [];
  const minTxs = head.length;
  // Every transaction of the chain (setup and blocks), round-robin: no answer cache holds receipts.
  const allHashes = labelledTxs(w).map((t) => t.hash);
  const senders = w.senders;
  // Funded accounts (holders, senders: a positive balance), then accounts whose balance is 0 —
  // the token and pool contracts (they hold no ether) and absent ones.
  const present = [...w.holders, ...senders];
  const contracts = [...w.tokens, ...w.pools];
  const absent = Array.from({ length: Math.ceil((present.length + contracts.length) / ABSENT_BALANCE_SHARE) }, (_, i) => freshRecipient(i));
  const transferCalls = Array.from({ length: DISTINCT_CALL_BODIES }, (_, i) => ({
    from: hex(senders[i % senders.length]!),
    to: hex(w.tokens[Math.floor(i / senders.length) % w.tokens.length]!),
    data: hex(transferCalldata(freshRecipient(i), PROBE_AMOUNT + BigInt(i))),
  }));
  const ethTransfers = Array.from({ length: DISTINCT_CALL_BODIES }, (_, i) => ({
    from: hex(senders[i % senders.length]!),
    to: hex(freshRecipient(i)),
    value: `0x${(PROBE_AMOUNT + BigInt(i)).toString(16)}`,
  }));
  const withBare = (extra: string | undefined): string[] => (extra === undefined ? ep.nodes : [...ep.nodes, extra]);
  const here = CHECKS_MODULE;
  const erc20Gas = validatorRef(here, gasCheck, TRANSFER_GAS, ERC20_TRANSFER_GAS);
  const callBody = (c: object): string => requestBody("eth_call", [c, "latest"]);
  const estimateBody = (c: object): string => requestBody("eth_estimateGas", [c, "latest"]);
  return [
    { name: CORPUS.blockFull, bodies: [BLOCK_FULL_BODY], endpoints: withBare(ep.bare), ...validatorRef(here, blockCheck, minTxs, true) },
    {
      name: CORPUS.blockHashes,
      bodies: [requestBody("eth_getBlockByNumber", ["latest", false])],
      endpoints: ep.nodes,
      ...validatorRef(here, blockCheck, minTxs, false),
    },
    { name: CORPUS.receipts, bodies: [RECEIPTS_BODY], endpoints: withBare(ep.bareReceipts), ...validatorRef(here, receiptsCheck, minTxs) },
    {
      name: CORPUS.balance,
      bodies: [...present, ...contracts, ...absent].map((a) => requestBody("eth_getBalance", [hex(a), "latest"])),
      endpoints: ep.nodes,
      ...validatorRef(here, balanceCheck, present.length),
    },
    {
      name: CORPUS.txReceipt,
      bodies: allHashes.map((h) => requestBody("eth_getTransactionReceipt", [h])),
      endpoints: ep.nodes,
      ...validatorRef(here, txReceiptCheck, allHashes),
    },
    {
      name: CORPUS.callBalanceOf,
      bodies: w.tokens.flatMap((t) => senders.map((s) => callBody({ to: hex(t), data: hex(balanceOfCalldata(s)) }))),
      endpoints: ep.nodes,
      ...validatorRef(here, nonzeroWordCheck),
    },
    { name: CORPUS.callTransfer, bodies: transferCalls.map(callBody), endpoints: ep.nodes, ...validatorRef(here, trueWordCheck) },
    { name: CORPUS.estimateGas, bodies: transferCalls.map(estimateBody), endpoints: ep.nodes, ...erc20Gas },
    {
      name: CORPUS.estimateEth,
      bodies: ethTransfers.map(estimateBody),
      endpoints: ep.nodes,
      ...validatorRef(here, gasCheck, TRANSFER_GAS - 1n, TRANSFER_GAS),
    },
    { name: CORPUS.callRepeated, bodies: [callBody(transferCalls[0]!)], endpoints: ep.nodes, note: REPETITIVE_NOTE, ...validatorRef(here, trueWordCheck) },
    { name: CORPUS.estimateRepeated, bodies: [estimateBody(transferCalls[0]!)], endpoints: ep.nodes, note: REPETITIVE_NOTE, ...erc20Gas },
  ];
}
