/**
 * Span batches, batch type 1 (Delta; specs delta/span-batches.md; op-node `span_batch.go`, kona
 * `batch/{raw,prefix,payload}.rs`):
 *
 * ```text
 * span_batch = prefix ++ payload
 * prefix     = rel_timestamp (uvarint) ++ l1_origin_num (uvarint) ++ parent_check (20) ++ l1_origin_check (20)
 * payload    = block_count (uvarint, 1..MAX) ++ origin_bits (bitlist block_count)
 *           ++ block_tx_counts (block_count uvarints, each ≤ MAX, sum ≤ MAX) ++ txs (spanBatchTxs.ts)
 * ```
 *
 * `rel_timestamp` is the first block's timestamp minus the L2 genesis time, `l1_origin_num` the
 * last block's L1 origin, `parent_check` the first 20 bytes of the first block's parent hash,
 * `l1_origin_check` the first 20 bytes of the last block's L1 origin hash; origin bit i is set
 * when block i starts a new epoch. Decoding follows op-node's `RawSpanBatch` decode (bytes after
 * the last field are ignored, as op-node does); {@link deriveSpanBatch} is its `derive`, and
 * {@link expandSpanBatch} gives each block's singular batch.
 */
import type { OpNetwork, RollupGenesis } from "../chain/op/networks.js";
import { MAX_SPAN_BATCH_ELEMENT_COUNT } from "./constants.js";
import { Bitlist, readBitlist } from "./bitlist.js";
import { joinBytes } from "./bytes.js";
import { DerivationCodecError, DerivationCodecErrorCode, invalidEncodeInput, malformedSpanBatch, spanBatchTooBig } from "./codecErrors.js";
import type { RlpFail } from "./rlp.js";
import type { SingularBatch } from "./singularBatch.js";
import { type SpanBatchTxs, decodeSpanBatchTxs, encodeSpanBatchTxs, spanBatchTransactions, spanBatchTxsFromTransactions } from "./spanBatchTxs.js";
import { encodeUvarint, readUvarint } from "./varint.js";

/** Bytes of parent_check and l1_origin_check. */
const SPAN_BATCH_CHECK_BYTES = 20;
/** Bits of the u64 arithmetic op-node does on timestamps and origin numbers (it wraps). */
const U64_BITS = 64;

/** A span batch as encoded: prefix, payload, and the columnar transactions. */
export interface RawSpanBatch {
  /** First block's timestamp minus the L2 genesis time (u64). */
  relTimestamp: bigint;
  /** L1 origin number of the last block (u64). */
  l1OriginNum: bigint;
  /** First 20 bytes of the first block's parent hash. */
  parentCheck: Uint8Array;
  /** First 20 bytes of the last block's L1 origin hash. */
  l1OriginCheck: Uint8Array;
  /** Blocks in the span, 1 to `MAX_SPAN_BATCH_ELEMENT_COUNT`. */
  blockCount: number;
  /** Bit i: block i starts a new epoch (its L1 origin is one past its parent's). */
  originBits: Bitlist;
  /** Transactions of each block. */
  blockTxCounts: number[];
  txs: SpanBatchTxs;
}

/** Reads a uvarint count and checks it against `MAX_SPAN_BATCH_ELEMENT_COUNT`. */
function readCount(buf: Uint8Array, pos: number, end: number, field: string): { value: number; next: number } {
  const v = readUvarint(buf, pos, end, (reason) => malformedSpanBatch(field, reason));
  if (v.value > BigInt(MAX_SPAN_BATCH_ELEMENT_COUNT)) throw spanBatchTooBig(field, v.value, MAX_SPAN_BATCH_ELEMENT_COUNT);
  return { value: Number(v.value), next: v.next };
}

/**
 * Decodes a span batch's content (the bytes after the type byte 0x01). Throws a
 * {@link DerivationCodecError}: MALFORMED_SPAN_BATCH (a field truncated or overflowing, naming
 * it), SPAN_BATCH_TOO_BIG, EMPTY_SPAN_BATCH, BITLIST_TOO_LONG. Byte fields are views into `content`.
 */
export function decodeSpanBatch(content: Uint8Array): RawSpanBatch {
  const end = content.length;
  const at = (field: string): RlpFail => (reason) => malformedSpanBatch(field, reason);
  const rel = readUvarint(content, 0, end, at("rel_timestamp"));
  const origin = readUvarint(content, rel.next, end, at("l1_origin_num"));
  let p = origin.next;
  const check = (field: string): Uint8Array => {
    if (end - p < SPAN_BATCH_CHECK_BYTES) throw malformedSpanBatch(field, `needs ${SPAN_BATCH_CHECK_BYTES} bytes, ${end - p} remain`);
    p += SPAN_BATCH_CHECK_BYTES;
    return content.subarray(p - SPAN_BATCH_CHECK_BYTES, p);
  };
  const parentCheck = check("parent_check");
  const l1OriginCheck = check("l1_origin_check");
  const count = readCount(content, p, end, "block_count");
  if (count.value === 0) throw new DerivationCodecError({ code: DerivationCodecErrorCode.EMPTY_SPAN_BATCH }, "span batch has block_count 0; expected at least one block");
  const bits = readBitlist(content, count.next, end, count.value, "origin_bits", at("origin_bits"));
  p = bits.next;
  const blockTxCounts: number[] = [];
  let totalTxs = 0;
  for (let i = 0; i < count.value; i++) {
    const c = readCount(content, p, end, `block_tx_counts[${i}]`);
    blockTxCounts.push(c.value);
    totalTxs += c.value;
    p = c.next;
  }
  if (totalTxs > MAX_SPAN_BATCH_ELEMENT_COUNT) throw spanBatchTooBig("total transaction count", totalTxs, MAX_SPAN_BATCH_ELEMENT_COUNT);
  const { txs } = decodeSpanBatchTxs(content, p, end, totalTxs);
  return {
    relTimestamp: rel.value,
    l1OriginNum: origin.value,
    parentCheck,
    l1OriginCheck,
    blockCount: count.value,
    originBits: bits.bits,
    blockTxCounts,
    txs,
  };
}

/** Encodes a span batch's content (without the type byte); INVALID_ENCODE_INPUT for inconsistent fields. */
export function encodeSpanBatch(b: RawSpanBatch): Uint8Array {
  if (b.parentCheck.length !== SPAN_BATCH_CHECK_BYTES || b.l1OriginCheck.length !== SPAN_BATCH_CHECK_BYTES) {
    throw invalidEncodeInput(`parent_check and l1_origin_check must be ${SPAN_BATCH_CHECK_BYTES} bytes`);
  }
  if (b.blockCount < 1 || b.blockCount > MAX_SPAN_BATCH_ELEMENT_COUNT || b.blockTxCounts.length !== b.blockCount || b.originBits.length !== b.blockCount) {
    throw invalidEncodeInput(`block_count ${b.blockCount} must be 1 to ${MAX_SPAN_BATCH_ELEMENT_COUNT} and match the origin bits and block transaction counts`);
  }
  const total = b.blockTxCounts.reduce((a, c) => a + c, 0);
  if (total !== b.txs.totalTxs) throw invalidEncodeInput(`block transaction counts sum to ${total}, the transactions section holds ${b.txs.totalTxs}`);
  return joinBytes([
    encodeUvarint(b.relTimestamp),
    encodeUvarint(b.l1OriginNum),
    b.parentCheck,
    b.l1OriginCheck,
    encodeUvarint(b.blockCount),
    b.originBits.bytes,
    ...b.blockTxCounts.map(encodeUvarint),
    encodeSpanBatchTxs(b.txs),
  ]);
}

/** What span batch derivation needs of the rollup config (an {@link OpNetwork} fits). */
export interface SpanBatchRollupConfig {
  /** L2 chain id: the chain id of the rebuilt transactions. */
  chainId: OpNetwork["chainId"];
  /** Seconds between L2 blocks. */
  blockTime: OpNetwork["blockTime"];
  genesis: Pick<RollupGenesis, "l2Time">;
}

/** One block of a span batch: its L1 origin number, timestamp and signed transactions. */
export interface SpanBatchElement {
  epochNum: bigint;
  timestamp: bigint;
  /** EIP-2718 bytes of each transaction. */
  transactions: Uint8Array[];
}

/** A span batch in derived form: the checks and one element per block. */
export interface SpanBatch {
  parentCheck: Uint8Array;
  l1OriginCheck: Uint8Array;
  blocks: SpanBatchElement[];
}

/**
 * Derives the blocks of a span batch (op-node `RawSpanBatch.derive`): block i's timestamp is
 * `genesis.l2Time + rel_timestamp + i * blockTime`; the last block's origin is `l1_origin_num`,
 * each earlier one's one less whenever the next block's origin bit is set (bit 0 only says
 * whether the first block starts an epoch). u64 arithmetic wraps as in op-node. Throws
 * INVALID_SPAN_TX for the first transaction that cannot be rebuilt.
 */
export function deriveSpanBatch(raw: RawSpanBatch, cfg: SpanBatchRollupConfig): SpanBatch {
  const transactions = spanBatchTransactions(raw.txs, cfg.chainId);
  const origins = new Array<bigint>(raw.blockCount);
  let origin = raw.l1OriginNum;
  for (let i = raw.blockCount - 1; i >= 0; i--) {
    origins[i] = origin;
    if (i > 0 && raw.originBits.get(i)) origin = BigInt.asUintN(U64_BITS, origin - 1n);
  }
  const blocks: SpanBatchElement[] = [];
  let next = 0;
  for (let i = 0; i < raw.blockCount; i++) {
    const n = raw.blockTxCounts[i]!;
    blocks.push({
      epochNum: origins[i]!,
      timestamp: BigInt.asUintN(U64_BITS, cfg.genesis.l2Time + raw.relTimestamp + cfg.blockTime * BigInt(i)),
      transactions: transactions.slice(next, next + n),
    });
    next += n;
  }
  return { parentCheck: raw.parentCheck, l1OriginCheck: raw.l1OriginCheck, blocks };
}

/**
 * A block of a span batch as a singular batch, but for the parent hash: the span batch names only
 * the first block's parent (its 20-byte `parent_check`); the batch validator supplies each
 * block's parent (the safe head, then the block derived before).
 */
export type SpanBlockBatch = Omit<SingularBatch, "parentHash">;

/**
 * Expands a derived span batch into one batch per block, the epoch hashes from `epochHash` (the
 * canonical L1 chain: op-node `GetSingularBatches` looks them up among the L1 origins it holds).
 * Throws MISSING_EPOCH_HASH for an epoch `epochHash` does not know.
 */
export function expandSpanBatch(span: SpanBatch, epochHash: (epochNum: bigint) => Uint8Array | undefined): SpanBlockBatch[] {
  return span.blocks.map((b) => {
    const hash = epochHash(b.epochNum);
    if (hash === undefined) {
      throw new DerivationCodecError(
        { code: DerivationCodecErrorCode.MISSING_EPOCH_HASH, epoch: b.epochNum.toString() },
        `span batch block at timestamp ${b.timestamp} has L1 origin ${b.epochNum}, whose hash is not known`,
      );
    }
    return { epochNum: b.epochNum, epochHash: hash, timestamp: b.timestamp, transactions: b.transactions };
  });
}

/** What {@link spanBatchFromBlocks} needs besides the blocks and the rollup config. */
interface SpanBatchBuildOptions {
  /** The first block's parent hash, or its first 20 bytes. */
  parentHash: Uint8Array;
  /** The last block's L1 origin hash, or its first 20 bytes. */
  lastEpochHash: Uint8Array;
  /** Whether the first block starts a new epoch (sequence number 0): origin bit 0. */
  firstBlockStartsEpoch: boolean;
}

/** The first 20 bytes of a 32-byte hash, or the 20 bytes given. */
function check20(h: Uint8Array, what: string): Uint8Array {
  if (h.length !== 32 && h.length !== SPAN_BATCH_CHECK_BYTES) throw invalidEncodeInput(`${what} is ${h.length} bytes, expected 32 (or its first 20)`);
  return h.subarray(0, SPAN_BATCH_CHECK_BYTES);
}

/**
 * Builds the span batch of consecutive blocks (op-node `SpanBatch.AppendSingularBatch` +
 * `ToRawSpanBatch`, the batcher side): origin bit i (i > 0) is set when block i's epoch is one
 * past block i-1's. Throws INVALID_ENCODE_INPUT for what the encoding cannot carry: no blocks,
 * timestamps not `blockTime` apart or before genesis, an epoch that goes back or skips one, a
 * transaction that cannot go in a span batch.
 */
export function spanBatchFromBlocks(blocks: readonly SpanBatchElement[], cfg: SpanBatchRollupConfig, opts: SpanBatchBuildOptions): RawSpanBatch {
  if (blocks.length === 0) throw invalidEncodeInput("a span batch needs at least one block");
  if (blocks.length > MAX_SPAN_BATCH_ELEMENT_COUNT) throw invalidEncodeInput(`${blocks.length} blocks, more than MAX_SPAN_BATCH_ELEMENT_COUNT`);
  const first = blocks[0]!;
  const last = blocks[blocks.length - 1]!;
  if (first.timestamp < cfg.genesis.l2Time) throw invalidEncodeInput(`first block timestamp ${first.timestamp} is before the L2 genesis time ${cfg.genesis.l2Time}`);
  const originBits = new Bitlist(blocks.length);
  originBits.set(0, opts.firstBlockStartsEpoch);
  for (let i = 1; i < blocks.length; i++) {
    const [prev, cur] = [blocks[i - 1]!, blocks[i]!];
    const step = cur.epochNum - prev.epochNum;
    if (cur.timestamp !== prev.timestamp + cfg.blockTime || step < 0n || step > 1n) {
      throw invalidEncodeInput(
        `block ${i} (timestamp ${cur.timestamp}, epoch ${cur.epochNum}) does not follow block ${i - 1} (timestamp ${prev.timestamp}, epoch ${prev.epochNum}): expected the next timestamp and the same or the next epoch`,
      );
    }
    originBits.set(i, step === 1n);
  }
  const all: Uint8Array[] = [];
  for (const b of blocks) for (const tx of b.transactions) all.push(tx);
  return {
    relTimestamp: first.timestamp - cfg.genesis.l2Time,
    l1OriginNum: last.epochNum,
    parentCheck: check20(opts.parentHash, "parent hash"),
    l1OriginCheck: check20(opts.lastEpochHash, "last epoch hash"),
    blockCount: blocks.length,
    originBits,
    blockTxCounts: blocks.map((b) => b.transactions.length),
    txs: spanBatchTxsFromTransactions(all, cfg.chainId),
  };
}
