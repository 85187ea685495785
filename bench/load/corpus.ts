/**
 * Corpus discovery for an arbitrary JSON-RPC node: samples recent blocks of the chain it serves
 * and builds realistic request corpora from them (the blocks themselves, their receipts, the
 * balances of the accounts and the receipts of the transactions found, and replays of the
 * calls and transfers as eth_call / eth_estimateGas at `latest`), each with a validator of the
 * answers. Calls and estimates are probed once and kept only if they succeed, so a failure under
 * load is the node's, not the corpus's.
 */
import { LoadError } from "./errors.js";
import type { Corpus } from "./types.js";
import { validatorRef, type Validate } from "./validator.js";

/** Recent blocks sampled by default: enough distinct bodies to defeat trivial caching, few enough to fetch in seconds. */
export const DEFAULT_SAMPLE_BLOCKS = 64;
/** How far back (× the sample size) discovery looks for non-empty blocks before settling for empty ones. */
const SCAN_FACTOR = 4;
/** Discovery requests in flight at once: quick without loading the node. */
const DISCOVERY_CONCURRENCY = 8;
/** Per-request timeout of discovery: full blocks of a busy chain can take seconds. */
const DISCOVERY_TIMEOUT_MS = 30_000;
/** Most accounts in the eth_getBalance corpus. */
const MAX_ADDRESSES = 256;
/** Most transactions in the eth_getTransactionReceipt corpus. */
const MAX_TX_HASHES = 256;
/** Most distinct recipients whose code is fetched to find contracts. */
const MAX_CODE_PROBES = 64;
/** Most calls (and transfers) probed for the eth_call / eth_estimateGas corpora. */
const MAX_PROBES = 64;
/** Most bodies kept in the eth_call and eth_estimateGas corpora. */
const MAX_CALL_BODIES = 32;
/** The OP Stack deposit transaction type: sent by the protocol, not by users, so not "activity". */
const DEPOSIT_TX_TYPE = "0x7e";

/** A JSON-RPC quantity: 0x-prefixed hex without leading zeros. */
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
/** A 32-byte hash. */
const HASH = /^0x[0-9a-fA-F]{64}$/;
/** Hex data of whole bytes. */
const DATA = /^0x([0-9a-fA-F]{2})*$/;

/** The corpora discovery can build, by name (the name before "(" is the method). */
export const DISCOVERABLE_CORPORA = [
  "eth_getBlockByNumber",
  "eth_getBlockByNumber(full)",
  "eth_getBlockReceipts",
  "eth_getBalance",
  "eth_getTransactionReceipt",
  "eth_call",
  "eth_estimateGas",
  "eth_blockNumber",
  "eth_chainId",
] as const;

/** A transaction as found in a full block. */
interface RpcTx {
  hash: string;
  from: string;
  to?: string | null;
  input?: string;
  data?: string;
  value?: string;
  type?: string;
}

/** A block with full transactions. */
interface RpcBlock {
  number: string;
  miner?: string;
  transactions: RpcTx[];
}

/** A call object of eth_call / eth_estimateGas. */
interface CallObject {
  from: string;
  to: string;
  data?: string;
  value?: string;
}

type RpcAnswer = { result: unknown; error?: undefined } | { error: string; result?: undefined };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Discovery's own JSON-RPC call (sequential, unmeasured). Transport failures and JSON-RPC errors come back as `{ error }`. */
async function rpc(url: string, method: string, params: unknown[]): Promise<RpcAnswer> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
    const text = await res.text();
    if (res.status !== 200) return { error: `HTTP ${res.status}: ${text.slice(0, 200)}` };
    const body: unknown = JSON.parse(text);
    if (!isObject(body)) return { error: `not a JSON-RPC response: ${text.slice(0, 200)}` };
    if (body.error !== undefined && body.error !== null) return { error: JSON.stringify(body.error).slice(0, 300) };
    if (!("result" in body)) return { error: "response without result" };
    return { result: body.result };
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
    return { error: `${e instanceof Error ? e.message : String(e)}${cause}` };
  }
}

/** Like {@link rpc} for a call discovery cannot do without: throws `BENCH_LOAD_DISCOVERY` on any failure. */
async function rpcOrThrow(url: string, method: string, params: unknown[]): Promise<unknown> {
  const a = await rpc(url, method, params);
  if (a.error !== undefined) {
    throw new LoadError("BENCH_LOAD_DISCOVERY", `${method} on ${url} failed (${a.error}): expected a JSON-RPC node serving the eth namespace`, {
      method,
      url,
    });
  }
  return a.result;
}

/** Runs `fn` over `items` with at most `limit` at once; results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

function quantity(v: unknown, what: string): bigint {
  if (typeof v !== "string" || !QUANTITY.test(v)) {
    throw new LoadError("BENCH_LOAD_DISCOVERY", `${what} is ${JSON.stringify(v)}: expected a hex quantity`);
  }
  return BigInt(v);
}

function requestBody(id: number, method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

function isUserTx(tx: RpcTx): boolean {
  return tx.type !== DEPOSIT_TX_TYPE;
}

function inputOf(tx: RpcTx): string {
  return tx.input ?? tx.data ?? "0x";
}

/** Items of `lists` taken one from each list in turn (spreads a sample over all blocks). */
function roundRobin<T>(lists: T[][], max: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < max; i++) {
    let any = false;
    for (const l of lists) {
      if (i < l.length) {
        any = true;
        out.push(l[i] as T);
        if (out.length >= max) break;
      }
    }
    if (!any) break;
  }
  return out;
}

/** Recent blocks with full transactions: up to `want`, non-empty ones first (looking back `want × SCAN_FACTOR`), ascending. */
async function sampleBlocks(url: string, head: bigint, want: number): Promise<RpcBlock[]> {
  const lowest = head - BigInt(want * SCAN_FACTOR) + 1n > 0n ? head - BigInt(want * SCAN_FACTOR) + 1n : 0n;
  const busy: RpcBlock[] = [];
  const idle: RpcBlock[] = [];
  for (let top = head; top >= lowest && busy.length < want; top -= BigInt(DISCOVERY_CONCURRENCY)) {
    const numbers: bigint[] = [];
    for (let n = top; n >= lowest && n > top - BigInt(DISCOVERY_CONCURRENCY); n--) numbers.push(n);
    const blocks = await mapLimit(numbers, DISCOVERY_CONCURRENCY, (n) => rpcOrThrow(url, "eth_getBlockByNumber", [hex(n), true]));
    for (const b of blocks) {
      if (!isObject(b) || !Array.isArray(b.transactions) || typeof b.number !== "string") continue;
      const block = b as unknown as RpcBlock;
      (block.transactions.some(isUserTx) ? busy : idle).push(block);
    }
  }
  const chosen = [...busy.slice(0, want), ...idle.slice(0, Math.max(0, want - busy.length))];
  return chosen.sort((a, b) => (BigInt(a.number) < BigInt(b.number) ? -1 : 1));
}

/** Which corpora `methods` selects (by full name or by method); throws `BENCH_LOAD_ARG` for a name discovery does not know. */
function selectCorpora(methods: string[] | undefined): Set<string> {
  if (methods === undefined || methods.length === 0) return new Set(DISCOVERABLE_CORPORA);
  const out = new Set<string>();
  for (const m of methods) {
    const hits = DISCOVERABLE_CORPORA.filter((c) => c === m || c.split("(")[0] === m);
    if (hits.length === 0) {
      throw new LoadError("BENCH_LOAD_ARG", `--methods: unknown method ${JSON.stringify(m)}: expected some of ${DISCOVERABLE_CORPORA.join(", ")}`, {
        option: "--methods",
        value: m,
      });
    }
    for (const h of hits) out.add(h);
  }
  return out;
}

/** Validator factory: a block of one of `numbers` (the body's own when known), with transaction hashes or, if `full`, objects. */
export function blockValidator(numbers: bigint[], full: boolean): Validate {
  const known = new Set(numbers);
  return (result, bodyIndex) => {
    if (!isObject(result)) return "block is null";
    if (typeof result.number !== "string" || !QUANTITY.test(result.number)) return "block without a number";
    const n = BigInt(result.number);
    const expected = bodyIndex === undefined ? undefined : numbers[bodyIndex];
    if (expected !== undefined ? n !== expected : !known.has(n)) return "wrong block number";
    if (!Array.isArray(result.transactions)) return "block without transactions";
    for (const tx of result.transactions) {
      if (full ? !isObject(tx) || typeof tx.hash !== "string" : typeof tx !== "string" || !HASH.test(tx)) {
        return full ? "transaction not an object" : "transaction not a hash";
      }
    }
    return undefined;
  };
}

/** Validator factory: an array of receipts, not empty for a block of `txCounts[bodyIndex]` > 0 transactions. */
export function receiptsValidator(txCounts: number[]): Validate {
  return (result, bodyIndex) => {
    if (!Array.isArray(result)) return "receipts not an array";
    const expected = bodyIndex === undefined ? undefined : txCounts[bodyIndex];
    if (expected !== undefined && expected > 0 && result.length === 0) return "no receipts for a block with transactions";
    if (!result.every((r) => isObject(r) && typeof r.transactionHash === "string")) return "receipt not an object";
    return undefined;
  };
}

/** Validator factory: the receipt of transaction `hashes[bodyIndex]`. */
export function receiptValidator(hashes: string[]): Validate {
  return (result, bodyIndex) => {
    if (!isObject(result)) return "receipt is null";
    if (typeof result.transactionHash !== "string") return "receipt without transactionHash";
    const expected = bodyIndex === undefined ? undefined : hashes[bodyIndex];
    if (expected !== undefined && result.transactionHash.toLowerCase() !== expected.toLowerCase()) return "receipt of another transaction";
    return undefined;
  };
}

function quantityValidator(result: unknown): string | undefined {
  return typeof result === "string" && QUANTITY.test(result) ? undefined : "not a quantity";
}

/** Validator factory: a hex quantity. */
export function quantityCheck(): Validate {
  return quantityValidator;
}

/** Validator factory: hex data of whole bytes. */
export function dataCheck(): Validate {
  return (result) => (typeof result === "string" && DATA.test(result) ? undefined : "not hex data");
}

/** Validator factory: the quantity `chainId`. */
export function chainIdCheck(chainId: bigint): Validate {
  return (r) => quantityValidator(r) ?? (BigInt(r as string) === chainId ? undefined : "wrong chain id");
}

/** Probes `calls` with `method` at `latest`; returns those answered without error, at most `max`. */
async function probeCalls(url: string, method: "eth_call" | "eth_estimateGas", calls: CallObject[], max: number): Promise<CallObject[]> {
  const answers = await mapLimit(calls, DISCOVERY_CONCURRENCY, (c) => rpc(url, method, [c, "latest"]));
  return calls.filter((_, i) => answers[i]?.error === undefined).slice(0, max);
}

/** Unique by `key`, first occurrence kept. */
function uniqueBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * Builds request corpora for the node at `url` from the chain it serves: asks for the head,
 * samples `blocks` recent blocks (default {@link DEFAULT_SAMPLE_BLOCKS}; non-empty ones
 * preferred), and returns the corpora of {@link DISCOVERABLE_CORPORA} (or those `methods` names,
 * by corpus name or method) that could be filled: blocks by number with hashes and full
 * transactions, block receipts, balances at `latest` of the senders, recipients and fee
 * recipients found, transaction receipts, the contract calls found replayed as eth_call at
 * `latest` from their sender, those calls and the plain transfers as eth_estimateGas (both
 * probed: only successes are kept), eth_blockNumber and eth_chainId. Each corpus validates its
 * answers (blocks non-null with the requested number and hashes or objects, receipts present,
 * quantities well-formed).
 * Throws `BENCH_LOAD_DISCOVERY` when the node does not answer the basic calls.
 */
export async function discoverCorpora(url: string, opts: { blocks?: number; methods?: string[] } = {}): Promise<Corpus[]> {
  const want = opts.blocks ?? DEFAULT_SAMPLE_BLOCKS;
  if (!Number.isInteger(want) || want < 1) {
    throw new LoadError("BENCH_LOAD_ARG", `blocks ${want} is invalid: expected an integer >= 1`, { option: "--blocks" });
  }
  const selected = selectCorpora(opts.methods);
  const chainId = quantity(await rpcOrThrow(url, "eth_chainId", []), "eth_chainId");
  const head = quantity(await rpcOrThrow(url, "eth_blockNumber", []), "eth_blockNumber");
  const blocks = await sampleBlocks(url, head, want);
  const numbers = blocks.map((b) => BigInt(b.number));
  const corpora: Corpus[] = [];
  const add = (name: string, bodies: string[], check: Pick<Corpus, "validate" | "validator">): void => {
    if (selected.has(name) && bodies.length > 0) corpora.push({ name, bodies, ...check });
  };
  const here = import.meta.url;

  add("eth_getBlockByNumber", numbers.map((n, i) => requestBody(i + 1, "eth_getBlockByNumber", [hex(n), false])), validatorRef(here, blockValidator, numbers, false));
  add("eth_getBlockByNumber(full)", numbers.map((n, i) => requestBody(i + 1, "eth_getBlockByNumber", [hex(n), true])), validatorRef(here, blockValidator, numbers, true));
  add(
    "eth_getBlockReceipts",
    numbers.map((n, i) => requestBody(i + 1, "eth_getBlockReceipts", [hex(n)])),
    validatorRef(here, receiptsValidator, blocks.map((b) => b.transactions.length)),
  );

  const userTxs = blocks.map((b) => b.transactions.filter(isUserTx));
  const depositTxs = blocks.map((b) => b.transactions.filter((t) => !isUserTx(t)));

  const addresses = uniqueBy(
    [
      ...roundRobin(userTxs, MAX_ADDRESSES * 2).flatMap((t) => [t.from, t.to]),
      ...blocks.map((b) => b.miner),
      ...roundRobin(depositTxs, MAX_ADDRESSES).flatMap((t) => [t.from, t.to]),
    ].filter((a): a is string => typeof a === "string"),
    (a) => a.toLowerCase(),
  ).slice(0, MAX_ADDRESSES);
  add("eth_getBalance", addresses.map((a, i) => requestBody(i + 1, "eth_getBalance", [a, "latest"])), validatorRef(here, quantityCheck));

  const txHashes = [...roundRobin(userTxs, MAX_TX_HASHES), ...roundRobin(depositTxs, MAX_TX_HASHES)].slice(0, MAX_TX_HASHES).map((t) => t.hash);
  add("eth_getTransactionReceipt", txHashes.map((h, i) => requestBody(i + 1, "eth_getTransactionReceipt", [h])), validatorRef(here, receiptValidator, txHashes));

  if (selected.has("eth_call") || selected.has("eth_estimateGas")) {
    const sent = roundRobin(userTxs, Number.MAX_SAFE_INTEGER).filter((t) => typeof t.to === "string");
    const callObject = (t: RpcTx): CallObject => {
      const c: CallObject = { from: t.from, to: t.to as string };
      if (inputOf(t) !== "0x") c.data = inputOf(t);
      if (t.value !== undefined && t.value !== "0x0") c.value = t.value;
      return c;
    };
    const withInput = uniqueBy(
      sent.filter((t) => inputOf(t) !== "0x"),
      (t) => `${(t.to as string).toLowerCase()}:${inputOf(t)}`,
    );
    const recipients = uniqueBy(withInput.map((t) => t.to as string), (a) => a.toLowerCase()).slice(0, MAX_CODE_PROBES);
    const codes = await mapLimit(recipients, DISCOVERY_CONCURRENCY, (a) => rpc(url, "eth_getCode", [a, "latest"]));
    const hasCode = (i: number): boolean => typeof codes[i]?.result === "string" && codes[i]?.result !== "0x";
    const contracts = new Set(recipients.filter((_, i) => hasCode(i)).map((a) => a.toLowerCase()));
    const candidates = withInput.filter((t) => contracts.has((t.to as string).toLowerCase())).slice(0, MAX_PROBES).map(callObject);
    const calls = await probeCalls(url, "eth_call", candidates, MAX_CALL_BODIES);
    add("eth_call", calls.map((c, i) => requestBody(i + 1, "eth_call", [c, "latest"])), validatorRef(here, dataCheck));

    if (selected.has("eth_estimateGas")) {
      const transfers = uniqueBy(
        sent.filter((t) => inputOf(t) === "0x"),
        (t) => `${t.from.toLowerCase()}:${(t.to as string).toLowerCase()}`,
      )
        .slice(0, MAX_PROBES)
        .map(callObject);
      const estimates = await probeCalls(url, "eth_estimateGas", roundRobin([calls, transfers], MAX_PROBES), MAX_CALL_BODIES);
      add("eth_estimateGas", estimates.map((c, i) => requestBody(i + 1, "eth_estimateGas", [c, "latest"])), validatorRef(here, quantityCheck));
    }
  }

  add("eth_blockNumber", [requestBody(1, "eth_blockNumber", [])], validatorRef(here, quantityCheck));
  add("eth_chainId", [requestBody(1, "eth_chainId", [])], validatorRef(here, chainIdCheck, chainId));
  return corpora;
}
