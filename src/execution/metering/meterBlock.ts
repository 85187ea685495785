/**
 * base_meterBlockByHash / base_meterBlockByNumber: re-executes a stored block on its parent's
 * state and measures, in wall-clock microseconds (`performance.now()`), the signer recovery of
 * its transactions, the EVM execution of the block (its pre-transaction system calls included)
 * and of each transaction, and the state root computation after it (base/base v0.6.0-rc.19
 * `crates/client/metering/src/block.rs`: the same three phases, `totalTimeUs` their sum).
 * Runs on the execution pool's workers (never the RPC thread).
 */
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import { envelopeOf } from "../../chain/envelope.js";
import { isDeposit } from "../../chain/op/depositTx.js";
import { flzCompressLen } from "../../chain/op/fastlz.js";
import { senderOf } from "../../chain/sender.js";
import { keccak256 } from "../../util/keccak.js";
import type { CallChain } from "../callExecutor.js";
import { OpBlockExecutor, type OpTransaction } from "../op/opBlockExecutor.js";
import { decodeOpTransaction } from "../op/opPayload.js";
import { MeteringError, MeteringErrorCode } from "./errors.js";

/** Microseconds between two `performance.now()` readings, truncated (Rust `Duration::as_micros`). */
export function micros(startMs: number, endMs: number): number {
  return Math.floor((endMs - startMs) * 1000);
}

/** One transaction's metering in a block (Base `MeterBlockTransactions`). */
interface MeteredBlockTx {
  txHash: string;
  gasUsed: number;
  executionTimeUs: number;
}

/** Base `MeterBlockResponse`, field order as Base serializes it. */
export interface MeterBlockResponse {
  blockHash: string;
  blockNumber: number;
  signerRecoveryTimeUs: number;
  executionTimeUs: number;
  stateRootTimeUs: number;
  totalTimeUs: number;
  transactions: MeteredBlockTx[];
}

/** What the priority-fee estimator needs of each metered transaction beyond Base's answer. */
export interface MeteredTxFees {
  /** Effective priority fee per gas paid (decimal string; 0 for deposits). */
  priorityFeePerGas: string;
  /** DA bytes as Base's estimator counts a bundle's: the FastLZ-compressed length of the envelope (decimal string; 0 for deposits). */
  daBytes: string;
  deposit: boolean;
}

/** The chain as block metering reads it. */
export type MeterChain = CallChain & { getBlockByHash(hash: Uint8Array): Block | undefined };

/** The effective priority fee per gas `tx` pays on a block with `baseFee` (0 for deposits). */
function effectivePriorityFee(tx: OpTransaction, baseFee: bigint): bigint {
  if (isDeposit(tx)) return 0n;
  const t = tx as TypedTransaction & { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; gasPrice?: bigint };
  if (t.maxFeePerGas !== undefined && t.maxPriorityFeePerGas !== undefined) {
    const room = t.maxFeePerGas - baseFee;
    return room < t.maxPriorityFeePerGas ? (room < 0n ? 0n : room) : t.maxPriorityFeePerGas;
  }
  const tip = (t.gasPrice ?? 0n) - baseFee;
  return tip < 0n ? 0n : tip;
}

/**
 * Meters `block` (see the file comment). With `withFees`, also each transaction's effective
 * priority fee and FastLZ length (for base_meteredPriorityFeePerGas).
 * @throws MeteringError `BLOCK_FAILED` ("Parent header not found: …", an execution failure, a pruned parent state)
 */
export async function meterBlock(chain: MeterChain, block: Block, withFees = false): Promise<{ response: MeterBlockResponse; fees?: MeteredTxFees[] }> {
  const op = chain.op;
  const h = block.header;
  const failed = (why: string): MeteringError => new MeteringError({ code: MeteringErrorCode.BLOCK_FAILED }, `Block metering failed: ${why}`);
  if (op === undefined) throw failed("metering needs an OP Stack chain");
  const parent: BlockHeader | undefined = h.number === 0n ? undefined : chain.getHeaderByHash(h.parentHash);
  if (parent === undefined) throw failed(`Parent header not found: ${bytesToHex(h.parentHash)}`);
  // Fresh transaction objects (decoding is not timed) so no sender recovered earlier is reused.
  const envelopes = (block.transactions as unknown as OpTransaction[]).map((t) => envelopeOf(t));
  const txs = envelopes.map((e, i) => decodeOpTransaction(e, block.common, i));
  const recoveryStart = performance.now();
  for (const tx of txs) if (!isDeposit(tx)) senderOf(tx as TypedTransaction);
  const signerRecoveryTimeUs = micros(recoveryStart, performance.now());
  let state;
  try {
    state = chain.stateManagerAt(parent).state;
  } catch (e) {
    throw failed((e as Error).message);
  }
  const transactions: MeteredBlockTx[] = [];
  const evmStart = performance.now();
  try {
    const vm = await chain.makeVM(block.common, state, h.parentHash, h.timestamp);
    const ex = new OpBlockExecutor(vm, block, op, parent.timestamp);
    await ex.begin();
    for (let i = 0; i < txs.length; i++) {
      const t0 = performance.now();
      const r = await ex.apply(txs[i]!);
      const t1 = performance.now();
      transactions.push({ txHash: bytesToHex(keccak256(envelopes[i]!)), gasUsed: Number(r.gasUsed), executionTimeUs: micros(t0, t1) });
    }
  } catch (e) {
    throw failed((e as Error).message);
  }
  const executionTimeUs = micros(evmStart, performance.now());
  const rootStart = performance.now();
  await state.getStateRoot();
  const stateRootTimeUs = micros(rootStart, performance.now());
  const response: MeterBlockResponse = {
    blockHash: bytesToHex(block.hash()),
    blockNumber: Number(h.number),
    signerRecoveryTimeUs,
    executionTimeUs,
    stateRootTimeUs,
    totalTimeUs: signerRecoveryTimeUs + executionTimeUs + stateRootTimeUs,
    transactions,
  };
  if (!withFees) return { response };
  const baseFee = h.baseFeePerGas ?? 0n;
  const fees = txs.map((tx, i): MeteredTxFees => {
    const deposit = isDeposit(tx);
    return {
      priorityFeePerGas: effectivePriorityFee(tx, baseFee).toString(),
      daBytes: deposit ? "0" : flzCompressLen(envelopes[i]!).toString(),
      deposit,
    };
  });
  return { response, fees };
}
