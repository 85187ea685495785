/**
 * Turns accepted flashblocks into pending state by executing them — the stream's metadata
 * (receipts, balances) is never trusted, as base/base has done since node-reth PR #300.
 *
 * The pending blocks form a chain on one canonical anchor: the first pending block executes on
 * the anchor's state, each later one on its predecessor's post-state (one overlay shared by
 * all). Each flashblock only executes the transactions it adds: the executor of its block is
 * kept between frames, so earlier results are reused. After each frame the partial block is
 * assembled exactly as the producer does (`partialBlock.ts`) and everything the RPC serves is
 * rendered once: block JSON (hashes and full), transaction and receipt JSON, logs, and the
 * absolute state diff. Transactions and receipts name their pending block's current hash; as
 * that hash changes with every frame, their JSON is cached as a template and the hash spliced
 * in per frame, so a frame costs its new transactions plus a copy of the rest.
 */
import { Block, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { bytesToHex, equalsBytes, hexToBytes } from "@ethereumjs/util";
import { randomBytes } from "node:crypto";
import type { ChainReader } from "../blockchain/chainReader.js";
import type { OpChainConfig } from "../chain/op/forks.js";
import { OpBlockExecutor, type AppliedTx, type OpTransaction } from "../execution/op/opBlockExecutor.js";
import { decodeOpTransaction } from "../execution/op/opPayload.js";
import { LazyOpVm } from "../execution/op/opVm.js";
import { opForkAt } from "../chain/op/forks.js";
import type { OverlayStateManager } from "../execution/state/overlayStateManager.js";
import { toData, toQuantity } from "../chain/json/quantity.js";
import { blockReceiptFormatter, type ReceiptFormatter } from "../chain/json/receipt.js";
import { formatTransaction } from "../chain/json/transaction.js";
import { TypedError } from "../util/errors.js";
import type { FlashblocksPayloadV1 } from "./codec.js";
import { envelopeOf, rememberEnvelope, txHashOf } from "../chain/envelope.js";
import { GrowingBlockTries, headerTemplateFromBase, PartialHeaderSeries, type PartialHeader } from "./partialBlock.js";
import { encodeWireTx, PENDING_SNAPSHOT_VERSION, type PendingStateDiff, type PreparedBlock, type PreparedSnapshot, type WireBlock } from "./pendingSnapshot.js";
import { encodeMark, MarkRecorder } from "./flashblockMarks.js";

/** Why a flashblock could not be applied. */
export type BuildFailure = "execution" | "decode" | "parent-unknown" | "not-next";

/** Stable code of {@link FastEngineMismatchError}. */
const FastEngineMismatchErrorCode = { FAST_EVM_MISMATCH: "FB_FAST_EVM_MISMATCH" } as const;
/** A {@link FastEngineMismatchError}'s code with its metadata. */
type FastEngineMismatchErrorType = { code: typeof FastEngineMismatchErrorCode.FAST_EVM_MISMATCH; block: string; index: number; fields: string[] };

/**
 * The fast EVM's result differs from the published diff: the caller rebuilds the pending block
 * on the reference engine ({@link PendingBuilder.useReferenceFor}) before anything is served.
 */
export class FastEngineMismatchError extends TypedError<FastEngineMismatchErrorType> {
  constructor(
    fb: FlashblocksPayloadV1,
    /** The fast engine's values of the differing fields. */
    readonly mismatches: DiffMismatch[],
  ) {
    const fields = mismatches.map((m) => m.field);
    super({ code: FastEngineMismatchErrorCode.FAST_EVM_MISMATCH, block: fb.metadata.blockNumber.toString(), index: fb.index, fields }, `flashblock ${fb.metadata.blockNumber}-${fb.index}: the fast EVM's ${fields.join(", ")} differ from the published diff`);
  }
}

/** Stable code of {@link FlashblocksChainError}. */
const FlashblocksChainErrorCode = { NOT_OP_CHAIN: "FB_NOT_OP_CHAIN" } as const;
/** A {@link FlashblocksChainError}'s code with its metadata (`chainId` decimal). */
type FlashblocksChainErrorType = { code: typeof FlashblocksChainErrorCode.NOT_OP_CHAIN; chainId: string };

/** Flashblocks asked of a chain without OP configuration (they are an OP Stack feature). */
class FlashblocksChainError extends TypedError<FlashblocksChainErrorType> {
  constructor(chainId: bigint) {
    super({ code: FlashblocksChainErrorCode.NOT_OP_CHAIN, chainId: chainId.toString() }, "flashblocks need an OP Stack chain; this chain has no OP configuration");
  }
}

/** Stable code of {@link PendingBuildError}. */
const PendingBuildErrorCode = { BUILD_FAILED: "FB_BUILD_FAILED" } as const;
/** A {@link PendingBuildError}'s code with its metadata. */
type PendingBuildErrorType = { code: typeof PendingBuildErrorCode.BUILD_FAILED; reason: BuildFailure; block: string; index: number };

/** A flashblock that cannot be turned into pending state; the previous snapshot stays. */
export class PendingBuildError extends TypedError<PendingBuildErrorType> {
  constructor(reason: BuildFailure, fb: FlashblocksPayloadV1, why: string) {
    const id = `${fb.metadata.blockNumber}-${fb.index}`;
    super({ code: PendingBuildErrorCode.BUILD_FAILED, reason, block: fb.metadata.blockNumber.toString(), index: fb.index }, `flashblock ${id}: ${why}`);
  }
  get reason(): BuildFailure {
    return this.type.reason;
  }
}

/** A diff field whose published value differs from what execution gives (counted, not fatal: basalt serves its own result). */
export interface DiffMismatch {
  field: "block_hash" | "receipts_root" | "gas_used" | "logs_bloom";
  block: bigint;
  index: number;
  published: string;
  computed: string;
}

/** A pending block under execution. */
interface BuildingBlock {
  number: bigint;
  payloadId: string;
  common: Common;
  template: Record<string, unknown>;
  /** The block's environment (the template as an ethereumjs block, no transactions). */
  env: Block;
  headers: PartialHeaderSeries;
  /** Formats each new receipt (built at the first transaction: it reads the L1-info deposit). */
  receipts?: ReceiptFormatter;
  executor: OpBlockExecutor;
  tries: GrowingBlockTries;
  txs: OpTransaction[];
  /** The transactions as received (EIP-2718 envelopes). */
  raws: Uint8Array[];
  applied: AppliedTx[];
  /** Each rendered transaction's encoded wire form (JSON with the placeholder for the block hash). */
  rendered: Uint8Array[];
  index: number;
  newTxCount: number;
  prepared?: PreparedBlock;
  /** Each applied flashblock's encoded mark (flashblockMarks.ts), by index order: the block as of each index. */
  marks: Uint8Array[];
}

/** Marker replaced by the transactions array in the block JSON templates. */
const TXS_MARKER = "__basalt_pending_txs__";

/** Length of the RLP prefix of an item (string or list) whose payload is `n` bytes long. */
function rlpPrefixLength(n: number): number {
  let len = 1;
  if (n >= 56) for (let v = n; v > 0; v = Math.floor(v / 256)) len++;
  return len;
}

/**
 * `size` of a block (length of its RLP) without serializing it: header, transactions (typed
 * ones as byte strings of their envelope, legacy ones as their own list), no ommers and, from
 * Shanghai (Canyon), an empty withdrawals list.
 */
function blockSize(headerRlpLength: number, rawTxs: readonly Uint8Array[], hasWithdrawals: boolean): number {
  let txs = 0;
  for (const raw of rawTxs) txs += raw[0]! >= 0xc0 ? raw.length : raw.length + rlpPrefixLength(raw.length);
  const payload = headerRlpLength + txs + rlpPrefixLength(txs) + 1 + (hasWithdrawals ? 1 : 0);
  return payload + rlpPrefixLength(payload);
}

/** Executes flashblocks into {@link PendingSnapshot}s (one instance, in the flashblocks worker). */
export class PendingBuilder {
  private readonly op: OpChainConfig;
  /** Stand-in block hash inside cached JSON; random per process so it cannot occur in real data. */
  private readonly placeholder = bytesToHex(randomBytes(32));
  private readonly placeholderBytes = hexToBytes(this.placeholder as `0x${string}`);
  private anchor: { number: bigint; hash: Uint8Array } | undefined;
  private state: OverlayStateManager | undefined;
  private blocks: BuildingBlock[] = [];
  /** Each frame's state delta, for the per-index marks. */
  private readonly recorder = new MarkRecorder();
  /** The pending state diff after the last rendered frame. */
  private diff: PendingStateDiff | undefined;
  /** Pending blocks run on the reference EVM (the fast engine disagreed with it on them). */
  private readonly referenceBlocks = new Set<bigint>();
  /** Report diff mismatches (off while a frame is re-executed for the reference check: they were reported). */
  private reporting = true;
  /** The mismatches of the last rendered frame (what the engine computed where the diff differs). */
  lastMismatches: DiffMismatch[] = [];

  constructor(
    private readonly chain: ChainReader,
    private readonly onMismatch: (m: DiffMismatch) => void = () => undefined,
  ) {
    if (chain.op === undefined) throw new FlashblocksChainError(chain.chainId);
    this.op = chain.op;
  }

  /** Runs pending block `number` on the reference EVM (the next {@link rebuild} included). */
  useReferenceFor(number: bigint): void {
    this.referenceBlocks.add(number);
    if (this.referenceBlocks.size > 16) this.referenceBlocks.delete(this.referenceBlocks.values().next().value!);
  }

  /**
   * Re-executes `frames` for the reference check of their last frame: mismatches of the frames
   * before it were reported when they were first applied, so only the last frame's are.
   */
  async recheck(frames: readonly FlashblocksPayloadV1[]): Promise<void> {
    this.clear();
    try {
      for (const [i, f] of frames.entries()) {
        this.reporting = i === frames.length - 1;
        await this.apply(f);
      }
    } finally {
      this.reporting = true;
    }
  }

  /** Whether any pending block is built. */
  get empty(): boolean {
    return this.blocks.length === 0;
  }

  /** Drops all pending state. */
  clear(): void {
    this.blocks = [];
    this.state = undefined;
    this.anchor = undefined;
    this.diff = undefined;
    this.recorder.reset();
  }

  /**
   * Applies an accepted frame: index 0 starts a block (on the canonical anchor, or on the
   * previous pending block), other indexes extend the latest block. On failure the builder is
   * left as it was before the frame only for decode errors; after an execution failure the
   * caller must {@link clear} or {@link rebuild}.
   */
  async apply(fb: FlashblocksPayloadV1): Promise<void> {
    if (fb.index === 0) await this.startBlock(fb);
    const b = this.blocks.at(-1);
    if (b === undefined || b.number !== fb.metadata.blockNumber || fb.index !== b.index + 1) {
      throw new PendingBuildError("not-next", fb, "does not extend the pending block being built");
    }
    const txs: OpTransaction[] = [];
    for (const [i, raw] of fb.diff.transactions.entries()) {
      try {
        const tx = decodeOpTransaction(raw, b.common, b.txs.length + i);
        // The received bytes are its envelope: the L1 fee, DA footprint, roots, hash and receipt fields use them as they are.
        rememberEnvelope(tx, raw);
        txs.push(tx);
      } catch (e) {
        throw new PendingBuildError("decode", fb, (e as Error).message);
      }
    }
    for (const tx of txs) {
      try {
        b.applied.push(await b.executor.apply(tx));
      } catch (e) {
        throw new PendingBuildError("execution", fb, (e as Error).message);
      }
      b.txs.push(tx);
    }
    b.raws.push(...fb.diff.transactions);
    b.index = fb.index;
    b.newTxCount = txs.length;
    await this.render(b, fb);
  }

  /** Re-executes `frames` (all accepted frames, in order) from scratch on the canonical chain. */
  async rebuild(frames: readonly FlashblocksPayloadV1[]): Promise<void> {
    this.clear();
    for (const f of frames) await this.apply(f);
  }

  /**
   * Index 0: the block executes on the previous pending block when it is the next one, else on
   * its canonical parent (a first pending block, or a new build of the only pending block).
   */
  private async startBlock(fb: FlashblocksPayloadV1): Promise<void> {
    const base = fb.base!;
    const last = this.blocks.at(-1);
    let parentTimestamp: bigint;
    if (last !== undefined && last.number + 1n === base.blockNumber && this.state !== undefined) {
      parentTimestamp = last.template.timestamp as bigint;
    } else {
      if (last !== undefined && last.number === base.blockNumber && this.blocks.length > 1) {
        throw new PendingBuildError("not-next", fb, "a new build of a pending block that is not the only one needs a rebuild");
      }
      const parent = this.chain.getHeaderByHash(base.parentHash);
      if (parent === undefined || !this.chain.isCanonical(base.parentHash)) {
        throw new PendingBuildError("parent-unknown", fb, `parent ${bytesToHex(base.parentHash)} is not a canonical block of this node`);
      }
      this.blocks = [];
      this.recorder.reset();
      this.anchor = { number: parent.number, hash: parent.hash() };
      this.state = this.chain.stateManagerAt(parent).state;
      parentTimestamp = parent.timestamp;
    }
    const common = this.chain.commonAt(base.blockNumber, base.timestamp);
    const template = headerTemplateFromBase(base, common);
    const env = createBlock({ header: template }, { common, skipConsensusFormatValidation: true });
    // The VM is built only if a transaction falls back to the reference engine.
    const vm = new LazyOpVm(common, this.state, this.blockHashes(base.blockNumber, base.parentHash), opForkAt(this.op, base.timestamp));
    const engine = this.referenceBlocks.has(base.blockNumber) ? "reference" : undefined;
    const executor = new OpBlockExecutor(vm, env, this.op, parentTimestamp, { engine });
    try {
      await executor.begin();
    } catch (e) {
      throw new PendingBuildError("execution", fb, (e as Error).message);
    }
    this.blocks.push({
      number: base.blockNumber,
      payloadId: toData(fb.payloadId),
      common,
      template,
      env,
      headers: new PartialHeaderSeries(env.header),
      executor,
      tries: new GrowingBlockTries(opForkAt(this.op, base.timestamp)),
      txs: [],
      raws: [],
      applied: [],
      rendered: [],
      index: -1,
      newTxCount: 0,
      marks: [],
    });
  }

  /** BLOCKHASH for a pending block: its parent is `parentHash` (base/base PR #3603), older ones come from pending parents then the canonical chain. */
  private blockHashes(number: bigint, parentHash: Uint8Array): { getBlock(n: number): Promise<{ hash(): Uint8Array }>; hashSync(n: bigint): Uint8Array; shallowCopy(): unknown } {
    const known = new Map<bigint, Uint8Array>([[number - 1n, parentHash]]);
    for (const b of this.blocks) known.set(b.number - 1n, b.template.parentHash as Uint8Array);
    const canonical = this.anchor === undefined ? undefined : this.chain.evmBlockchain(this.anchor.hash);
    const bc = {
      async getBlock(n: number) {
        const h = bc.hashSync(BigInt(n));
        return { hash: () => h };
      },
      hashSync(n: bigint): Uint8Array {
        return known.get(n) ?? canonical?.hashSync(n) ?? new Uint8Array(32);
      },
      shallowCopy() {
        return bc;
      },
    };
    return bc;
  }

  private async render(b: BuildingBlock, fb: FlashblocksPayloadV1): Promise<void> {
    const running = b.executor.runningTotals();
    b.tries.extend(b.txs, running.receipts);
    const totals = { ...running, receiptsRoot: b.tries.receiptsRoot };
    const header = b.headers.at(totals, { stateRoot: fb.diff.stateRoot, withdrawalsRoot: fb.diff.withdrawalsRoot, transactionsRoot: b.tries.transactionsRoot });
    const mismatches = this.checkDiff(fb, header, totals.receiptsRoot, totals.logsBloom);
    // A published value of all zeros is "not provided" (Base's builder sends a zero state root
    // mid-block); any other difference may be the fast engine's fault and is checked.
    const suspect = mismatches.filter((m) => !/^0x0*$/.test(m.published) && m.published !== "0");
    if (suspect.length > 0 && b.executor.engineName === "fast") throw new FastEngineMismatchError(fb, suspect);
    this.lastMismatches = mismatches;
    if (this.reporting) for (const m of mismatches) this.onMismatch(m);
    const first = b.rendered.length;
    for (let i = first; i < b.txs.length; i++) b.rendered.push(this.renderTx(b, totals.receipts, totals.senders, i));
    const wire = this.wireBlock(b, header);
    // The state as of this index: what this frame changed in the pending diff.
    this.diff = this.stateDiff();
    b.marks.push(encodeMark({ index: b.index, txCount: b.txs.length, hash: wire.hash, headerRlp: wire.headerRlp, around: wire.around!, state: this.recorder.next(this.diff) }));
    wire.marks = b.marks.slice();
    b.prepared = { wire, txs: b.rendered };
  }

  /** The absolute pending state diff (over the anchor) after the transactions applied so far. */
  private stateDiff(): PendingStateDiff {
    const changes = this.state!.changes();
    const code: [Uint8Array, Uint8Array][] = [];
    for (const [h, c] of this.state!.writtenCode()) code.push([new Uint8Array(Buffer.from(h.replace(/^0x/, ""), "hex")), c]);
    return {
      accounts: changes.accounts.map((a) => [a.address!, a.after ?? null]),
      // A wiped account's earlier slots (known by hash only) are covered by `cleared`.
      storage: changes.storage.filter((s) => s.slot !== undefined).map((s) => [s.address!, s.slot!, s.after]),
      cleared: changes.cleared,
      code,
    };
  }

  /** The diff fields whose published value differs from the executed one. */
  private checkDiff(fb: FlashblocksPayloadV1, header: PartialHeader, receiptsRoot: Uint8Array, bloom: Uint8Array): DiffMismatch[] {
    const out: DiffMismatch[] = [];
    const report = (field: DiffMismatch["field"], published: Uint8Array | bigint, computed: Uint8Array | bigint): void => {
      const same = published instanceof Uint8Array ? equalsBytes(published, computed as Uint8Array) : published === computed;
      if (!same) {
        const s = (v: Uint8Array | bigint): string => (v instanceof Uint8Array ? bytesToHex(v) : v.toString());
        out.push({ field, block: fb.metadata.blockNumber, index: fb.index, published: s(published), computed: s(computed) });
      }
    };
    report("gas_used", fb.diff.gasUsed, header.gasUsed);
    report("receipts_root", fb.diff.receiptsRoot, receiptsRoot);
    report("logs_bloom", fb.diff.logsBloom, bloom);
    report("block_hash", fb.diff.blockHash, header.hash);
    return out;
  }

  /**
   * Renders transaction `i` once and encodes it for the wire. Its JSON names the placeholder
   * where the block hash goes (the reader splices in each frame's hash).
   */
  private renderTx(b: BuildingBlock, receipts: AppliedTx["receipt"][], senders: Uint8Array[], i: number): Uint8Array {
    const tx = b.txs[i]!;
    const sender = senders[i]!;
    const opts = { op: this.op };
    const header = b.env.header;
    const txObj = formatTransaction(
      tx as never,
      {
        blockHash: this.placeholderBytes,
        blockNumber: header.number,
        blockTimestamp: header.timestamp,
        index: i,
        baseFee: header.baseFeePerGas,
        sender,
        receipt: receipts[i],
      },
      undefined,
      opts,
    );
    // The receipt context reads the block's first transaction (the L1-info deposit on OP chains).
    b.receipts ??= blockReceiptFormatter(new Block(header, [b.txs[0]!] as never, [], header.withdrawalsRoot === undefined ? undefined : [], { common: b.common }), opts, this.placeholderBytes);
    const receipt = b.receipts(tx as never, receipts, senders, i);
    return encodeWireTx([
      toData(txHashOf(tx)),
      toData(sender),
      tx.to === undefined ? null : toData(tx.to.bytes),
      JSON.stringify(txObj),
      JSON.stringify(receipt),
      // The reader sets each log's blockHash (in place: the key keeps its position).
      receipt.logs,
      envelopeOf(tx),
    ]);
  }

  /**
   * The block's wire header for this frame: the header JSON (which names the new hash) as the
   * text around its transactions list; the transactions' encoded JSON is reused as it is.
   */
  private wireBlock(b: BuildingBlock, header: PartialHeader): WireBlock {
    const o: Record<string, unknown> = { ...header.json(), size: toQuantity(blockSize(header.rlp.length, b.raws, b.env.header.withdrawalsRoot !== undefined)), transactions: TXS_MARKER, uncles: [] };
    if (b.env.header.withdrawalsRoot !== undefined) o.withdrawals = [];
    const sorted = Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
    const json = JSON.stringify(sorted);
    const marker = `"${TXS_MARKER}"`;
    const at = json.indexOf(marker);
    return {
      number: Number(b.number),
      hash: toData(header.hash),
      parentHash: toData(b.template.parentHash as Uint8Array),
      timestamp: Number(b.template.timestamp as bigint),
      index: b.index,
      payloadId: b.payloadId,
      headerRlp: header.rlp,
      newTxCount: b.newTxCount,
      txCount: b.rendered.length,
      placeholder: this.placeholder,
      around: [json.slice(0, at), json.slice(at + marker.length)],
    };
  }

  /** The snapshot of the current pending state (undefined when none), its transactions already encoded. */
  snapshot(fb: FlashblocksPayloadV1, receivedAt: number, now: number): PreparedSnapshot | undefined {
    if (this.anchor === undefined || this.state === undefined || this.blocks.length === 0) return undefined;
    const blocks: PreparedBlock[] = [];
    // A block's rendered list only grows while it is prepared: its length at this frame is the wire's txCount.
    for (const b of this.blocks) if (b.prepared !== undefined) blocks.push({ wire: b.prepared.wire, txs: b.rendered.slice(0, b.prepared.wire.txCount) });
    return {
      version: PENDING_SNAPSHOT_VERSION,
      anchor: { number: Number(this.anchor.number), hash: toData(this.anchor.hash) },
      blocks,
      // Every frame is rendered after it is applied, so the diff of the last render is current.
      state: this.diff ?? this.stateDiff(),
      flashblock: { block: Number(fb.metadata.blockNumber), index: fb.index },
      receivedAt,
      executedAt: now,
    };
  }
}
