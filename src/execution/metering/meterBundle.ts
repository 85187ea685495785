/**
 * base_meterBundle: simulates a bundle's transactions on top of the latest sealed block and
 * measures each one's wall-clock execution time, the whole run's and the state root's, in
 * microseconds (`performance.now()`). Semantics of base/base v0.6.0-rc.19
 * `crates/client/metering/src/meter.rs` and `rpc.rs`:
 * - the simulated block follows the state block: number + 1, timestamp `minTimestamp` or the
 *   state block's + 2 s, its fee recipient, prevRandao, gas limit, beacon root and extra data;
 *   base fee `min(next base fee, 5_000_000)`; the pre-transaction system calls run first and
 *   the L1 attributes are those already in the state (no L1-attributes deposit);
 * - each sender's nonce is set to its first bundle transaction's (so a bundle may target
 *   future nonces), refused beyond the on-chain nonce + 10 000;
 * - each transaction is checked against the sender's balance before the bundle (value +
 *   maxFee × gas, then plus the L1 data fee) before it executes;
 * - `gasPrice`, `gasFees` and `coinbaseDiff` use the transaction's max fee per gas (gas price
 *   for legacy transactions); `totalExecutionTimeUs` runs from before the simulated block is
 *   set up to after the state root; `stateRootTimeUs` is the root computation alone.
 * Runs on the execution pool's workers (never the RPC thread).
 */
import { createBlock, type BlockHeader } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, hexToBytes, setLengthLeft, toChecksumAddress } from "@ethereumjs/util";
import { isDeposit } from "../../chain/op/depositTx.js";
import { opNextBaseFee } from "../../chain/op/eip1559.js";
import { opForkAt } from "../../chain/op/forks.js";
import { l1Cost } from "../../chain/op/l1Cost.js";
import { loadL1BlockInfo } from "../../chain/op/l1BlockInfo.js";
import { L1_BLOCK_ADDRESS } from "../../chain/op/predeploys.js";
import { senderOf } from "../../chain/sender.js";
import { toQuantity } from "../../chain/json/quantity.js";
import { keccak256 } from "../../util/keccak.js";
import type { CallChain } from "../callExecutor.js";
import { OpBlockExecutor, type OpTransaction } from "../op/opBlockExecutor.js";
import { decodeOpTransaction } from "../op/opPayload.js";
import { MeteringError, MeteringErrorCode } from "./errors.js";
import { micros } from "./meterBlock.js";

/** Seconds added to the state block's timestamp when the bundle names no `minTimestamp` (Base `BLOCK_TIME`). */
const METER_BUNDLE_BLOCK_TIME = 2n;
/** Highest base fee a bundle is metered with, wei (Base `MIN_BASEFEE`: the base fee is capped to it). */
const METER_BUNDLE_MAX_BASE_FEE = 5_000_000n;
/** Furthest a bundle's first nonce may be ahead of the sender's on-chain nonce (Base `MAX_NONCE_AHEAD`). */
const METER_BUNDLE_MAX_NONCE_AHEAD = 10_000n;

/** Base `TransactionResult`, field order as Base serializes it. */
interface MeteredBundleTx {
  coinbaseDiff: string;
  ethSentToCoinbase: string;
  fromAddress: string;
  gasFees: string;
  gasPrice: string;
  gasUsed: number;
  toAddress: string | null;
  txHash: string;
  value: string;
  executionTimeUs: number;
}

/** Base `MeterBundleResponse` (without `stateFlashblockIndex`: basalt meters on sealed state). */
export interface MeterBundleResponse {
  bundleGasPrice: string;
  bundleHash: string;
  coinbaseDiff: string;
  ethSentToCoinbase: string;
  gasFees: string;
  results: MeteredBundleTx[];
  stateBlockNumber: number;
  totalGasUsed: number;
  totalExecutionTimeUs: number;
  stateRootTimeUs: number;
}

/** A decoded bundle transaction with its signer and hash. */
interface BundleTx {
  tx: TypedTransaction;
  envelope: Uint8Array;
  hash: Uint8Array;
  from: Address;
}

/** The max fee per gas Base prices a bundle transaction at (`max_fee_per_gas`: the gas price for legacy and EIP-2930). */
function maxFeeOf(tx: TypedTransaction): bigint {
  const t = tx as TypedTransaction & { maxFeePerGas?: bigint; gasPrice?: bigint };
  return t.maxFeePerGas ?? t.gasPrice ?? 0n;
}

/** keccak256 of the bundle's transaction hashes concatenated (Base `bundle_hash`). */
export function bundleHashOf(txHashes: Uint8Array[]): string {
  return bytesToHex(keccak256(concatBytes(...txHashes)));
}

/**
 * Decodes and recovers the bundle's transactions.
 * @throws MeteringError `PARSE` ("Failed to parse bundle: …", Base's -32602)
 */
function parseBundle(chain: CallChain, head: BlockHeader, rawTxs: string[]): BundleTx[] {
  const common = chain.commonAt(head.number + 1n, head.timestamp + METER_BUNDLE_BLOCK_TIME);
  return rawTxs.map((hex, i) => {
    const envelope = hexToBytes(hex as `0x${string}`);
    let tx: OpTransaction;
    try {
      tx = decodeOpTransaction(envelope, common, i);
    } catch (e) {
      throw new MeteringError({ code: MeteringErrorCode.PARSE }, `Failed to parse bundle: Failed to decode transaction: ${(e as Error).message}`);
    }
    if (isDeposit(tx)) throw new MeteringError({ code: MeteringErrorCode.PARSE }, "Failed to parse bundle: Failed to decode transaction: deposit transactions cannot be bundled");
    let from: Address;
    try {
      from = senderOf(tx as TypedTransaction);
    } catch (e) {
      throw new MeteringError({ code: MeteringErrorCode.PARSE }, `Failed to parse bundle: Failed to convert transaction to recovered: ${(e as Error).message}`);
    }
    return { tx: tx as TypedTransaction, envelope, hash: keccak256(envelope), from };
  });
}

/**
 * Meters the bundle `rawTxs` (0x-hex EIP-2718 envelopes) on top of `head` (see the file comment).
 * @throws MeteringError `PARSE`, `NO_L1_INFO` (Base -32602) or `BUNDLE_FAILED` (Base -32603)
 */
export async function meterBundle(chain: CallChain, head: BlockHeader, rawTxs: string[], minTimestamp: bigint | undefined): Promise<MeterBundleResponse> {
  const op = chain.op;
  const bundle = parseBundle(chain, head, rawTxs);
  const bundleHash = bundleHashOf(bundle.map((b) => b.hash));
  // Base reads the L1 info from the state block's first transaction: genesis has none.
  if (head.number === 0n || op === undefined) throw new MeteringError({ code: MeteringErrorCode.NO_L1_INFO }, "Block has no transactions: Latest");
  const failed = (why: string): MeteringError => new MeteringError({ code: MeteringErrorCode.BUNDLE_FAILED }, `Bundle metering failed: ${why}`);
  const state = chain.stateManagerAt(head).state;
  // Each sender starts at its first transaction's nonce; balances are checked against the state before the bundle.
  const before = new Map<string, Account | undefined>();
  for (const b of bundle) {
    const key = b.from.toString();
    if (before.has(key)) continue;
    const acct = await state.getAccount(b.from);
    if (acct !== undefined) {
      if (b.tx.nonce > acct.nonce + METER_BUNDLE_MAX_NONCE_AHEAD) {
        throw failed(`transaction nonce ${b.tx.nonce} for ${toChecksumAddress(key)} exceeds max allowed (on-chain ${acct.nonce} + ${METER_BUNDLE_MAX_NONCE_AHEAD})`);
      }
      await state.putAccount(b.from, new Account(b.tx.nonce, acct.balance, acct.storageRoot, acct.codeHash));
    }
    before.set(key, acct);
  }
  const number = head.number + 1n;
  const timestamp = minTimestamp ?? head.timestamp + METER_BUNDLE_BLOCK_TIME;
  const common = chain.commonAt(number, timestamp);
  const nextBaseFee = opNextBaseFee(head, op, timestamp);
  const template: Record<string, unknown> = {
    parentHash: head.hash(),
    coinbase: head.coinbase,
    number,
    gasLimit: head.gasLimit,
    timestamp,
    extraData: head.extraData,
    mixHash: head.mixHash,
    difficulty: 0n,
    nonce: new Uint8Array(8),
    baseFeePerGas: nextBaseFee < METER_BUNDLE_MAX_BASE_FEE ? nextBaseFee : METER_BUNDLE_MAX_BASE_FEE,
  };
  if (common.isActivatedEIP(4844)) {
    template.blobGasUsed = 0n;
    template.excessBlobGas = 0n;
  }
  if (common.isActivatedEIP(4788)) template.parentBeaconBlockRoot = head.parentBeaconBlockRoot ?? new Uint8Array(32);
  const fork = opForkAt(op, timestamp);
  const l1Addr = hexToBytes(L1_BLOCK_ADDRESS as `0x${string}`);
  const info = await loadL1BlockInfo(async (slot) => bytesToBigInt(await state.getStorage(new Address(l1Addr), setLengthLeft(bigIntToBytes(slot), 32))), fork);
  const results: MeteredBundleTx[] = [];
  let totalGasUsed = 0n;
  let totalGasFees = 0n;
  const totalStart = performance.now();
  const block = createBlock({ header: template as never }, { common, skipConsensusFormatValidation: true });
  const vm = await chain.makeVM(common, state, head.hash(), timestamp);
  const ex = new OpBlockExecutor(vm, block, op, head.timestamp, { l1InfoInState: true });
  await ex.begin();
  for (const b of bundle) {
    const t0 = performance.now();
    const txHash = bytesToHex(b.hash);
    const acct = before.get(b.from.toString());
    if (acct === undefined) throw failed(`Account is none for tx: ${txHash}`);
    const maxFee = maxFeeOf(b.tx);
    const cost = b.tx.value + maxFee * b.tx.gasLimit;
    if (cost > acct.balance) throw failed(`Transaction ${txHash} validation failed: Insufficient funds for transfer: ${cost}, account balance: ${acct.balance}`);
    const withL1 = cost + l1Cost(info, b.envelope, fork);
    if (withL1 > acct.balance) throw failed(`Transaction ${txHash} validation failed: Insufficient funds for L1 gas: ${withL1}, account balance: ${acct.balance}`);
    let gasUsed: bigint;
    try {
      gasUsed = (await ex.apply(b.tx)).gasUsed;
    } catch (e) {
      throw failed(`Transaction ${txHash} execution failed: ${(e as Error).message}`);
    }
    const gasFees = gasUsed * maxFee;
    totalGasUsed += gasUsed;
    totalGasFees += gasFees;
    results.push({
      coinbaseDiff: toQuantity(gasFees),
      ethSentToCoinbase: "0x0",
      fromAddress: toChecksumAddress(b.from.toString()),
      gasFees: toQuantity(gasFees),
      gasPrice: toQuantity(maxFee),
      gasUsed: Number(gasUsed),
      toAddress: b.tx.to === undefined ? null : toChecksumAddress(b.tx.to.toString()),
      txHash,
      value: toQuantity(b.tx.value),
      executionTimeUs: micros(t0, performance.now()),
    });
  }
  const rootStart = performance.now();
  await state.getStateRoot();
  const end = performance.now();
  return {
    bundleGasPrice: toQuantity(totalGasUsed > 0n ? totalGasFees / totalGasUsed : 0n),
    bundleHash,
    coinbaseDiff: toQuantity(totalGasFees),
    ethSentToCoinbase: "0x0",
    gasFees: toQuantity(totalGasFees),
    results,
    stateBlockNumber: Number(head.number),
    totalGasUsed: Number(totalGasUsed),
    totalExecutionTimeUs: micros(totalStart, end),
    stateRootTimeUs: micros(rootStart, end),
  };
}
