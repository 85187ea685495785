/**
 * The pending state as of one flashblock — `{blockNumber, flashblockIndex}` (base/base issue
 * #508, "consistent Flashblock routing") — on any thread holding a snapshot: the RPC thread for
 * block, receipt and state reads, the execution workers for calls.
 *
 * A position (N, K) resolves to:
 * - the canonical block N when N is at or below the canonical head (it holds every flashblock
 *   of N: "if the flashblock data has become canonical, fall back to the canonical data");
 * - pending block N as of index K when this node applied index K of N: exactly the transactions
 *   of flashblocks 0..K, the partial header of index K and the state after them (the snapshot's
 *   marks folded up to K, `flashblockMarks.ts`);
 * - {@link FlashblockPositionError} otherwise — `NOT_YET` when this node has not reached (N, K),
 *   `NOT_RETAINED` when N is pending but index K is not kept (a new build of N restarted it).
 */
import type { RpcLog } from "../chain/json/receipt.js";
import { FlashblockPositionError, FlashblockPositionErrorCode, type FlashblockPosition } from "./errors.js";
import { decodeMark, type FlashblockMark, type StateDelta } from "./flashblockMarks.js";
import type { PendingBlockView, PendingSnapshot, PendingTx } from "./pendingSnapshot.js";
import { PendingStateIndex, pendingStateIndex } from "./pendingView.js";

/** A pending block as of one of its flashblocks, and the pending state diff at that point. */
interface PendingBlockAt {
  /** The block as of the index: its transactions, hash, header and JSON at that index. */
  block: PendingBlockView;
  /** The pending state diff after the block's transactions up to the index. */
  state: PendingStateIndex;
}

/** Where a position resolves: the canonical chain, or a pending block as of an index. */
export type PositionAnswer = { kind: "canonical" } | { kind: "pending"; at: PendingBlockAt; snapshot: PendingSnapshot };

/** The flashblock height of a snapshot: its pending block's number and latest applied index. */
export function flashblockHeight(s: PendingSnapshot | undefined): FlashblockPosition | undefined {
  const last = s?.blocks.at(-1);
  return last === undefined ? undefined : { blockNumber: last.number, flashblockIndex: last.index };
}

/**
 * Resolves `at` for a node whose canonical head is `headNumber` and whose current snapshot
 * (ahead of that head, or undefined) is `s`; throws {@link FlashblockPositionError} when the
 * position can be served neither from the canonical chain nor from the snapshot.
 */
export function resolvePosition(s: PendingSnapshot | undefined, headNumber: bigint, at: FlashblockPosition): PositionAnswer {
  if (BigInt(at.blockNumber) <= headNumber) return { kind: "canonical" };
  const height = flashblockHeight(s);
  const block = s?.blocks.find((b) => b.number === at.blockNumber);
  if (s === undefined || block === undefined || block.index < at.flashblockIndex) {
    // Not pending here (yet), or not that far: another node may have it; this one will soon, or will see N canonical.
    throw new FlashblockPositionError(FlashblockPositionErrorCode.NOT_YET, at, height);
  }
  const found = pendingBlockAt(s, block, at.flashblockIndex);
  if (found === undefined) throw new FlashblockPositionError(FlashblockPositionErrorCode.NOT_RETAINED, at, height);
  return { kind: "pending", at: found, snapshot: s };
}

/** Per snapshot, the positions asked of it (built once, as the snapshot's own index is). */
const answers = new WeakMap<PendingSnapshot, Map<string, PendingBlockAt | undefined>>();

/** `block` (of `s`) as of its flashblock `index`, or undefined when that index is not retained. */
function pendingBlockAt(s: PendingSnapshot, block: PendingBlockView, index: number): PendingBlockAt | undefined {
  if (block === s.blocks.at(-1) && index === block.index) return { block, state: pendingStateIndex(s) };
  let known = answers.get(s);
  if (known === undefined) answers.set(s, (known = new Map()));
  const k = `${block.number}-${index}`;
  if (known.has(k)) return known.get(k);
  const found = build(s, block, index);
  known.set(k, found);
  return found;
}

function build(s: PendingSnapshot, block: PendingBlockView, index: number): PendingBlockAt | undefined {
  const marks = block.marks?.map(decodeMark);
  const mark = marks?.find((m) => m.index === index);
  if (marks === undefined || mark === undefined) return undefined;
  const state = new PendingStateIndex({ accounts: [], storage: [], cleared: [], code: [] });
  for (const b of s.blocks) {
    if (b === block) break;
    // An earlier pending block's marks are all needed (its whole state lies under this block's).
    if (b.marks === undefined) return undefined;
    for (const m of b.marks) fold(state, decodeMark(m).state);
  }
  for (const m of marks) {
    fold(state, m.state);
    if (m === mark) break;
  }
  return { block: mark.hash === block.hash ? block : new BlockAtIndex(block, mark, marks), state };
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/** Applies one flashblock's delta to a diff being folded (in frame order): folding every delta so far gives the frame's whole diff. */
export function fold(ix: PendingStateIndex, d: StateDelta): void {
  for (const a of d.cleared) {
    const k = hex(a);
    ix.cleared.add(k);
    ix.storage.delete(k);
  }
  for (const [a, rlp] of d.accounts) ix.accounts.set(hex(a), rlp);
  for (const a of d.droppedAccounts) ix.accounts.delete(hex(a));
  for (const [a, slot, value] of d.storage) {
    const k = hex(a);
    let m = ix.storage.get(k);
    if (m === undefined) ix.storage.set(k, (m = new Map()));
    m.set(hex(slot), value);
  }
  for (const [a, slot] of d.droppedStorage) ix.storage.get(hex(a))?.delete(hex(slot));
  for (const [h, c] of d.code) ix.code.set(hex(h), c);
}

/** A transaction of a block as of an earlier index: its JSON and logs name that index's block hash. */
class TxAtIndex implements PendingTx {
  private tx: string | undefined;
  private receipt: string | undefined;
  private logsAt: RpcLog[] | undefined;
  constructor(
    private readonly t: PendingTx,
    private readonly latestHash: string,
    private readonly hash_: string,
  ) {}
  get hash(): string {
    return this.t.hash;
  }
  get from(): string {
    return this.t.from;
  }
  get to(): string | null {
    return this.t.to;
  }
  get raw(): Uint8Array {
    return this.t.raw;
  }
  get txJson(): string {
    return (this.tx ??= this.t.txJson.replaceAll(this.latestHash, this.hash_));
  }
  get receiptJson(): string {
    return (this.receipt ??= this.t.receiptJson.replaceAll(this.latestHash, this.hash_));
  }
  get logs(): RpcLog[] {
    return (this.logsAt ??= this.t.logs.map((l) => (l.blockHash === this.latestHash ? { ...l, blockHash: this.hash_ } : l)));
  }
}

/** A pending block as of an earlier flashblock index: its first `txCount` transactions, the header of that index. */
class BlockAtIndex implements PendingBlockView {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly index: number;
  readonly payloadId: string;
  readonly headerRlp: Uint8Array;
  readonly newTxCount: number;
  readonly txs: PendingTx[];
  private readonly around: [string, string];
  private json: [string | undefined, string | undefined, string | undefined] = [undefined, undefined, undefined];
  constructor(block: PendingBlockView, mark: FlashblockMark, marks: FlashblockMark[]) {
    this.number = block.number;
    this.hash = mark.hash;
    this.parentHash = block.parentHash;
    this.timestamp = block.timestamp;
    this.index = mark.index;
    this.payloadId = block.payloadId;
    this.headerRlp = mark.headerRlp;
    const before = marks[marks.indexOf(mark) - 1];
    this.newTxCount = mark.txCount - (before?.txCount ?? 0);
    this.txs = block.txs.slice(0, mark.txCount).map((t) => new TxAtIndex(t, block.hash, mark.hash));
    this.around = mark.around;
  }
  get blockJson(): string {
    return (this.json[0] ??= `${this.around[0]}[${this.txs.map((t) => JSON.stringify(t.hash)).join(",")}]${this.around[1]}`);
  }
  get blockJsonFull(): string {
    return (this.json[1] ??= `${this.around[0]}[${this.txs.map((t) => t.txJson).join(",")}]${this.around[1]}`);
  }
  get receiptsJson(): string {
    return (this.json[2] ??= `[${this.txs.map((t) => t.receiptJson).join(",")}]`);
  }
}
