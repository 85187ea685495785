/**
 * eth_getLogs: logs of a block range or one block hash, filtered by address and topics.
 * Blocks whose header bloom cannot match are skipped without reading receipts.
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
import { MAX_FILTER_ADDRESSES, MAX_FILTER_SUBTOPICS, MAX_LOGS_BLOCK_RANGE, MAX_LOGS_PER_RESPONSE } from "../../config/constants.js";
import type { Chain } from "../../blockchain/chain.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveBlock } from "../blockParam.js";
import { InvalidParamsError, ServerError } from "../errors.js";
import { formatBlockLogs, type RpcLog } from "../../chain/json/index.js";
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
  const bloom = block.header.logsBloom;
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

/** A log's position, the key of pending/canonical deduplication: (blockNumber, logIndex). */
function position(l: RpcLog): [bigint, bigint] {
  return [BigInt(l.blockNumber), BigInt(l.logIndex)];
}

/**
 * Adds to `out` the matching logs of the pre-confirmed transactions of the snapshot blocks
 * numbered `from` or above that are not already in `out` at the same (blockNumber, logIndex),
 * then orders `out` by block and log index.
 */
function mergePendingLogs(out: RpcLog[], blocks: readonly PendingBlockView[], from: bigint, f: LogFilter): void {
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
        if (out.length > MAX_LOGS_PER_RESPONSE) throw new ServerError(`query returned more than ${MAX_LOGS_PER_RESPONSE} results`);
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
 * the receipts when the header's bloom cannot match; nothing when the receipts are not stored.
 * @throws ServerError past `limit` logs in `out` (eth_getLogs' MAX_LOGS_PER_RESPONSE).
 */
export function collectBlockLogs(chain: Chain, block: Block, filter: LogFilter, removed: boolean, out: RpcLog[], limit = MAX_LOGS_PER_RESPONSE): void {
  if (!mayMatch(block, filter)) return;
  const receipts = chain.getReceipts(block.hash());
  if (receipts === undefined) return;
  for (const l of formatBlockLogs(block, receipts, removed, { op: chain.op })) {
    if (matches(l, filter)) {
      out.push(l);
      if (out.length > limit) throw new ServerError(`query returned more than ${limit} results`);
    }
  }
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
  const collect = (block: Block): void => collectBlockLogs(chain, block, filter, false, out);
  if (o.blockHash != null) {
    const block = chain.getBlockByHash(parseHash(o.blockHash, "0.blockHash"));
    if (block === undefined) throw new ServerError("unknown block");
    collect(block);
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
      if (head - from + 1n > BigInt(MAX_LOGS_BLOCK_RANGE)) throw new ServerError(`query exceeds max block range ${MAX_LOGS_BLOCK_RANGE}`);
      for (let i = from; i <= head; i++) {
        const block = chain.getBlockByNumber(i);
        if (block !== undefined) collect(block);
      }
    }
    const blocks = [...position.snapshot.blocks.filter((x) => BigInt(x.number) < n), position.at.block];
    mergePendingLogs(out, blocks, from, filter);
    return out;
  }
  const toPending = toParam !== undefined && isPendingParam(toParam);
  const s = fromPending || toPending ? pendingFor(b, "eth_getLogs") : undefined;
  if (s !== undefined && fromPending) {
    // Only the pre-confirmed logs: the snapshot blocks after the head.
    mergePendingLogs(out, s.blocks, head + 1n, filter);
    return out;
  }
  const num = (v: unknown, name: "from" | "to"): bigint => (v == null ? head : numberOf(b, v, name));
  const from = num(o.fromBlock, "from");
  const to = num(o.toBlock, "to");
  if (s !== undefined && from > head && BigInt(s.blocks.at(-1)!.number) >= from) {
    // fromBlock after the head but within the pending blocks: only pre-confirmed logs.
    mergePendingLogs(out, s.blocks, from, filter);
    return out;
  }
  if (from > head || to > head) {
    if (from > to && to <= head) throw new InvalidParamsError("invalid block range params");
    throw new InvalidParamsError("block range extends beyond current head block");
  }
  if (from > to) throw new InvalidParamsError("invalid block range params");
  if (to - from + 1n > BigInt(MAX_LOGS_BLOCK_RANGE)) throw new ServerError(`query exceeds max block range ${MAX_LOGS_BLOCK_RANGE}`);
  for (let n = from; n <= to; n++) {
    const block = chain.getBlockByNumber(n);
    if (block !== undefined) collect(block);
  }
  if (s !== undefined) mergePendingLogs(out, s.blocks, from, filter);
  return out;
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
