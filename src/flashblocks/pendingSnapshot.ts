/**
 * The pending (pre-confirmed) state as one immutable snapshot: what the flashblocks worker
 * publishes after each applied flashblock and what every `pending` RPC answer is read from.
 *
 * It crosses the thread boundary as bytes (msgpack values, see {@link WireSnapshot}) through the
 * SharedArrayBuffer of `pendingBuffer.ts`. Everything the RPC thread serves is pre-rendered here by the worker —
 * block JSON (hashes and full), each transaction and receipt JSON, the logs — so answering a
 * `pending` read costs a slice, not a formatting pass. The state diff (balances, nonces, code,
 * storage) is absolute: the values after the last pre-confirmed transaction, for every account
 * and slot the pending blocks touched, to be layered over the canonical anchor's state.
 *
 * Numbers that always fit in 2^53 (block numbers, timestamps, indexes) are JS numbers; hashes,
 * addresses and quantities are 0x-prefixed strings as the RPC prints them.
 */
import { Packr } from "msgpackr";
import type { RpcLog } from "../chain/json/receipt.js";

/** Layout version of {@link PendingSnapshot}; readers ignore snapshots of another version. */
export const PENDING_SNAPSHOT_VERSION = 5;

/** One pre-confirmed transaction, with everything the RPC answers about it pre-rendered. */
export interface PendingTx {
  /** Transaction hash (0x, 32 bytes). */
  hash: string;
  /** Sender (0x, lowercase). */
  from: string;
  /** Recipient (0x, lowercase), null for a contract creation. */
  to: string | null;
  /** The eth_getTransactionByHash JSON (blockHash/blockNumber/transactionIndex of its pending block). */
  txJson: string;
  /** The eth_getTransactionReceipt JSON. */
  receiptJson: string;
  /** Its logs, formatted as eth_getLogs returns them (block-wide logIndex). */
  logs: RpcLog[];
  /** Its EIP-2718 envelope (eth_getRawTransactionByHash and the by-block raw forms). */
  raw: Uint8Array;
}

/** One pending block (the block being built, or an earlier one not yet canonical). */
export interface PendingBlockView {
  number: number;
  /** Hash of the partial block at the current flashblock index (keccak of its header RLP). */
  hash: string;
  parentHash: string;
  timestamp: number;
  /** Latest flashblock index applied to this block. */
  index: number;
  /** Payload id of the build (0x, 8 bytes). */
  payloadId: string;
  /** RLP of the partial header (state root as published: zero on Base); the context of pending calls. */
  headerRlp: Uint8Array;
  /** eth_getBlockByNumber("pending", false) JSON. */
  blockJson: string;
  /** eth_getBlockByNumber("pending", true) JSON. */
  blockJsonFull: string;
  /** eth_getBlockReceipts("pending") JSON (an array). */
  receiptsJson: string;
  /** Transactions in block order. */
  txs: PendingTx[];
  /** Number of transactions the latest flashblock added (the tail of `txs`). */
  newTxCount: number;
  /**
   * Each applied flashblock of this block, encoded (`flashblockMarks.ts`, index order): what
   * answers as of an earlier index need. Absent in snapshots not built by the worker.
   */
  marks?: readonly Uint8Array[];
}

/** The pending state changes, absolute, relative to the anchor (the canonical parent of the earliest pending block). */
export interface PendingStateDiff {
  /** Address (20 bytes) → slim account RLP (storage/accountCodec.ts) after the pending transactions, or null when deleted. */
  accounts: [Uint8Array, Uint8Array | null][];
  /** (address, slot, value): value with leading zeros stripped, empty = zero. */
  storage: [Uint8Array, Uint8Array, Uint8Array][];
  /** Addresses whose storage the pending transactions wiped (destroyed and re-created): slots not in `storage` read zero. */
  cleared: Uint8Array[];
  /** Code hash → code written by the pending transactions. */
  code: [Uint8Array, Uint8Array][];
}

/** The pending state published after one flashblock. */
export interface PendingSnapshot {
  version: number;
  /** Canonical block the earliest pending block builds on. */
  anchor: { number: number; hash: string };
  /** Pending blocks, oldest first; the last is "the pending block". */
  blocks: PendingBlockView[];
  state: PendingStateDiff;
  /** Flashblock that produced this snapshot. */
  flashblock: { block: number; index: number };
  /**
   * When that flashblock's frame arrived at the worker: `performance.timeOrigin +
   * performance.now()` in ms (comparable across the threads of one process).
   */
  receivedAt: number;
  /** When the worker finished executing it (same clock). */
  executedAt: number;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * The wire form: concatenated msgpack values — first the snapshot without its
 * transactions ({@link WireSnapshot}), then every block's transactions, one value each
 * ({@link WireTx}), in block order. The JSON of a block's transactions and receipts may name
 * the block by a stand-in (`placeholder`) that the reader replaces by the block hash when a
 * string is first read; the block JSON is sent as the text around its transactions list. So
 * the worker encodes a transaction once, when it arrives, and a frame re-sends its bytes
 * as they are; the reader fills in only what an answer reads.
 */
export interface WireBlock {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  index: number;
  payloadId: string;
  headerRlp: Uint8Array;
  newTxCount: number;
  txCount: number;
  /** Stand-in for `hash` in the transactions' and receipts' JSON and logs; "" when there is none. */
  placeholder: string;
  /** The block JSON before and after its transactions list; or, in `whole`, the three JSON strings as they are. */
  around?: [string, string];
  whole?: [blockJson: string, blockJsonFull: string, receiptsJson: string];
  /** The encoded marks of the block's applied flashblocks ({@link PendingBlockView.marks}). */
  marks?: Uint8Array[];
}

/** One transaction on the wire: hash, from, to, transaction JSON, receipt JSON, logs (JSON and logs may hold the placeholder), envelope. */
type WireTx = [hash: string, from: string, to: string | null, txJson: string, receiptJson: string, logs: RpcLog[], raw: Uint8Array];

/** The first value of the wire form: a snapshot whose blocks' transactions follow it. */
interface WireSnapshot extends Omit<PendingSnapshot, "blocks"> {
  blocks: WireBlock[];
}

/** A block as the worker keeps it between frames: its wire header and each transaction's encoded {@link WireTx}. */
export interface PreparedBlock {
  wire: WireBlock;
  txs: readonly Uint8Array[];
}

/** A snapshot as the worker publishes it: the wire snapshot, with blocks whose transactions are already encoded. */
export interface PreparedSnapshot extends Omit<PendingSnapshot, "blocks"> {
  blocks: PreparedBlock[];
}

/** Encodes one transaction for the wire (the worker does it once per transaction). */
export function encodeWireTx(tx: WireTx): Uint8Array {
  return packr.pack(tx);
}

/** The wire form of a prepared snapshot, as chunks to be written one after the other. */
export function encodePreparedSnapshot(p: PreparedSnapshot): Uint8Array[] {
  const head: WireSnapshot = { ...p, blocks: p.blocks.map((b) => b.wire) };
  const chunks: Uint8Array[] = [packr.pack(head)];
  for (const b of p.blocks) for (const t of b.txs) chunks.push(t);
  return chunks;
}

/** A plain snapshot in prepared form (its strings as they are, no placeholder). */
export function prepareSnapshot(s: PendingSnapshot): PreparedSnapshot {
  return {
    ...s,
    blocks: s.blocks.map((b) => ({
      wire: {
        number: b.number,
        hash: b.hash,
        parentHash: b.parentHash,
        timestamp: b.timestamp,
        index: b.index,
        payloadId: b.payloadId,
        headerRlp: b.headerRlp,
        newTxCount: b.newTxCount,
        txCount: b.txs.length,
        placeholder: "",
        whole: [b.blockJson, b.blockJsonFull, b.receiptsJson],
      },
      txs: b.txs.map((t) => encodeWireTx([t.hash, t.from, t.to, t.txJson, t.receiptJson, t.logs, t.raw])),
    })),
  };
}

/** Joins chunks into one byte array. */
export function concatChunks(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const c of chunks) {
    out.set(c, n);
    n += c.length;
  }
  return out;
}

/** Serializes a snapshot for the shared buffer. */
export function encodePendingSnapshot(s: PendingSnapshot): Uint8Array {
  return concatChunks(encodePreparedSnapshot(prepareSnapshot(s)));
}

/** A transaction read from the wire: its JSON strings are filled in with the block hash on first read. */
class DecodedTx implements PendingTx {
  readonly hash: string;
  readonly from: string;
  readonly to: string | null;
  readonly logs: RpcLog[];
  readonly raw: Uint8Array;
  private tx: string;
  private receipt: string;
  private txFilled: boolean;
  private receiptFilled: boolean;
  constructor(
    w: WireTx,
    private readonly placeholder: string,
    private readonly blockHash: string,
  ) {
    [this.hash, this.from, this.to, this.tx, this.receipt, this.logs, this.raw] = w;
    this.txFilled = this.receiptFilled = placeholder === "";
    if (placeholder !== "") for (const l of this.logs) if (l.blockHash === placeholder) l.blockHash = blockHash;
  }
  get txJson(): string {
    if (!this.txFilled) {
      this.tx = this.tx.replaceAll(this.placeholder, this.blockHash);
      this.txFilled = true;
    }
    return this.tx;
  }
  get receiptJson(): string {
    if (!this.receiptFilled) {
      this.receipt = this.receipt.replaceAll(this.placeholder, this.blockHash);
      this.receiptFilled = true;
    }
    return this.receipt;
  }
}

/** A block read from the wire: its block and receipts JSON are assembled on first read. */
class DecodedBlock implements PendingBlockView {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly index: number;
  readonly payloadId: string;
  readonly headerRlp: Uint8Array;
  readonly newTxCount: number;
  readonly marks: readonly Uint8Array[] | undefined;
  private json: [string | undefined, string | undefined, string | undefined];
  constructor(
    w: WireBlock,
    readonly txs: PendingTx[],
  ) {
    this.number = w.number;
    this.hash = w.hash;
    this.parentHash = w.parentHash;
    this.timestamp = w.timestamp;
    this.index = w.index;
    this.payloadId = w.payloadId;
    this.headerRlp = w.headerRlp;
    this.newTxCount = w.newTxCount;
    this.marks = w.marks;
    this.around = w.around;
    this.json = w.whole ?? [undefined, undefined, undefined];
  }
  private readonly around: [string, string] | undefined;
  get blockJson(): string {
    return (this.json[0] ??= `${this.around![0]}[${this.txs.map((t) => JSON.stringify(t.hash)).join(",")}]${this.around![1]}`);
  }
  get blockJsonFull(): string {
    return (this.json[1] ??= `${this.around![0]}[${this.txs.map((t) => t.txJson).join(",")}]${this.around![1]}`);
  }
  get receiptsJson(): string {
    return (this.json[2] ??= `[${this.txs.map((t) => t.receiptJson).join(",")}]`);
  }
}

/** Reads a snapshot back; undefined for bytes of another layout version. */
export function decodePendingSnapshot(bytes: Uint8Array): PendingSnapshot | undefined {
  const values = packr.unpackMultiple(bytes) as unknown[];
  const head = values[0] as WireSnapshot | null;
  if (head === null || typeof head !== "object" || head.version !== PENDING_SNAPSHOT_VERSION) return undefined;
  let next = 1;
  const blocks = head.blocks.map((w) => {
    const txs: PendingTx[] = [];
    for (let i = 0; i < w.txCount; i++) txs.push(new DecodedTx(values[next++] as WireTx, w.placeholder, w.hash));
    return new DecodedBlock(w, txs);
  });
  return { ...head, blocks };
}

/** The pending block of a snapshot (its last block). */
export function pendingHead(s: PendingSnapshot): PendingBlockView {
  const b = s.blocks.at(-1);
  if (b === undefined) throw new RangeError("pending snapshot without blocks");
  return b;
}
