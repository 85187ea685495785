/**
 * The derivation pipeline (specs derivation.md "L2 Chain Derivation Pipeline", Holocene rules):
 * L1 traversal → retrieval (calldata and blobs of the batcher at each L1 block) → the Holocene
 * channel assembler → channel reader → batch stream → payload attributes. Pulled one step at a
 * time by {@link DerivationPipeline.step}; the engine side (making the attributes a safe block)
 * is the caller's, which reports the new safe head with {@link DerivationPipeline.onSafeHead}.
 *
 * Holocene's rules only: a start before Holocene's activation on L1 is refused
 * (`DERIVATION_PRE_HOLOCENE`), since the pre-Holocene channel bank and batch queue are not here.
 *
 * State is what one run needs; nothing is persisted here. A (re)start is a {@link reset} from the
 * chain's safe head, as Holocene's sync start prescribes (holocene/derivation.md "Sync Start"):
 * the safe head goes back while its L1 origin — or the L1 block it was derived from, when known —
 * is no longer on L1; the traversal then starts one channel timeout of L1 blocks before the safe
 * head's origin, so a channel begun before it is read whole (the batches it repeats are past and
 * skipped).
 */
import type { Block } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import type { DepositTransaction } from "../chain/op/depositTx.js";
import type { RollupConfig } from "../chain/op/rollupConfig.js";
import { applyConfigUpdates, systemConfigFromL2Block, type SystemConfig } from "../chain/op/systemConfig.js";
import { fromHex, to0x } from "../util/bytes.js";
import { configUpdatesOf, l1OriginDeposits, type L1ConfigUpdate } from "./attributesL1.js";
import { HoloceneBatchStream, type BatchStreamRules } from "./batchStream.js";
import { forkActive, type L1BlockRef } from "./batchValidity.js";
import { bloomMayContain } from "../util/bloom.js";
import { readChannel } from "./channel.js";
import { ChannelAssembler, channelTimeout, type FrameDrop } from "./channelAssembler.js";
import { DerivationError, DerivationErrorCode } from "./errors.js";
import type { Frame } from "./frame.js";
import type { L1Block, L1BlockInfo, L1ReceiptLogs } from "./l1Source.js";
import { l2RefOf, type SafeRef } from "./l2Refs.js";
import { AttributesError, buildPayloadAttributes, type BuiltAttributes } from "./payloadAttributes.js";
import { retrieveFrames, type BlobSource, type RetrievedData } from "./retrieval.js";

/** The L1 as the pipeline reads it (an `L1Source` fits). */
export interface PipelineL1 {
  blockByNumber(n: bigint | "latest" | "finalized"): Promise<L1Block | undefined>;
  receipts(hash: Uint8Array): Promise<L1ReceiptLogs[]>;
}

/** The L2 chain as the pipeline reads it (a read-only `Chain` fits). */
export interface PipelineL2 {
  /** The safe head (the genesis block when nothing is safe yet). */
  safeBlock(): Block;
  /** The canonical block at `n`. */
  getBlockByNumber(n: bigint): Block | undefined;
  /** A stored block by hash. */
  getBlockByHash(hash: Uint8Array): Block | undefined;
}

/** What the pipeline tells its caller about drops and data, for metrics and warnings. */
interface PipelineEvents {
  retrieved?(l1: L1BlockInfo, data: RetrievedData): void;
  framesDropped?(drop: FrameDrop, l1: L1BlockInfo): void;
  channelRead?(outcome: "ready" | "error", batches: number, error?: string): void;
  batchDropped?(reason: string, blocks: number): void;
  l1BlockRead?(l1: L1BlockInfo, receiptsFetched: boolean): void;
}

/** One step's outcome. */
export type PipelineStep =
  /** The next safe block's attributes, to be applied on `parent` (the safe head). */
  | { kind: "attributes"; parent: SafeRef; built: BuiltAttributes; systemConfig: SystemConfig; derivedFrom: L1BlockRef & { parentHash: Uint8Array }; empty: boolean }
  /** Work was done (an L1 block read, a channel read, a batch dropped); step again. */
  | { kind: "progress" }
  /** At the L1 head with nothing left to derive: wait for the next L1 block. */
  | { kind: "idle" }
  /** The L1 reorganized under the pipeline (or attributes could not follow the safe head): reset. */
  | { kind: "reset"; reason: string };

/** What a reset found. */
interface ResetResult {
  /** The safe head derivation continues from (earlier than the chain's when the L1 reorganized). */
  safe: SafeRef;
  /** True when the safe head had to go back. */
  rewound: boolean;
  /** The L1 block the traversal starts at. */
  start: L1BlockRef;
}

/** An L1 block derivation has read: header fields, and what its receipts hold for the rollup. */
interface L1Entry {
  info: L1BlockInfo;
  deposits: DepositTransaction[];
  configUpdates: L1ConfigUpdate[];
}

/** An L1 block's reference (with its parent hash, which `optimism_syncStatus` reports). */
const ref = (i: L1BlockInfo): L1BlockRef & { parentHash: Uint8Array } => ({ number: i.number, hash: i.hash, timestamp: i.timestamp, parentHash: i.parentHash });

/** See the module comment. */
export class DerivationPipeline {
  private readonly assembler: ChannelAssembler;
  private readonly stream: HoloceneBatchStream;
  private readonly portal: Uint8Array;
  private readonly systemConfigAddress: Uint8Array;
  /** L1 blocks read, from the traversal start up to the origin (pruned below the safe head's epoch). */
  private readonly window = new Map<bigint, L1Entry>();
  /** The L1 block the traversal is at. */
  private origin: L1Entry | undefined;
  /** The SystemConfig as of the origin (batcher authentication). */
  private traversalConfig: SystemConfig | undefined;
  /** Frames of the origin not yet given to the assembler. */
  private frames: Frame[] = [];
  /** Every frame of the origin has gone to the assembler and the batch stream has been asked once since. */
  private outOfData = false;
  private safe: SafeRef | undefined;
  private safeConfig: SystemConfig | undefined;
  /** The L1 block each safe block of this run was derived from (finality; L1 reorgs). */
  private readonly derivedFrom = new Map<bigint, { hash: Uint8Array; l1: L1BlockRef }>();

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: PipelineL1,
    private readonly blobs: BlobSource | undefined,
    private readonly l2: PipelineL2,
    private readonly events: PipelineEvents = {},
  ) {
    const rules: BatchStreamRules = cfg;
    this.assembler = new ChannelAssembler(cfg);
    this.stream = new HoloceneBatchStream(rules);
    this.portal = fromHex(cfg.depositContractAddress);
    this.systemConfigAddress = fromHex(cfg.l1SystemConfigAddress);
  }

  /** The L1 block the pipeline is at (`current_l1`). */
  get currentL1(): (L1BlockRef & { parentHash: Uint8Array }) | undefined {
    return this.origin === undefined ? undefined : ref(this.origin.info);
  }

  /** The safe head the pipeline derives on. */
  get safeHead(): SafeRef | undefined {
    return this.safe;
  }

  /** The L1 block safe block `number` was derived from, when derived in this run (or recorded at reset). */
  derivedFromOf(number: bigint): L1BlockRef | undefined {
    return this.derivedFrom.get(number)?.l1;
  }

  /** The newest safe block derived from L1 blocks at or below `l1Number` (finality), if any. */
  newestDerivedAtOrBelow(l1Number: bigint): { number: bigint; hash: Uint8Array } | undefined {
    let best: { number: bigint; hash: Uint8Array } | undefined;
    for (const [number, d] of this.derivedFrom) {
      if (d.l1.number <= l1Number && (best === undefined || number > best.number)) best = { number, hash: d.hash };
    }
    return best;
  }

  /** Forgets derived-from records at or below `number` (they are final). */
  forgetUpTo(number: bigint): void {
    for (const n of [...this.derivedFrom.keys()]) if (n <= number) this.derivedFrom.delete(n);
  }

  private systemConfigOf(block: Block): SystemConfig {
    return systemConfigFromL2Block(block, this.cfg);
  }

  /** Whether L1 block `b` is on the L1 now. */
  private async onL1(b: { number: bigint; hash: Uint8Array }): Promise<boolean> {
    const got = await this.l1.blockByNumber(b.number);
    return got !== undefined && equalsBytes(got.info.hash, b.hash);
  }

  /**
   * Starts (again) from the chain's safe head: see the module comment. `l1Head` is recorded as
   * the derived-from block of a safe head this run did not derive (an upper bound: it was derived
   * from L1 blocks at or below the L1 head of now).
   */
  async reset(): Promise<ResetResult> {
    this.assembler.reset();
    this.stream.reset();
    this.window.clear();
    this.frames = [];
    this.outOfData = false;
    const chainSafe = this.l2.safeBlock();
    let block = chainSafe;
    // Back while the block's L1 origin, or the L1 block it was derived from, is not on L1 any more.
    for (;;) {
      const r = l2RefOf(block, this.cfg);
      if (r.number <= this.cfg.genesis.l2.number) break;
      const d = this.derivedFrom.get(r.number);
      const originOk = await this.onL1({ number: r.l1Origin.number, hash: r.l1Origin.hash });
      const derivedOk = d === undefined || !equalsBytes(d.hash, r.hash) || (await this.onL1(d.l1));
      if (originOk && derivedOk) break;
      const parent = this.l2.getBlockByHash(block.header.parentHash);
      if (parent === undefined) break;
      block = parent;
    }
    const safe = l2RefOf(block, this.cfg);
    for (const n of [...this.derivedFrom.keys()]) if (n > safe.number) this.derivedFrom.delete(n);
    // The traversal starts one channel timeout before the safe head's origin, at the origin of an L2 block there.
    const safeOrigin = await this.l1.blockByNumber(safe.l1Origin.number);
    if (safeOrigin === undefined) {
      throw new DerivationError({ code: DerivationErrorCode.L1_BLOCK_MISSING, l1Number: safe.l1Origin.number.toString() }, `the L1 has no block ${safe.l1Origin.number}, the origin of safe L2 block ${safe.number}: is --l1.rpc the rollup's L1, and synced?`);
    }
    if (safe.number === this.cfg.genesis.l2.number && !equalsBytes(safeOrigin.info.hash, safe.l1Origin.hash)) {
      const t = { code: DerivationErrorCode.GENESIS_L1_MISMATCH, l1Number: safe.l1Origin.number.toString(), expected: to0x(safe.l1Origin.hash), got: to0x(safeOrigin.info.hash) } as const;
      throw new DerivationError(t, `L1 block ${t.l1Number} is ${t.got}, but the rollup is anchored to ${t.expected}: --l1.rpc serves another L1`);
    }
    const back = channelTimeout(this.cfg, safeOrigin.info.timestamp);
    let start = block;
    for (;;) {
      const r = l2RefOf(start, this.cfg);
      if (r.number <= this.cfg.genesis.l2.number || r.l1Origin.number + back <= safe.l1Origin.number) break;
      const parent = this.l2.getBlockByHash(start.header.parentHash);
      if (parent === undefined) break;
      start = parent;
    }
    const startRef = l2RefOf(start, this.cfg);
    const startL1 = startRef.l1Origin.number === safeOrigin.info.number ? safeOrigin : await this.l1.blockByNumber(startRef.l1Origin.number);
    if (startL1 === undefined) {
      throw new DerivationError({ code: DerivationErrorCode.L1_BLOCK_MISSING, l1Number: startRef.l1Origin.number.toString() }, `the L1 has no block ${startRef.l1Origin.number}, where derivation restarts`);
    }
    // Holocene's rules apply from the first L1 block at or after holocene_time (holocene/derivation.md
    // "Activation"); the stages before it (channel bank, batch queue) are not implemented.
    const holocene = this.cfg.forkTimes.holocene;
    if (holocene === undefined || safeOrigin.info.timestamp < holocene) {
      const t = { code: DerivationErrorCode.PRE_HOLOCENE, l1Number: safeOrigin.info.number.toString(), l1Timestamp: safeOrigin.info.timestamp.toString(), holoceneTime: String(holocene ?? "unscheduled") } as const;
      throw new DerivationError(
        t,
        `derivation would start at L1 block ${t.l1Number} (time ${t.l1Timestamp}), before Holocene (${t.holoceneTime}): basalt derives with Holocene's rules only — start from a datadir whose safe head is past Holocene (basalt snapshot import), or follow a trusted RPC without --l1.rpc`,
      );
    }
    this.safe = safe;
    this.safeConfig = this.systemConfigOf(block);
    // The start block's system config already includes its L1 origin's updates.
    this.traversalConfig = this.systemConfigOf(start);
    await this.enter(startL1, false);
    return { safe, rewound: !equalsBytes(safe.hash, chainSafe.hash()), start: ref(startL1.info) };
  }

  /**
   * Records that safe block `safe` (on the chain now) was derived from L1 block `l1` — used at
   * start for a safe head this run did not derive.
   */
  recordDerivedFrom(safe: { number: bigint; hash: Uint8Array }, l1: L1BlockRef): void {
    this.derivedFrom.set(safe.number, { hash: safe.hash, l1 });
  }

  /** Reads an L1 block's receipts when its bloom may hold the rollup's logs, and its frames; makes it the origin. */
  private async enter(block: L1Block, applyUpdates: boolean): Promise<void> {
    const info = block.info;
    const bloom = info.logsBloom;
    const needReceipts = bloom === undefined || bloomMayContain(bloom, this.portal) || bloomMayContain(bloom, this.systemConfigAddress);
    let receipts: L1ReceiptLogs[] = [];
    if (needReceipts) receipts = await this.l1.receipts(info.hash);
    const asStored = receipts.map((r) => ({ status: r.status ? (1 as const) : (0 as const), logs: r.logs }));
    const configUpdates = configUpdatesOf(asStored, this.systemConfigAddress, this.cfg, info.timestamp);
    const config = applyUpdates ? applyConfigUpdates(this.traversalConfig!, configUpdates) : this.traversalConfig!;
    // Retrieval before any state changes: a beacon failure leaves the pipeline where it was.
    const data = await retrieveFrames(block, config.batcherAddress, this.blobs);
    // Deposits decode last: a malformed one is critical (nothing after this L1 block can be derived).
    const deposits = l1OriginDeposits(asStored, this.portal, info.hash);
    this.events.l1BlockRead?.(info, needReceipts);
    this.events.retrieved?.(info, data);
    this.traversalConfig = config;
    const entry: L1Entry = { info, deposits, configUpdates };
    this.window.set(info.number, entry);
    this.origin = entry;
    this.frames = data.frames;
    this.outOfData = false;
    for (const drop of this.assembler.advance(ref(info)).dropped) this.events.framesDropped?.(drop, info);
  }

  /** The L1 blocks from the safe head's epoch up to the origin, in order. */
  private l1View(): L1BlockInfo[] {
    const out: L1BlockInfo[] = [];
    const from = this.safe!.l1Origin.number;
    for (let n = from; this.origin !== undefined && n <= this.origin.info.number; n++) {
      const e = this.window.get(n);
      if (e === undefined) return [];
      out.push(e.info);
    }
    return out;
  }

  /** One step (see {@link PipelineStep}). Rejects on L1 or beacon errors; the state is unchanged then, so the caller retries. */
  async step(): Promise<PipelineStep> {
    const safe = this.safe;
    const origin = this.origin;
    if (safe === undefined || origin === undefined) throw new Error("derivation pipeline: step before reset");
    const l1Blocks = this.l1View();
    const next = this.stream.next(safe, { l1Blocks, outOfData: this.outOfData }, (n) => {
      const b = this.l2.getBlockByNumber(n);
      return b === undefined || n > safe.number ? undefined : l2RefOf(b, this.cfg);
    });
    if (next.kind === "batch") {
      const entry = this.window.get(next.batch.epochNum);
      if (entry === undefined || !equalsBytes(entry.info.hash, next.batch.epochHash)) return { kind: "reset", reason: `batch epoch ${next.batch.epochNum} is not an L1 block read` };
      const epochChange = entry.info.number !== safe.l1Origin.number;
      const systemConfig = epochChange ? applyConfigUpdates(this.safeConfig!, entry.configUpdates) : this.safeConfig!;
      try {
        const built = buildPayloadAttributes(this.cfg, { parent: safe, l1Origin: entry.info, systemConfig, deposits: entry.deposits, transactions: next.batch.transactions });
        return { kind: "attributes", parent: safe, built, systemConfig, derivedFrom: ref(origin.info), empty: next.empty };
      } catch (e) {
        if (e instanceof AttributesError) return { kind: "reset", reason: e.message };
        throw e;
      }
    }
    if (next.kind === "dropped") {
      this.events.batchDropped?.(next.reason, next.blocks);
      return { kind: "progress" };
    }
    const frame = this.frames.shift();
    if (frame !== undefined) {
      const step = this.assembler.add(frame, ref(origin.info));
      for (const drop of step.dropped) this.events.framesDropped?.(drop, origin.info);
      if (step.ready !== undefined) {
        const read = await readChannel(step.ready.data, { fjord: forkActive(this.cfg, "fjord", origin.info.timestamp) });
        this.events.channelRead?.(read.error === undefined ? "ready" : "error", read.batches.length, read.error?.message);
        this.stream.pushChannel(read.batches, step.ready.closedAt);
      }
      return { kind: "progress" };
    }
    if (!this.outOfData) {
      // Ask the batch stream once more knowing the origin has no more data (empty batches at the window's end).
      this.outOfData = true;
      return { kind: "progress" };
    }
    const nextL1 = await this.l1.blockByNumber(origin.info.number + 1n);
    if (nextL1 === undefined) return { kind: "idle" };
    if (!equalsBytes(nextL1.info.parentHash, origin.info.hash)) {
      return { kind: "reset", reason: `L1 block ${nextL1.info.number}'s parent is ${to0x(nextL1.info.parentHash)}, not ${to0x(origin.info.hash)}: the L1 reorganized` };
    }
    await this.enter(nextL1, true);
    return { kind: "progress" };
  }

  /**
   * The engine made the attributes of the last step safe block `safe` (the same, or a
   * deposits-only block after an invalid payload, `invalidPayload`), derived from L1 block `l1`.
   */
  onSafeHead(safe: SafeRef, systemConfig: SystemConfig, l1: L1BlockRef, invalidPayload = false): void {
    this.safe = safe;
    this.safeConfig = systemConfig;
    this.derivedFrom.set(safe.number, { hash: safe.hash, l1 });
    // Holocene: an invalid payload drops the rest of its span batch and channel.
    if (invalidPayload) this.stream.reset();
    for (const n of [...this.window.keys()]) if (n < safe.l1Origin.number) this.window.delete(n);
  }
}
