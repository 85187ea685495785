/**
 * Building an OP block from payload attributes (what op-node / base-consensus send with
 * `engine_forkchoiceUpdated`, and what kona's stateless executor takes): the forced
 * transactions (L1-attributes deposit, user deposits, upgrade deposits, batch transactions)
 * first, then — unless `noTxPool` — mempool transactions; the header is assembled from the
 * parent, the attributes and the execution result. Also verifies an imported block by
 * re-executing its body and comparing every header commitment.
 */
import { Block, createBlock, createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import type { VM } from "@ethereumjs/vm";
import { DEPOSIT_TX_TYPE, DepositTransaction } from "../../chain/op/depositTx.js";
import { extraDataFromEip1559Params, opNextBaseFee } from "../../chain/op/eip1559.js";
import { OpFork, opForkAt, type OpChainConfig } from "../../chain/op/forks.js";
import { orderedTrieRoot } from "../../chain/orderedTrie.js";
import { type OpBlockExecutorOptions, OpBlockExecutor, type OpBlockTotals, type OpTransaction } from "./opBlockExecutor.js";
import { OpExecutionError, OpExecutionErrorCode } from "./errors.js";
import { TypedError } from "../../util/errors.js";
import { envelopeOf } from "../../chain/envelope.js";
import { senderOf } from "../../chain/sender.js";
import { fitsBuilderLimits, type BuilderLimits } from "./builderLimits.js";

/** OP payload attributes (specs exec-engine.md "Extended PayloadAttributes"). */
export interface OpPayloadAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Uint8Array;
  /** Ecotone+: the L1 origin's parent beacon block root. */
  parentBeaconBlockRoot?: Uint8Array;
  /** Forced transactions, EIP-2718 encoded, in order (the first is the L1-attributes deposit). */
  transactions: Uint8Array[];
  /** Only the forced transactions: no mempool transactions. */
  noTxPool: boolean;
  gasLimit: bigint;
  /** Holocene+: 8 bytes, denominator u32 BE ++ elasticity u32 BE; all zero = chain defaults. */
  eip1559Params?: Uint8Array;
  /** Jovian+: minimum base fee. */
  minBaseFee?: bigint;
}

/** Stable code of {@link OpTxDecodeError}. */
const OpTxDecodeErrorCode = { TX_DECODE: "OP_TX_DECODE" } as const;
/** A {@link OpTxDecodeError}'s code with its metadata. */
type OpTxDecodeErrorType = { code: typeof OpTxDecodeErrorCode.TX_DECODE };

/** A transaction that does not decode. */
export class OpTxDecodeError extends TypedError<OpTxDecodeErrorType> {
  constructor(index: number, why: string) {
    super({ code: OpTxDecodeErrorCode.TX_DECODE }, `transaction ${index} of the payload does not decode: ${why}`);
  }
}

/** Decodes an EIP-2718 transaction of an OP block (deposits included). */
export function decodeOpTransaction(bytes: Uint8Array, common: Common, index = 0): OpTransaction {
  try {
    if (bytes[0] === DEPOSIT_TX_TYPE) return DepositTransaction.fromSerialized(bytes);
    return createTxFromRLP(bytes, { common });
  } catch (e) {
    throw new OpTxDecodeError(index, (e as Error).message);
  }
}

/** The empty requests hash of Isthmus headers: sha256 of no requests (EIP-7685). */
export const EMPTY_REQUESTS_HASH = sha256(new Uint8Array(0));

/** Header fields known before execution (roots and gas are placeholders). */
export function opHeaderTemplate(parent: BlockHeader, attrs: OpPayloadAttributes, op: OpChainConfig, common: Common): Record<string, unknown> {
  const fork = opForkAt(op, attrs.timestamp);
  let extraData: Uint8Array = new Uint8Array(0);
  if (fork >= OpFork.holocene) {
    extraData = extraDataFromEip1559Params(
      attrs.eip1559Params ?? new Uint8Array(8),
      { denominator: op.eip1559DenominatorCanyon, elasticity: op.eip1559Elasticity },
      fork,
      attrs.minBaseFee,
    );
  }
  const h: Record<string, unknown> = {
    parentHash: parent.hash(),
    coinbase: attrs.suggestedFeeRecipient,
    number: parent.number + 1n,
    gasLimit: attrs.gasLimit,
    timestamp: attrs.timestamp,
    extraData,
    mixHash: attrs.prevRandao,
    difficulty: 0n,
    nonce: new Uint8Array(8),
    baseFeePerGas: opNextBaseFee(parent, op, attrs.timestamp),
  };
  if (common.isActivatedEIP(4895)) h.withdrawalsRoot = new Uint8Array(32); // set after execution
  if (common.isActivatedEIP(4844)) {
    h.blobGasUsed = 0n;
    h.excessBlobGas = 0n;
  }
  if (common.isActivatedEIP(4788)) h.parentBeaconBlockRoot = attrs.parentBeaconBlockRoot ?? new Uint8Array(32);
  if (common.isActivatedEIP(7685)) h.requestsHash = EMPTY_REQUESTS_HASH;
  return h;
}

/** The source of mempool transactions for a block being built. */
export interface PoolSource {
  /** Candidates in inclusion order for a block with this base fee. */
  candidates(baseFee: bigint): Iterable<{ tx: TypedTransaction; hash: Uint8Array }>;
  /** Called for a candidate that can never apply on this chain state (e.g. nonce too low). */
  reject?(hash: Uint8Array, reason: string): void;
  /** The operator limits (miner_setGasLimit, miner_setMaxDASize) candidates are selected under. */
  limits?: BuilderLimits;
}

/** A built OP block and its execution totals. */
export interface BuiltOpBlock {
  block: Block;
  totals: OpBlockTotals;
}

/**
 * Builds a block from `attrs` on `parent` using `vm` (whose state manager holds the
 * parent's state). Forced transactions must all apply; pool transactions that do not apply
 * are skipped.
 */
export async function buildOpPayload(vm: VM, common: Common, op: OpChainConfig, parent: BlockHeader, attrs: OpPayloadAttributes, pool?: PoolSource): Promise<BuiltOpBlock> {
  const template = opHeaderTemplate(parent, attrs, op, common);
  const envBlock = createBlock({ header: template }, { common, skipConsensusFormatValidation: true });
  const ex = new OpBlockExecutor(vm, envBlock, op, parent.timestamp);
  await ex.begin();
  const txs: OpTransaction[] = [];
  for (const [i, raw] of attrs.transactions.entries()) {
    const tx = decodeOpTransaction(raw, common, i);
    await ex.apply(tx);
    txs.push(tx);
  }
  if (!attrs.noTxPool && pool !== undefined) {
    // Senders with a candidate held back by the operator limits: their later nonces cannot apply either.
    const heldBack = new Set<string>();
    let daUsed = 0n;
    const gasLimit = envBlock.header.gasLimit;
    for (const c of pool.candidates(envBlock.header.baseFeePerGas ?? 0n)) {
      if (ex.gasLeft < 21_000n) break;
      let da = 0n;
      if (pool.limits?.active === true || heldBack.size > 0) {
        const sender = senderOf(c.tx).toString();
        if (heldBack.has(sender)) continue;
        const fit = fitsBuilderLimits(pool.limits, { envelope: () => envelopeOf(c.tx), txGasLimit: c.tx.gasLimit, gasUsed: gasLimit - ex.gasLeft, headerGasLimit: gasLimit, daUsed });
        if (!fit.fits) {
          heldBack.add(sender);
          continue;
        }
        da = fit.da;
      }
      try {
        await ex.apply(c.tx);
        txs.push(c.tx);
        daUsed += da;
      } catch (e) {
        if (!(e instanceof OpExecutionError)) throw e;
        if (e.code !== OpExecutionErrorCode.BLOCK_GAS && e.code !== OpExecutionErrorCode.DA_FOOTPRINT) pool.reject?.(c.hash, e.message);
      }
    }
  }
  const totals = await ex.finish();
  const header: Record<string, unknown> = {
    ...template,
    stateRoot: totals.stateRoot,
    receiptTrie: totals.receiptsRoot,
    logsBloom: totals.logsBloom,
    gasUsed: totals.gasUsed,
  };
  if (totals.withdrawalsRoot !== undefined) header.withdrawalsRoot = totals.withdrawalsRoot;
  if (common.isActivatedEIP(4844)) header.blobGasUsed = totals.blobGasUsed;
  const opts = { common, skipConsensusFormatValidation: true };
  const withdrawals = common.isActivatedEIP(4895) ? [] : undefined;
  header.transactionsTrie = orderedTrieRoot(txs.map(envelopeOf));
  const sealed = new Block(createBlockHeader(header as never, opts), txs as never, [], withdrawals, opts);
  return { block: sealed, totals };
}

/** Stable code of {@link OpBlockMismatchError}. */
const OpBlockMismatchErrorCode = { BLOCK_MISMATCH: "OP_BLOCK_MISMATCH" } as const;
/** A {@link OpBlockMismatchError}'s code with its metadata. */
type OpBlockMismatchErrorType = { code: typeof OpBlockMismatchErrorCode.BLOCK_MISMATCH; number: string; field: string };

/** A header commitment that does not match the re-executed body. */
export class OpBlockMismatchError extends TypedError<OpBlockMismatchErrorType> {
  constructor(number: bigint, field: string, got: string, want: string) {
    super({ code: OpBlockMismatchErrorCode.BLOCK_MISMATCH, number: number.toString(), field }, `block ${number}: ${field} is ${want} in the header but execution gives ${got}`);
  }
}

/**
 * Re-executes `block` on `vm` (parent state) and checks every header commitment: state,
 * receipts and transactions roots, bloom, gas used, blob gas (Jovian DA footprint), the
 * withdrawals root and the requests hash.
 */
export async function verifyOpBlock(vm: VM, block: Block, op: OpChainConfig, parent: BlockHeader, opts: OpBlockExecutorOptions = {}): Promise<OpBlockTotals & { fallbacks: number }> {
  const h = block.header;
  const ex = new OpBlockExecutor(vm, block, op, parent.timestamp, opts);
  await ex.begin();
  for (const tx of block.transactions as unknown as OpTransaction[]) await ex.apply(tx);
  const t = await ex.finish();
  const check = (field: string, got: Uint8Array | bigint | undefined, want: Uint8Array | bigint | undefined): void => {
    const g = got instanceof Uint8Array ? bytesToHex(got) : String(got);
    const w = want instanceof Uint8Array ? bytesToHex(want) : String(want);
    const same = got instanceof Uint8Array && want instanceof Uint8Array ? equalsBytes(got, want) : g === w;
    if (!same) throw new OpBlockMismatchError(h.number, field, g, w);
  };
  check("gasUsed", t.gasUsed, h.gasUsed);
  check("receiptsRoot", t.receiptsRoot, h.receiptTrie);
  check("logsBloom", t.logsBloom, h.logsBloom);
  check("stateRoot", t.stateRoot, h.stateRoot);
  check("transactionsRoot", orderedTrieRoot(block.transactions.map(envelopeOf)), h.transactionsTrie);
  if (h.withdrawalsRoot !== undefined || t.withdrawalsRoot !== undefined) check("withdrawalsRoot", t.withdrawalsRoot, h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) check("blobGasUsed", t.blobGasUsed, h.blobGasUsed);
  if (h.excessBlobGas !== undefined) check("excessBlobGas", 0n, h.excessBlobGas);
  if (h.requestsHash !== undefined) check("requestsHash", EMPTY_REQUESTS_HASH, h.requestsHash);
  return { ...t, fallbacks: ex.fallbacks };
}
