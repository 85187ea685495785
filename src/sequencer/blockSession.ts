/**
 * An OP block built incrementally, the way Base's flashblocks builder does it: opened on the
 * head with the payload attributes of the block (its forced transactions applied at once),
 * then mempool transactions added step by step, each step published as a flashblock
 * (`FlashblocksPayloadV1`), then sealed into the executed block the sequencer commits.
 *
 * Flashblock 0 carries the block environment (`base`) and the forced transactions only; each
 * later flashblock carries the transactions added since the previous one. The sealed block holds
 * exactly the transactions of its flashblocks, in order, and is the block `buildOpPayload` gives
 * for those transactions (same executor, same header assembly).
 *
 * Each diff commits to the block so far as Base's builder does (see
 * /work/shared/reference/flashblocks.md §1.3): a zero state root (Base computes it only for the
 * sealed payload), the cumulative receipts root, bloom, gas used and Jovian DA footprint, the
 * withdrawals root (Isthmus: the L2ToL1MessagePasser storage root so far), and `block_hash` = the
 * hash of the partial block assembled with `assemblePartialBlock` — what a consumer re-executing
 * the flashblocks reproduces.
 *
 * Cost per flashblock is that of its own transactions: the transactions and receipts tries grow
 * (`GrowingBlockTries`), and the state root behind the withdrawals root is incremental (the seal
 * reuses it). The tries are keyed by path, so each intermediate state root overwrites the nodes
 * of the one before: the block stores what a one-shot build would.
 */
import { createBlock, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { bigIntToBytes, concatBytes, hexToBytes, KECCAK256_RLP, setLengthLeft } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { keccak256 } from "../util/keccak.js";
import { blockWriteOf, type Chain, type ExecutedBlock } from "../blockchain/chain.js";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { OpFork, type OpChainConfig } from "../chain/op/forks.js";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../chain/op/predeploys.js";
import { OpExecutionError, OpExecutionErrorCode } from "../execution/op/errors.js";
import { OpBlockExecutor, type OpTransaction } from "../execution/op/opBlockExecutor.js";
import { decodeOpTransaction, opHeaderTemplate, type OpPayloadAttributes, type PoolSource } from "../execution/op/opPayload.js";
import type { OverlayStateManager } from "../execution/state/overlayStateManager.js";
import { MAX_FLASHBLOCKS_PER_PAYLOAD, type FlashblockBase, type FlashblockId, type FlashblocksPayloadV1 } from "../flashblocks/codec.js";
import { assemblePartialBlock, GrowingBlockTries, headerTemplateFromBase } from "../flashblocks/partialBlock.js";
import { TypedError } from "../util/errors.js";
import { envelopeOf } from "../chain/envelope.js";
import { senderOf } from "../chain/sender.js";
import { fitsBuilderLimits } from "../execution/op/builderLimits.js";

/** Bytes of an engine PayloadId. */
const PAYLOAD_ID_BYTES = 8;
/** Bytes of a hash / root. */
const HASH_BYTES = 32;
/** Smallest gas a transaction can use: below this left in the block, no candidate can fit (as `buildOpPayload`). */
const MIN_TX_GAS = 21_000n;

/** Stable codes of {@link BlockSessionError}. */
const BlockSessionErrorCode = {
  /** A step was called before {@link BlockSession.begin} finished. */
  NOT_BEGUN: "BLOCK_SESSION_NOT_BEGUN",
  /** A step was called after {@link BlockSession.seal} (or a second `begin`). */
  CLOSED: "BLOCK_SESSION_CLOSED",
  /** Pool transactions were added before flashblock 0 (forced transactions only) was taken. */
  ORDER: "BLOCK_SESSION_ORDER",
  /** More flashblocks than `MAX_FLASHBLOCKS_PER_PAYLOAD` were asked for. */
  TOO_MANY_FLASHBLOCKS: "BLOCK_SESSION_TOO_MANY_FLASHBLOCKS",
} as const;
/** One of the {@link BlockSessionErrorCode} values. */
type BlockSessionErrorCodeT = (typeof BlockSessionErrorCode)[keyof typeof BlockSessionErrorCode];

/** A {@link BlockSessionError}'s code with its metadata. */
type BlockSessionErrorType = { code: BlockSessionErrorCodeT; number: string };

/** A block session used out of order (a programming error of its caller). */
export class BlockSessionError extends TypedError<BlockSessionErrorType> {
  constructor(code: BlockSessionErrorCodeT, number: bigint, message: string) {
    super({ code, number: number.toString() }, `block ${number} session: ${message}`);
  }
}

/** Options of a {@link BlockSession}. */
interface BlockSessionOptions {
  /** Mempool candidates (omit, or `attrs.noTxPool`, for a block of forced transactions only). */
  pool?: PoolSource;
  /**
   * The frame this block's flashblock 0 follows (`metadata.prev_flashblock_id`): the last
   * flashblock published for the previous block. Omitted on the wire when undefined.
   */
  prevFlashblockId?: FlashblockId;
}

/**
 * The payload id of a build: the first 8 bytes of `keccak256(parentHash ++ uint64_be(timestamp))`.
 * Deterministic and the same for every flashblock of one block; a block built on another parent
 * or at another time gets another id.
 */
function sessionPayloadId(parentHash: Uint8Array, timestamp: bigint): Uint8Array {
  return keccak256(concatBytes(parentHash, setLengthLeft(bigIntToBytes(timestamp), 8))).slice(0, PAYLOAD_ID_BYTES);
}

/** The flashblock `base` (block environment) of an OP header template (`opHeaderTemplate`). */
function flashblockBaseOf(template: Record<string, unknown>): FlashblockBase {
  return {
    parentBeaconBlockRoot: (template.parentBeaconBlockRoot as Uint8Array | undefined) ?? new Uint8Array(HASH_BYTES),
    parentHash: template.parentHash as Uint8Array,
    feeRecipient: template.coinbase as Uint8Array,
    prevRandao: template.mixHash as Uint8Array,
    blockNumber: template.number as bigint,
    gasLimit: template.gasLimit as bigint,
    timestamp: template.timestamp as bigint,
    extraData: template.extraData as Uint8Array,
    baseFeePerGas: template.baseFeePerGas as bigint,
  };
}


/**
 * One OP block under construction on the chain head. Use: `begin()` (forced transactions),
 * `flashblock()` (index 0), then any number of `addFromPool()` + `flashblock()` steps, then
 * `seal()`. Not re-entrant: the caller serializes the steps.
 */
export class BlockSession {
  /** Payload id of this build (see {@link sessionPayloadId}). */
  readonly payloadId: Uint8Array;
  /** Number of the block being built. */
  readonly number: bigint;
  /** Hash of the parent (the head when the session was created). */
  readonly parentHash: Uint8Array;
  /** Header fields known before execution (as `buildOpPayload` uses). */
  private readonly template: Record<string, unknown>;
  /** The environment published in flashblock 0. */
  readonly base: FlashblockBase;
  private readonly parent: BlockHeader;
  private readonly op: OpChainConfig;
  private readonly common: Common;
  private readonly state: OverlayStateManager;
  private vm: VM | undefined;
  private ex: OpBlockExecutor | undefined;
  /** Transactions and receipts tries grown frame by frame: a flashblock costs its own transactions, not the block's. */
  private tries: GrowingBlockTries | undefined;
  private readonly txs: OpTransaction[] = [];
  /** Hex hashes of the pool transactions applied, so a candidate is never applied twice. */
  private readonly included = new Set<string>();
  /** Senders with a pool candidate held back by the operator limits (miner_setGasLimit, miner_setMaxDASize) in this block: their later nonces wait too. */
  private readonly heldBack = new Set<string>();
  /** Estimated DA bytes of the pool transactions included so far (for miner_setMaxDASize's block limit). */
  private daUsed = 0n;
  /** Transactions already carried by a flashblock. */
  private published = 0;
  private nextIndex = 0;
  private prevId: FlashblockId | undefined;
  private closed = false;

  /** Prepares a build of the block after the chain head; nothing executes until {@link begin}. */
  constructor(
    private readonly chain: Chain,
    private readonly attrs: OpPayloadAttributes,
    private readonly opts: BlockSessionOptions = {},
  ) {
    const op = chain.op;
    if (op === undefined) throw new ChainError(ChainErrorCode.INVALID_BLOCK, "OP payload attributes on a chain that is not an OP Stack chain");
    this.op = op;
    this.parent = chain.head.header;
    this.parentHash = chain.head.hash();
    this.number = this.parent.number + 1n;
    this.common = chain.commonAt(this.number, attrs.timestamp);
    this.template = opHeaderTemplate(this.parent, attrs, op, this.common);
    this.base = flashblockBaseOf(this.template);
    this.payloadId = sessionPayloadId(this.parentHash, attrs.timestamp);
    this.prevId = opts.prevFlashblockId;
    this.state = chain.stateManagerAt(this.parent).state;
  }

  /** Index of the next flashblock {@link flashblock} returns. */
  get index(): number {
    return this.nextIndex;
  }

  /** Transactions applied so far (forced and pool), in block order. */
  get transactions(): readonly OpTransaction[] {
    return this.txs;
  }

  /** Transactions applied but not yet carried by a flashblock. */
  get unpublished(): number {
    return this.txs.length - this.published;
  }

  /** Id of the last flashblock returned (or the predecessor given at creation when none yet). */
  get lastFlashblockId(): FlashblockId | undefined {
    return this.prevId;
  }

  /** Whether {@link seal} was called. */
  get sealed(): boolean {
    return this.closed;
  }

  private executor(): OpBlockExecutor {
    if (this.closed) throw new BlockSessionError(BlockSessionErrorCode.CLOSED, this.number, "already sealed");
    if (this.ex === undefined) throw new BlockSessionError(BlockSessionErrorCode.NOT_BEGUN, this.number, "begin() has not completed");
    return this.ex;
  }

  /**
   * Starts the block: pre-transaction system calls, then every forced transaction of the
   * attributes (L1-attributes deposit, user deposits, upgrade deposits), which must all apply.
   */
  async begin(): Promise<void> {
    if (this.closed || this.vm !== undefined) throw new BlockSessionError(BlockSessionErrorCode.CLOSED, this.number, "begin() called twice");
    // A block at or after an upgrade basalt does not implement is never built (blockchain/upgradeGuard.ts).
    this.chain.upgrades.check(this.attrs.timestamp, { number: this.number, action: "build" });
    this.vm = await this.chain.makeVM(this.common, this.state, this.parentHash, this.attrs.timestamp);
    const envBlock = createBlock({ header: this.template }, { common: this.common, skipConsensusFormatValidation: true });
    const ex = new OpBlockExecutor(this.vm, envBlock, this.op, this.parent.timestamp);
    await ex.begin();
    for (const [i, raw] of this.attrs.transactions.entries()) {
      const tx = decodeOpTransaction(raw, this.common, i);
      await ex.apply(tx);
      this.txs.push(tx);
    }
    this.ex = ex;
    this.tries = new GrowingBlockTries(ex.fork);
  }

  /**
   * Applies mempool candidates that fit, in the pool's order, skipping those already in the
   * block; a candidate that cannot apply is skipped, and — unless it only lacked block gas or DA
   * room — reported to the pool's `reject` (as `buildOpPayload` does). Stops after `limit`
   * additions. Returns how many were added (0 with `noTxPool`, without a pool, or when no
   * flashblock index is left to carry them).
   */
  async addFromPool(limit = Number.POSITIVE_INFINITY): Promise<number> {
    const ex = this.executor();
    const pool = this.opts.pool;
    if (this.attrs.noTxPool || pool === undefined || limit <= 0) return 0;
    if (this.nextIndex === 0) {
      const why = "pool transactions are added after flashblock 0 (forced transactions only)";
      throw new BlockSessionError(BlockSessionErrorCode.ORDER, this.number, why);
    }
    if (this.nextIndex >= MAX_FLASHBLOCKS_PER_PAYLOAD) return 0;
    let added = 0;
    const gasLimit = this.template.gasLimit as bigint;
    for (const c of pool.candidates(this.base.baseFeePerGas)) {
      if (added >= limit || ex.gasLeft < MIN_TX_GAS) break;
      const key = Buffer.from(c.hash).toString("hex");
      if (this.included.has(key)) continue;
      let da = 0n;
      if (pool.limits?.active === true || this.heldBack.size > 0) {
        const sender = senderOf(c.tx).toString();
        if (this.heldBack.has(sender)) continue;
        const fit = fitsBuilderLimits(pool.limits, { envelope: () => envelopeOf(c.tx), txGasLimit: c.tx.gasLimit, gasUsed: gasLimit - ex.gasLeft, headerGasLimit: gasLimit, daUsed: this.daUsed });
        if (!fit.fits) {
          this.heldBack.add(sender);
          continue;
        }
        da = fit.da;
      }
      try {
        await ex.apply(c.tx);
        this.daUsed += da;
      } catch (e) {
        if (!(e instanceof OpExecutionError)) throw e;
        if (e.code !== OpExecutionErrorCode.BLOCK_GAS && e.code !== OpExecutionErrorCode.DA_FOOTPRINT) pool.reject?.(c.hash, e.message);
        continue;
      }
      this.txs.push(c.tx);
      this.included.add(key);
      added++;
    }
    return added;
  }

  /** The withdrawals root of the block so far (Isthmus: L2ToL1MessagePasser storage root; Canyon: empty list). */
  private async withdrawalsRootSoFar(fork: OpFork): Promise<Uint8Array> {
    if (fork >= OpFork.isthmus) {
      // Incremental: the trie work done here is reused by the next call and by seal().
      await this.state.getStateRoot();
      return this.state.storageRootOf(hexToBytes(L2_TO_L1_MESSAGE_PASSER_ADDRESS));
    }
    if (fork >= OpFork.canyon) return KECCAK256_RLP;
    return new Uint8Array(HASH_BYTES);
  }

  /**
   * The next flashblock: the transactions applied since the previous one (for index 0 the
   * forced transactions, with the block `base`), the cumulative commitments of the block so
   * far, and `metadata = {block_number, prev_flashblock_id}`. Returned even when no
   * transaction was added (Base publishes those too).
   */
  async flashblock(): Promise<FlashblocksPayloadV1> {
    const ex = this.executor();
    const index = this.nextIndex;
    if (index >= MAX_FLASHBLOCKS_PER_PAYLOAD) {
      const why = `flashblock index ${index} is not below MAX_FLASHBLOCKS_PER_PAYLOAD (${MAX_FLASHBLOCKS_PER_PAYLOAD})`;
      throw new BlockSessionError(BlockSessionErrorCode.TOO_MANY_FLASHBLOCKS, this.number, why);
    }
    const running = ex.runningTotals();
    const tries = this.tries!;
    await tries.extend(this.txs, running.receipts);
    const totals = { ...running, receiptsRoot: tries.receiptsRoot };
    const withdrawalsRoot = await this.withdrawalsRootSoFar(ex.fork);
    const partial = await assemblePartialBlock(this.common, headerTemplateFromBase(this.base, this.common), [...this.txs], totals, {
      stateRoot: new Uint8Array(HASH_BYTES),
      withdrawalsRoot,
      transactionsRoot: tries.transactionsRoot,
    });
    const fresh = this.txs.slice(this.published);
    const payload: FlashblocksPayloadV1 = {
      payloadId: this.payloadId,
      index,
      diff: {
        // Zero, as Base's builder publishes it: the state root is computed for the sealed payload only.
        stateRoot: new Uint8Array(HASH_BYTES),
        receiptsRoot: totals.receiptsRoot,
        logsBloom: totals.logsBloom,
        gasUsed: totals.gasUsed,
        blockHash: partial.hash(),
        transactions: fresh.map((tx) => tx.serialize()),
        withdrawals: [],
        withdrawalsRoot,
        blobGasUsed: totals.blobGasUsed,
      },
      metadata: { blockNumber: this.number },
    };
    if (index === 0) payload.base = this.base;
    if (this.prevId !== undefined) payload.metadata.prevFlashblockId = this.prevId;
    this.published = this.txs.length;
    this.nextIndex = index + 1;
    this.prevId = { block: this.number, index };
    return payload;
  }

  /**
   * Finishes the block (state root, withdrawals root) and returns it executed, ready for
   * `Chain.commitCanonical` — the same block `buildOpPayload` builds for these transactions.
   * Transactions not yet carried by a flashblock are included too; take a last
   * {@link flashblock} first to publish them. The session is closed afterwards.
   */
  async seal(): Promise<ExecutedBlock> {
    const ex = this.executor();
    this.closed = true;
    const totals = await ex.finish();
    const tries = this.tries!;
    await tries.extend(this.txs, totals.receipts);
    const block = await assemblePartialBlock(this.common, this.template, this.txs, totals, {
      stateRoot: totals.stateRoot,
      withdrawalsRoot: totals.withdrawalsRoot,
      transactionsRoot: tries.transactionsRoot,
    });
    return { block, gasUsed: totals.gasUsed, write: blockWriteOf(block, totals.receipts, totals.senders, this.state) };
  }
}
