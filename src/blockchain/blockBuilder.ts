/**
 * Builds a new block on the current head from mempool candidates: used by the Engine API's
 * engine_forkchoiceUpdated/engine_getPayload on Ethereum chains. The result is an executed block
 * ready to commit (same write path as imported blocks). The mempool is seen through a
 * {@link PoolSource} (`src/txpool/poolSource.ts` adapts the node's TxPool).
 */
import type { Block } from "@ethereumjs/block";
import { buildBlock } from "@ethereumjs/vm";
import type { PoolSource } from "../execution/op/opPayload.js";
import { blockWriteOf, type Chain, type ExecutedBlock } from "./chain.js";
import type { Log, StoredReceipt } from "../storage/types.js";
import type { TypedTransaction } from "@ethereumjs/tx";
import { TypedError } from "../util/errors.js";
import { watchRequestSystemCalls } from "../execution/systemCalls.js";
import { ethereumjsBlockFull, ethereumjsNonceMismatch } from "../util/foreignErrorText.js";

/** Attributes of a block to build (Engine API PayloadAttributes). */
interface BuildAttributes {
  timestamp: bigint;
  feeRecipient: Uint8Array;
  prevRandao: Uint8Array;
  withdrawals?: { index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }[];
  parentBeaconBlockRoot?: Uint8Array;
  gasLimit?: bigint;
  extraData?: Uint8Array;
  /** Build an empty block (no mempool transactions). */
  noTxPool?: boolean;
  /**
   * Exactly these transactions, in order, instead of the mempool's (testing_buildBlockV1): one
   * that cannot be applied fails the build with {@link BlockBuildError}.
   */
  transactions?: TypedTransaction[];
}

/** Stable code of {@link BlockBuildError}. */
const BlockBuildErrorCode = { BUILD_TX_REJECTED: "BLOCK_BUILD_TX_REJECTED" } as const;
/** A {@link BlockBuildError}'s code with its metadata. */
type BlockBuildErrorType = { code: typeof BlockBuildErrorCode.BUILD_TX_REJECTED; index: number };

/** A transaction given to {@link buildOnHead} could not be applied; the message says why. */
export class BlockBuildError extends TypedError<BlockBuildErrorType> {
  constructor(message: string, index: number) {
    super({ code: BlockBuildErrorCode.BUILD_TX_REJECTED, index }, message);
  }
}

/**
 * Builds and executes a block on the head; does not commit it.
 * @throws UnknownUpgradeError when `attrs.timestamp` is at or after an upgrade basalt does not implement ({@link Chain.upgrades}).
 */
export async function buildOnHead(chain: Chain, pool: PoolSource | undefined, attrs: BuildAttributes): Promise<ExecutedBlock> {
  const parent = chain.head;
  const number = parent.header.number + 1n;
  chain.upgrades.check(attrs.timestamp, { number, action: "build" });
  const common = chain.commonAt(number, attrs.timestamp);
  const { state } = chain.stateManagerAt(parent.header);
  const vm = await chain.makeVM(common, state, parent.hash());
  const headerData: Record<string, unknown> = {
    number,
    timestamp: attrs.timestamp,
    coinbase: attrs.feeRecipient,
    mixHash: attrs.prevRandao,
    gasLimit: attrs.gasLimit ?? parent.header.gasLimit,
    extraData: attrs.extraData ?? new Uint8Array(),
    difficulty: 0n,
    nonce: new Uint8Array(8),
  };
  if (common.isActivatedEIP(4788)) headerData.parentBeaconBlockRoot = attrs.parentBeaconBlockRoot ?? new Uint8Array(32);
  if (common.isActivatedEIP(4844)) {
    headerData.excessBlobGas = parent.header.common.isActivatedEIP(4844) ? parent.header.calcNextExcessBlobGas(common) : 0n;
  }
  // A missing or failing EIP-7002 / EIP-7251 request contract makes the block invalid: refuse to build it.
  const requestCalls = watchRequestSystemCalls(vm);
  const builder = await buildBlock(vm, {
    parentBlock: parent,
    headerData: headerData as never,
    withdrawals: common.isActivatedEIP(4895) ? (attrs.withdrawals ?? []) : undefined,
    blockOpts: { putBlockIntoBlockchain: false, calcDifficultyFromHeader: undefined } as never,
  });
  const senders: Uint8Array[] = [];
  if (attrs.transactions !== undefined) {
    for (const [i, tx] of attrs.transactions.entries()) {
      try {
        await builder.addTransaction(tx, { skipHardForkValidation: true });
      } catch (e) {
        throw new BlockBuildError(gethTxMessage((e as Error).message, tx), i);
      }
      senders.push(tx.getSenderAddress().bytes);
    }
  } else if (attrs.noTxPool !== true && pool !== undefined) {
    const baseFee = common.isActivatedEIP(1559) ? parent.header.calcNextBaseFee() : 0n;
    for (const p of pool.candidates(baseFee)) {
      try {
        await builder.addTransaction(p.tx, { skipHardForkValidation: true });
        senders.push(p.tx.getSenderAddress().bytes);
      } catch (e) {
        const msg = (e as Error).message;
        // Block full: leave it for the next block. Otherwise the tx can never apply here.
        if (!ethereumjsBlockFull(msg)) pool.reject?.(p.hash, msg);
      }
    }
  }
  const { block } = await builder.build();
  await requestCalls.check();
  await state.getStateRoot();
  const receipts: StoredReceipt[] = builder.transactionReceipts.map((r, i) => {
    const rec = r as unknown as { status?: 0 | 1; cumulativeBlockGasUsed: bigint; bitvector: Uint8Array; logs: [Uint8Array, Uint8Array[], Uint8Array][] };
    return {
      type: block.transactions[i].type,
      status: rec.status ?? 1,
      cumulativeGasUsed: rec.cumulativeBlockGasUsed,
      logs: rec.logs.map(([address, topics, data]): Log => ({ address, topics, data })),
      bloom: rec.bitvector,
    };
  });
  return { block: block as Block, gasUsed: block.header.gasUsed, write: blockWriteOf(block as Block, receipts, senders, state) };
}

/**
 * geth's message for the refusals @ethereumjs states only in its own words (nonce too high/low);
 * others keep the library's message.
 */
function gethTxMessage(message: string, tx: TypedTransaction): string {
  const nonces = ethereumjsNonceMismatch(message);
  if (nonces === undefined) return message.replace(/ \(block number=.*$/s, "").replace(/ \(tx type=.*$/s, "");
  const { state, given } = nonces;
  const from = tx.getSenderAddress().toString();
  return `${given > state ? "nonce too high" : "nonce too low"}: address ${from}, tx: ${given} state: ${state}`;
}
