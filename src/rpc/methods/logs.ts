/**
 * eth_getLogs: logs of a block range or one block hash, filtered by address and topics.
 * A range with address or topic criteria reads only the blocks the log index
 * (storage/logIndex.ts) names: per criterion (the addresses; the topics at one position) the
 * union of its keys' blocks, intersected across criteria. Blocks below the index's first block
 * (a datadir indexed since it was upgraded) and ranges without criteria are scanned: blocks
 * whose header bloom cannot match are skipped without reading receipts. Both give the same logs.
 * Limits: `--rpc.max-blocks-per-filter` and `--rpc.max-logs-per-response` with reth's errors.
 *
 * `pending` with a pending snapshot (without one, `pending` is `latest`):
 * - `toBlock: "pending"`: the canonical logs of `fromBlock`..latest, then the matching logs of
 *   the pre-confirmed transactions of every snapshot block from `fromBlock` on, deduplicated by
 *   (blockNumber, logIndex) — a canonical log wins — and ordered by block, then log index (the
 *   reference node's rule, base/base `eth_getLogs`);
 * - `fromBlock: "pending"`: only the logs of the snapshot blocks not yet canonical;
 * - `toBlock: {blockNumber, flashblockIndex}` (base/base #508): as `pending`, but only up to
 *   flashblock K of block N — the earlier pending blocks whole, block N's transactions of
 *   flashblocks 0..K (logs naming that index's block hash); a canonical N is a block number.
 * `blockHash` filters are unchanged. The filters (eth_newFilter, rpc/filters.ts) run their
 * eth_getFilterLogs through {@link getLogs} and read blocks with {@link collectBlockLogs}.
 */
import type { Block } from "@ethereumjs/block";
import { MAX_LOGS_BLOCK_RANGE, MAX_LOGS_PER_RESPONSE } from "../../config/constants.js";
import { MAX_FILTER_ADDRESSES, MAX_FILTER_SUBTOPICS } from "../constants.js";
import { candidateBlocks } from "../../storage/logIndex.js";
import { addressKey, topicKey } from "../../storage/logIndexCodec.js";
import { rpcGetLogsBlocksReadTotal, rpcGetLogsBlocksTotal } from "../metrics.js";
import type { Chain } from "../../blockchain/chain.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveBlock } from "../blockParam.js";
import { InvalidParamsError, ServerError } from "../errors.js";
import { formatBlockLogs, formatSelectedLogs, toData, type RpcLog } from "../../chain/json/index.js";
import { decodeReceiptLogs } from "../../storage/receiptCodec.js";
import type { Log } from "../../storage/types.js";
import { asBuffer } from "../../util/bytes.js";
import { RLP } from "@ethereumjs/rlp";
import { parseAddress, parseHash } from "../hexParams.js";
import { required } from "../params.js";
import type { MethodTable } from "../types.js";
import { keccak256 } from "../../util/keccak.js";
import type { PendingBlockView } from "../../flashblocks/pendingSnapshot.js";
import { pendingFor, positionFor } from "./pending.js";

/** A parsed log filter: lowercase 0x addresses (empty = any) and per position the accepted topics (null or empty = any). */
export interface LogFilter {
  addresses: Set<string>;
  topics: (Set<string> | null)[];
}

function bloomHas(bloom: Uint8Array, item: Uint8Array): boolean {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    if ((bloom[256 - 1 - Math.floor(bit / 8)] & (1 << bit % 8)) === 0) return false;
  }
  return true;
}

function mayMatch(block: Block, f: LogFilter): boolean {
  return bloomMayMatch(block.header.logsBloom, f);
}

function bloomMayMatch(bloom: Uint8Array, f: LogFilter): boolean {
  if (f.addresses.size > 0 && ![...f.addresses].some((a) => bloomHas(bloom, Buffer.from(a.slice(2), "hex")))) return false;
  for (const t of f.topics) {
    if (t === null || t.size === 0) continue;
    if (![...t].some((x) => bloomHas(bloom, Buffer.from(x.slice(2), "hex")))) return false;
  }
  return true;
}

export function matches(log: RpcLog, f: LogFilter): boolean {
  if (f.addresses.size > 0 && !f.addresses.has(log.address)) return false;
  if (f.topics.length > log.topics.length) return false;
  for (let i = 0; i < f.topics.length; i++) {
    const t = f.topics[i];
    if (t !== null && t.size > 0 && !t.has(log.topics[i])) return false;
  }
  return true;
}

/** {@link matches} on a stored log (before formatting): the same rule on the same lowercase hex. */
function rawMatches(log: Log, f: LogFilter): boolean {
  if (f.addresses.size > 0 && !f.addresses.has(toData(log.address))) return false;
  if (f.topics.length > log.topics.length) return false;
  for (let i = 0; i < f.topics.length; i++) {
    const t = f.topics[i];
    if (t !== null && t.size > 0 && !t.has(toData(log.topics[i]!))) return false;
  }
  return true;
}

/**
 * Appends to `out` the matching logs of canonical block `hash` read from its stored bytes
 * (receipts' logs without blooms, transaction hashes from the body; no block object), formatted
 * as {@link collectBlockLogs} does. Whether the receipts were there.
 */
function readBlockLogs(chain: Chain, hash: Uint8Array, header: { number: bigint; timestamp: bigint }, filter: LogFilter, out: RpcLog[]): boolean {
  const raw = chain.store.receipts.get(asBuffer(hash));
  if (raw === undefined) return false;
  const receipts = decodeReceiptLogs(raw);
  const keep = (log: Log): boolean => rawMatches(log, filter);
  // The body (transaction hashes) only for a block with a match.
  if (!receipts.some((r) => r.logs.some(keep))) return true;
  const txHashes = chain.transactionHashesOf(hash);
  if (txHashes === undefined) return false;
  const ctx = { blockHash: hash, blockNumber: header.number, blockTimestamp: header.timestamp, txHashes };
  for (const l of formatSelectedLogs(ctx, receipts, keep, false, { op: chain.op })) out.push(l);
  return true;
}

/** A filter's bloom test with each criterion's bit positions computed once (the scan tests every block). */
function bloomTest(f: LogFilter): (bloom: Uint8Array) => boolean {
  const bitsOf = (hex: string): number[] => {
    const h = keccak256(Buffer.from(hex.slice(2), "hex"));
    return [0, 2, 4].map((i) => ((h[i]! << 8) | h[i + 1]!) & 2047);
  };
  const groups: number[][][] = [];
  if (f.addresses.size > 0) groups.push([...f.addresses].map(bitsOf));
  for (const t of f.topics) if (t !== null && t.size > 0) groups.push([...t].map(bitsOf));
  const has = (bloom: Uint8Array, bits: number[]): boolean => bits.every((bit) => (bloom[255 - (bit >> 3)]! & (1 << (bit & 7))) !== 0);
  return (bloom) => bloom.length !== 256 || groups.every((g) => g.some((bits) => has(bloom, bits)));
}

/** The fields eth_getLogs needs of a stored header, from its RLP (no header object). */
function headerFields(rlp: Uint8Array): { timestamp: bigint; logsBloom: Uint8Array } {
  const v = RLP.decode(rlp) as Uint8Array[];
  const ts = v[11]!;
  return { timestamp: ts.length === 0 ? 0n : BigInt("0x" + Buffer.from(ts).toString("hex")), logsBloom: v[6]! };
}

/** A log's position, the key of pending/canonical deduplication: (blockNumber, logIndex). */
function position(l: RpcLog): [bigint, bigint] {
  return [BigInt(l.blockNumber), BigInt(l.logIndex)];
}

/** Most logs in one answer over several blocks (`--rpc.max-logs-per-response`; 0 = no limit). */
function maxLogsOf(b: RpcBackend): number {
  const v = b.settings.maxLogsPerResponse ?? MAX_LOGS_PER_RESPONSE;
  return v === 0 ? Infinity : v;
}

/** reth's `QueryExceedsMaxResults`: more than `max` logs once block `at` was added to a range starting at `from`. */
function tooManyLogs(max: number, from: bigint, at: bigint): InvalidParamsError {
  const retryTo = at === from ? from : at - 1n;
  return new InvalidParamsError(`query exceeds max results ${max}, retry with the range ${from}-${retryTo}`);
}

/**
 * Adds to `out` the matching logs of the pre-confirmed transactions of the snapshot blocks
 * numbered `from` or above that are not already in `out` at the same (blockNumber, logIndex),
 * then orders `out` by block and log index. `rangeFrom` is the query's first block (the retry
 * range of a too large answer).
 */
function mergePendingLogs(out: RpcLog[], blocks: readonly PendingBlockView[], from: bigint, f: LogFilter, maxLogs: number, rangeFrom: bigint): void {
  const seen = new Set(out.map((l) => `${BigInt(l.blockNumber)}:${BigInt(l.logIndex)}`));
  let added = false;
  for (const block of blocks) {
    if (BigInt(block.number) < from) continue;
    for (const tx of block.txs) {
      for (const l of tx.logs) {
        if (!matches(l, f)) continue;
        const [n, i] = position(l);
        const k = `${n}:${i}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(l);
        added = true;
        if (out.length > maxLogs) throw tooManyLogs(maxLogs, rangeFrom, n);
      }
    }
  }
  if (!added) return;
  out.sort((a, b) => {
    const [an, ai] = position(a);
    const [bn, bi] = position(b);
    return an !== bn ? (an < bn ? -1 : 1) : ai < bi ? -1 : ai > bi ? 1 : 0;
  });
}

/**
 * The address and topics of a filter object (argument `index`) with eth_getLogs' rules:
 * `address` one address or a list, `topics` at most four positions, each null (any), a topic or
 * a list of alternatives.
 */
export function parseLogFilter(o: Record<string, unknown>, index: number): LogFilter {
  const addrList = o.address == null ? [] : Array.isArray(o.address) ? o.address : [o.address];
  if (addrList.length > MAX_FILTER_ADDRESSES) throw new ServerError("exceed max addresses");
  const filter: LogFilter = {
    addresses: new Set(addrList.map((a, i) => "0x" + Buffer.from(parseAddress(a, `${index}.address[${i}]`)).toString("hex"))),
    topics: [],
  };
  if (o.topics != null) {
    if (!Array.isArray(o.topics)) throw new InvalidParamsError(`invalid argument ${index}: topics must be an array`);
    if (o.topics.length > 4) throw new InvalidParamsError(`invalid argument ${index}: too many topics (max 4)`);
    filter.topics = o.topics.map((t, i) => {
      if (t === null) return null;
      const list = Array.isArray(t) ? t : [t];
      if (list.length > MAX_FILTER_SUBTOPICS) throw new ServerError("exceed max subtopics");
      return new Set(list.filter((x) => x !== null).map((x, j) => "0x" + Buffer.from(parseHash(x, `${index}.topics[${i}][${j}]`)).toString("hex")));
    });
  }
  return filter;
}

/**
 * Appends to `out` the logs of `block` that match `filter` (`removed` set as given), skipping
 * the receipts when the header's bloom cannot match; nothing when the receipts are not stored
 * (the polling filters' new and removed blocks). Whether the receipts were read.
 */
export function collectBlockLogs(chain: Chain, block: Block, filter: LogFilter, removed: boolean, out: RpcLog[]): boolean {
  if (!mayMatch(block, filter)) return false;
  const receipts = chain.getReceipts(block.hash());
  if (receipts === undefined) return false;
  for (const l of formatBlockLogs(block, receipts, removed, { op: chain.op })) if (matches(l, filter)) out.push(l);
  return true;
}

/**
 * The log index keys of a filter's criteria, one group per criterion (the addresses; the topics
 * at one position); undefined when it has none (every log matches: the index cannot narrow).
 */
function indexGroups(f: LogFilter): Buffer[][] | undefined {
  const groups: Buffer[][] = [];
  if (f.addresses.size > 0) groups.push([...f.addresses].map((a) => addressKey(Buffer.from(a.slice(2), "hex"))));
  f.topics.forEach((t, i) => {
    if (t !== null && t.size > 0) groups.push([...t].map((x) => topicKey(i, Buffer.from(x.slice(2), "hex"))));
  });
  return groups.length === 0 ? undefined : groups;
}

/**
 * The blocks of canonical [from, to] the log index names for `filter`, or undefined when it
 * cannot narrow them (no criteria, or part of the range below the index's first block): the
 * polling filters read only these of the new blocks.
 */
export function indexedCandidates(chain: Chain, filter: LogFilter, from: bigint, to: bigint): Set<number> | undefined {
  const groups = indexGroups(filter);
  if (groups === undefined || from > to || chain.store.logIndexFrom() > from) return undefined;
  const candidates = candidateBlocks(chain.store.logIndex, groups, Number(from), Number(to));
  rpcGetLogsBlocksTotal.inc({ path: "index" }, Number(to - from + 1n));
  rpcGetLogsBlocksReadTotal.inc({ path: "index" }, candidates.length);
  return new Set(candidates);
}

/**
 * Appends to `out` the logs of canonical blocks [from, to] matching `filter`, in block order:
 * the index's candidates where it covers the range and the filter has criteria, a bloom scan
 * elsewhere (or everywhere with `useIndex: false`).
 * @throws InvalidParamsError (reth's "query exceeds max results") past `maxLogs` logs over several blocks.
 */
export function rangeLogs(chain: Chain, filter: LogFilter, from: bigint, to: bigint, out: RpcLog[], opts: { maxLogs?: number; useIndex?: boolean } = {}): void {
  const maxLogs = opts.maxLogs ?? MAX_LOGS_PER_RESPONSE;
  const multi = from !== to;
  const groups = opts.useIndex === false ? undefined : indexGroups(filter);
  const covered = groups === undefined ? to + 1n : chain.store.logIndexFrom();
  const scanTo = covered - 1n < to ? covered - 1n : to;
  const mayMatchBloom = bloomTest(filter);
  const read = (n: bigint, bloom: boolean): boolean => {
    const hash = chain.getCanonicalHash(n);
    const rlp = hash === undefined ? undefined : chain.store.getHeaderRlp(hash);
    if (hash === undefined || rlp === undefined) return false;
    const header = headerFields(rlp);
    if (bloom && !mayMatchBloom(header.logsBloom)) return false;
    const did = readBlockLogs(chain, hash, { number: n, timestamp: header.timestamp }, filter, out);
    if (multi && out.length > maxLogs) throw tooManyLogs(maxLogs, from, n);
    return did;
  };
  let scanned = 0;
  let scannedRead = 0;
  for (let n = from; n <= scanTo; n++) {
    scanned++;
    if (read(n, true)) scannedRead++;
  }
  if (scanned > 0) {
    rpcGetLogsBlocksTotal.inc({ path: "scan" }, scanned);
    rpcGetLogsBlocksReadTotal.inc({ path: "scan" }, scannedRead);
  }
  const start = covered > from ? covered : from;
  if (groups === undefined || start > to) return;
  const candidates = candidateBlocks(chain.store.logIndex, groups, Number(start), Number(to));
  rpcGetLogsBlocksTotal.inc({ path: "index" }, Number(to - start + 1n));
  rpcGetLogsBlocksReadTotal.inc({ path: "index" }, candidates.length);
  for (const n of candidates) read(BigInt(n), false);
}

/** eth_getLogs(filter) with the filter object `raw` (argument 0); eth_getFilterLogs runs a log filter's criteria through it. */
export function getLogs(b: RpcBackend, raw: unknown): RpcLog[] {
  const { chain } = b;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InvalidParamsError("invalid argument 0: filter object expected");
  const o = raw as Record<string, unknown>;
  if (o.blockHash != null && (o.fromBlock != null || o.toBlock != null)) {
    throw new InvalidParamsError("invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other");
  }
  const filter = parseLogFilter(o, 0);
  const out: RpcLog[] = [];
  const maxLogs = maxLogsOf(b);
  if (o.blockHash != null) {
    // One block: all its logs, whatever their number (reth limits ranges of several blocks only).
    const block = chain.getBlockByHash(parseHash(o.blockHash, "0.blockHash"));
    if (block === undefined) throw new ServerError("unknown block");
    collectBlockLogs(chain, block, filter, false, out);
    return out;
  }
  const head = chain.head.header.number;
  const fromPending = o.fromBlock != null && isPendingParam(parseBlockParam(o.fromBlock, 0));
  const toParam = o.toBlock != null ? parseBlockParam(o.toBlock, 0, { allowFlashblock: true }) : undefined;
  const position = toParam?.kind === "flashblock" ? positionFor(b, "eth_getLogs", toParam) : undefined;
  if (position?.kind === "pending") {
    // Up to flashblock K of pending block N: canonical logs from fromBlock to the head, then the pending blocks before N and N as of K.
    const n = BigInt(position.at.block.number);
    const from = fromPending ? head + 1n : o.fromBlock == null ? head : numberOf(b, o.fromBlock, "from");
    if (from > n) throw new InvalidParamsError("invalid block range params");
    if (from <= head) {
      checkRange(b, from, head);
      rangeLogs(chain, filter, from, head, out, { maxLogs });
    }
    const blocks = [...position.snapshot.blocks.filter((x) => BigInt(x.number) < n), position.at.block];
    mergePendingLogs(out, blocks, from, filter, maxLogs, from);
    return out;
  }
  const toPending = toParam !== undefined && isPendingParam(toParam);
  const s = fromPending || toPending ? pendingFor(b, "eth_getLogs") : undefined;
  if (s !== undefined && fromPending) {
    // Only the pre-confirmed logs: the snapshot blocks after the head.
    mergePendingLogs(out, s.blocks, head + 1n, filter, maxLogs, head + 1n);
    return out;
  }
  const num = (v: unknown, name: "from" | "to"): bigint => (v == null ? head : numberOf(b, v, name));
  const from = num(o.fromBlock, "from");
  const to = num(o.toBlock, "to");
  if (s !== undefined && from > head && BigInt(s.blocks.at(-1)!.number) >= from) {
    // fromBlock after the head but within the pending blocks: only pre-confirmed logs.
    mergePendingLogs(out, s.blocks, from, filter, maxLogs, from);
    return out;
  }
  if (from > head || to > head) {
    if (from > to && to <= head) throw new InvalidParamsError("invalid block range params");
    throw new InvalidParamsError("block range extends beyond current head block");
  }
  if (from > to) throw new InvalidParamsError("invalid block range params");
  checkRange(b, from, to);
  rangeLogs(chain, filter, from, to, out, { maxLogs });
  if (s !== undefined) mergePendingLogs(out, s.blocks, from, filter, maxLogs, from);
  return out;
}

/**
 * `--rpc.max-blocks-per-filter`, reth's rule and text (EthFilterError::QueryExceedsMaxBlocks): the
 * span beyond the first block is capped; 0 lifts the cap.
 */
function checkRange(b: RpcBackend, from: bigint, to: bigint): void {
  const maxBlocks = b.settings.maxBlocksPerFilter ?? MAX_LOGS_BLOCK_RANGE;
  if (maxBlocks > 0 && to - from > BigInt(maxBlocks)) throw new InvalidParamsError(`query exceeds max block range ${maxBlocks}`);
}

/** The block number of a fromBlock/toBlock value (a position at or below the head is its block number). */
function numberOf(b: RpcBackend, v: unknown, name: "from" | "to"): bigint {
  const p = parseBlockParam(v, 0, { allowFlashblock: name === "to" });
  if (p.kind === "number") return p.number;
  const blk = resolveBlock(b.chain, p);
  if (blk === undefined) throw new ServerError(`${name} block not found`);
  return blk.header.number;
}

/** Handlers of the logs family. */
export function logMethods(b: RpcBackend): MethodTable {
  return {
    /** eth_getLogs(filter) */
    eth_getLogs: (params) => getLogs(b, required(params, 0)),
  };
}
