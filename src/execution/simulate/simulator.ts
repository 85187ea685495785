/**
 * The eth_simulateV1 block loop (geth `simulator`, internal/ethapi/simulate.go) on the fast EVM:
 * the chain of blocks is sanitized (numbers and timestamps strictly increasing, gaps filled with
 * empty blocks), then each block gets its header fields from the overrides and its parent, its
 * state overrides, the pre-block system calls (EIP-4788, EIP-2935), its calls in order on one
 * {@link EvmState} over an {@link OverlayStateManager} (which computes the state root), its
 * withdrawals, and is assembled with geth's roots and hash. Calls run as geth runs them:
 * transaction checks (EOA, EIP-7825 cap) skipped, nonces checked and the base fee charged only
 * with `validation`.
 */
import { Block, createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { createWithdrawal, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { RLP } from "@ethereumjs/rlp";
import { opForkAt, type OpFork } from "../../chain/op/forks.js";
import { getActivePrecompiles } from "@ethereumjs/evm";
import { FastEvmUnsupported } from "../evm/errors.js";
import { orderedTrieRoot } from "../../chain/orderedTrie.js";
import { encodeReceiptFields } from "../../chain/receiptRlp.js";
import { SIMULATE_TIMESTAMP_INCREMENT } from "../constants.js";
import { fromHex, to0x } from "../../util/bytes.js";
import { checksummedHex } from "./overrides.js";
import { keccak256 } from "../../util/keccak.js";
import type { CallChain, CallContext } from "../callExecutor.js";
import type { CallArgs } from "../callArgs.js";
import { callTransaction } from "../fastCalls.js";
import { blockEnvOf, FastEvm } from "../evm/engine.js";
import { TxInvalidCode, TxInvalidError } from "../evm/errors.js";
import { Halt, HALT_MESSAGES, type BlockEnv } from "../evm/interpreter.js";
import { overlaySink } from "../evm/overlaySink.js";
import { EvmState, type EvmLog } from "../evm/state.js";
import { runTransaction, type TxResult } from "../evm/transaction.js";
import { revertError } from "../revert.js";
import { OverlayStateManager } from "../state/overlayStateManager.js";
import { applyBeaconRootCall, applyHistoryStorageCall } from "../systemCalls.js";
import { SimulateError, SimulateErrorCode } from "./errors.js";
import { applyStateOverrides, nativePrecompiles, type SerializedBlockOverrides } from "./overrides.js";
import { movedPrecompileSet } from "./precompileSet.js";
import type { SimulateBlockInput, SimulateRequest } from "./request.js";
import { TransferTracer } from "./transfers.js";

/** A simulated call's outcome (geth `simCallResult`). */
interface SimulatedCall {
  returnData: Uint8Array;
  /** Logs (with the synthetic transfer logs) and their block-wide index. */
  logs: (EvmLog & { index: number })[];
  gasUsed: bigint;
  maxUsedGas: bigint;
  status: 0 | 1;
  /** geth's `callError`: revert (code 3, with data) or VM error (-32015). */
  error?: { message: string; code: number; data?: string };
}

/** A simulated block: the assembled block, its calls' outcomes, the calls' senders. */
export interface SimulatedBlock {
  block: Block;
  calls: SimulatedCall[];
  senders: Uint8Array[];
}

/** geth's JSON-RPC code of a reverted simulated call. */
const CALL_REVERTED = 3;
/** geth's JSON-RPC code of a simulated call that failed in the EVM (`errCodeVMError`). */
const CALL_VM_ERROR = -32015;
const ZERO_ADDRESS = new Uint8Array(20);
const ZERO_HASH = new Uint8Array(32);
const GWEI = 1_000_000_000n;
/** The first nonce @ethereumjs refuses (2^64 - 1). */
const MAX_TX_NONCE = (1n << 64n) - 1n;

/** The typed error of a call geth refuses to run (`txValidationError`). */
function txError(e: TxInvalidError): SimulateError {
  const code: Partial<Record<TxInvalidCode, SimulateErrorCode>> = {
    [TxInvalidCode.NONCE_TOO_LOW]: SimulateErrorCode.NONCE_TOO_LOW,
    [TxInvalidCode.NONCE_TOO_HIGH]: SimulateErrorCode.NONCE_TOO_HIGH,
    [TxInvalidCode.FEE_CAP_BELOW_BASE_FEE]: SimulateErrorCode.BASE_FEE_TOO_LOW,
    [TxInvalidCode.INTRINSIC_GAS_TOO_LOW]: SimulateErrorCode.INTRINSIC_GAS,
    [TxInvalidCode.INSUFFICIENT_FUNDS]: SimulateErrorCode.INSUFFICIENT_FUNDS,
    [TxInvalidCode.SENDER_NOT_EOA]: SimulateErrorCode.SENDER_NOT_EOA,
    [TxInvalidCode.INITCODE_TOO_LARGE]: SimulateErrorCode.INIT_CODE_TOO_LARGE,
    [TxInvalidCode.TIP_ABOVE_FEE_CAP]: SimulateErrorCode.INVALID_FEES,
  };
  return new SimulateError(code[e.reason] ?? SimulateErrorCode.INVALID_TX, e.message);
}

/** A sanitized block: its number and timestamp fixed, gaps filled (geth `sanitizeChain`). */
interface PlannedBlock {
  number: bigint;
  time: bigint;
  input: SimulateBlockInput;
}

/**
 * geth `sanitizeChain`: numbers default to parent + 1 and must increase, timestamps default to
 * parent + 12 and must increase, a gap is filled with empty blocks, at most 256 blocks past the base.
 * @throws SimulateError `BLOCK_NUMBER_ORDER`, `BLOCK_TIMESTAMP_ORDER`, `LIMIT_EXCEEDED`.
 */
export function planBlocks(base: { number: bigint; timestamp: bigint }, blocks: SimulateBlockInput[], maxBlocks: number): PlannedBlock[] {
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const input of blocks) {
    const bo = input.blockOverrides;
    const number = bo?.number !== undefined ? BigInt(bo.number) : prevNumber + 1n;
    if (number <= prevNumber) throw new SimulateError(SimulateErrorCode.BLOCK_NUMBER_ORDER, `block numbers must be in order: ${number} <= ${prevNumber}`);
    if (number - base.number > BigInt(maxBlocks)) throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, "too many blocks");
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += SIMULATE_TIMESTAMP_INCREMENT;
      out.push({ number: n, time: prevTime, input: { calls: [] } });
    }
    prevNumber = number;
    let time: bigint;
    if (bo?.time === undefined) time = prevTime + SIMULATE_TIMESTAMP_INCREMENT;
    else {
      time = BigInt(bo.time);
      if (time <= prevTime) throw new SimulateError(SimulateErrorCode.BLOCK_TIMESTAMP_ORDER, `block timestamps must be in order: ${time} <= ${prevTime}`);
    }
    prevTime = time;
    out.push({ number, time, input });
  }
  return out;
}

/** Bloom filter of `logs`. */
function bloomOf(logs: readonly EvmLog[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const add = (v: Uint8Array): void => {
    const h = keccak256(v);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
    }
  };
  for (const l of logs) {
    add(l.address);
    for (const t of l.topics) add(t);
  }
  return bloom;
}

/**
 * The unsigned transaction geth puts in a simulated block for `args` (`ToTransaction` with the
 * dynamic-fee default, after `CallDefaults`): zero signature.
 */
function blockTransaction(common: Common, args: CallArgs, nonce: bigint, gas: bigint): TypedTransaction {
  const base = {
    chainId: common.chainId(),
    nonce,
    gasLimit: gas,
    to: args.to ?? undefined,
    value: args.value ?? 0n,
    data: args.data ?? new Uint8Array(),
    v: 0n,
    r: 0n,
    s: 0n,
  };
  const accessList = (args.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]]);
  const fees = { maxFeePerGas: args.maxFeePerGas ?? 0n, maxPriorityFeePerGas: args.maxPriorityFeePerGas ?? 0n };
  let data: Record<string, unknown>;
  if (args.gasPrice !== undefined) data = { ...base, type: 0, gasPrice: args.gasPrice, v: undefined, r: undefined, s: undefined };
  else if (args.authorizationList !== undefined) data = { ...base, ...fees, type: 4, accessList, authorizationList: args.authorizationList };
  else if (args.blobVersionedHashes !== undefined) {
    data = { ...base, ...fees, type: 3, accessList, blobVersionedHashes: args.blobVersionedHashes, maxFeePerBlobGas: args.maxFeePerBlobGas ?? 0n };
  } else data = { ...base, ...fees, type: 2, accessList };
  // @ethereumjs refuses a nonce of 2^64-1 and, from Osaka, a gas limit above EIP-7825's cap, which
  // geth's simulated transactions carry (it skips those checks): set them after construction.
  const tx = createTx({ ...data, nonce: 0n, gasLimit: 0n } as never, { common, freeze: false });
  Object.defineProperty(tx, "nonce", { value: nonce });
  Object.defineProperty(tx, "gasLimit", { value: gas });
  if (args.gasPrice !== undefined) {
    // A legacy transaction with a zero signature (V = R = S = 0), as geth leaves it unsigned.
    Object.assign(tx, { v: 0n, r: 0n, s: 0n });
  }
  return tx;
}

/** Options of {@link simulate}. */
interface SimulateOptions {
  /** The RPC gas cap (`--rpc.gascap`): a budget over all simulated calls; 0 = unlimited. */
  gasCap: bigint;
  /** Most blocks past the base (geth 256). */
  maxBlocks: number;
}

/**
 * Runs `req` on top of `base` (a block's context and, when given, its state).
 * @throws SimulateError for requests geth refuses (order, limits, invalid calls, overrides).
 */
export async function simulate(chain: CallChain, base: CallContext, req: SimulateRequest, opts: SimulateOptions): Promise<SimulatedBlock[]> {
  const baseHeader = base.header;
  const planned = planBlocks(baseHeader, req.blocks, opts.maxBlocks);
  const overlay =
    base.state === undefined ? chain.stateManagerAt(baseHeader).state : chain.overlayOn(base.state);
  const results: SimulatedBlock[] = [];
  const simulatedHashes = new Map<bigint, Uint8Array>();
  const canonical = chain.evmBlockchain(baseHeader.hash());
  const blockHash = (n: bigint): Uint8Array => simulatedHashes.get(n) ?? (n <= baseHeader.number ? canonical.hashSync(n) : ZERO_HASH);
  let budget = opts.gasCap === 0n ? (1n << 64n) - 1n : opts.gasCap;
  let parent: BlockHeader = baseHeader;
  for (const plan of planned) {
    const bo: SerializedBlockOverrides = plan.input.blockOverrides ?? {};
    const common = chain.commonAt(plan.number, plan.time);
    const opFork = chain.op === undefined ? undefined : opForkAt(chain.op, plan.time);
    const evm = fastEvmFor(common, opFork, plan.input.calls.length > 0);
    const parentHash = parent.hash();
    const headerData: Record<string, unknown> = {
      parentHash,
      coinbase: bo.feeRecipient !== undefined ? fromHex(bo.feeRecipient) : parent.coinbase.bytes,
      // Post-merge blocks have difficulty 0; before, the parent's (geth `makeHeaders`).
      difficulty: bo.difficulty !== undefined ? BigInt(bo.difficulty) : common.gteHardfork("paris") ? 0n : parent.difficulty,
      number: plan.number,
      gasLimit: bo.gasLimit !== undefined ? BigInt(bo.gasLimit) : parent.gasLimit,
      timestamp: plan.time,
      mixHash: bo.prevRandao !== undefined ? fromHex(bo.prevRandao) : ZERO_HASH,
      nonce: new Uint8Array(8),
      extraData: new Uint8Array(),
    };
    if (common.isActivatedEIP(1559)) {
      headerData.baseFeePerGas = bo.baseFeePerGas !== undefined ? BigInt(bo.baseFeePerGas) : req.validation && parent.baseFeePerGas !== undefined ? parent.calcNextBaseFee() : 0n;
    }
    if (common.isActivatedEIP(4844)) {
      headerData.excessBlobGas = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(common) : 0n;
      headerData.parentBeaconBlockRoot = bo.beaconRoot !== undefined ? fromHex(bo.beaconRoot) : ZERO_HASH;
    }
    const prelim = createBlockHeader(headerData as never, { common, skipConsensusFormatValidation: true });
    const blobBaseFee = bo.blobBaseFee !== undefined ? BigInt(bo.blobBaseFee) : prelim.excessBlobGas !== undefined ? prelim.getBlobGasPrice() : 0n;

    const precompiles = nativePrecompiles(evm?.precompiles.addresses ?? referencePrecompiles(common));
    applyStateOverrides(overlay, plan.input.stateOverrides, precompiles);
    if (common.isActivatedEIP(4788)) await applyBeaconRootCall(overlay, plan.time, headerData.parentBeaconBlockRoot as Uint8Array);
    if (common.isActivatedEIP(2935)) await applyHistoryStorageCall(overlay, plan.number, parentHash);

    const state = new EvmState(overlay);
    const env: BlockEnv = { ...blockEnvOf(prelim, blockHash), blobBaseFee };
    const ctx = evm === undefined ? undefined : { ...evm.context(state, env), precompiles: movedPrecompileSet(evm.precompiles, precompiles) };
    const tracer = new TransferTracer(req.traceTransfers);
    const onTransfer = tracer.hook(state);
    // geth numbers a block's logs in emission order, counting those a revert dropped.
    const logIndexes = new WeakMap<EvmLog, number>();
    let emitted = 0;
    state.onLog = (log) => logIndexes.set(log, emitted++);
    const txs: TypedTransaction[] = [];
    const senders: Uint8Array[] = [];
    const calls: SimulatedCall[] = [];
    const receipts: Uint8Array[] = [];
    const allLogs: EvmLog[] = [];
    let gasUsed = 0n;
    let blobGasUsed = 0n;
    for (const args of plan.input.calls) {
      const from = args.from ?? ZERO_ADDRESS;
      const nonce = args.nonce ?? state.account(from).nonce;
      const remaining = prelim.gasLimit - gasUsed;
      let gas = args.gas ?? remaining;
      if (remaining < gas) throw new SimulateError(SimulateErrorCode.BLOCK_GAS_LIMIT, `block gas limit reached: remaining: ${remaining}, required: ${gas}`);
      const gasCapped = gas > budget;
      if (gasCapped) gas = budget;
      if (args.chainId !== undefined && args.chainId !== common.chainId()) {
        throw new SimulateError(SimulateErrorCode.BAD_OVERRIDE, `chainId does not match node's (have=${args.chainId}, want=${common.chainId()})`);
      }
      const tx = blockTransaction(common, args, nonce, gas);
      const zeroFees = (args.gasPrice ?? 0n) === 0n && (args.maxFeePerGas ?? 0n) === 0n && (args.maxPriorityFeePerGas ?? 0n) === 0n;
      // geth NoBaseFee (no validation): a call that pays nothing skips the fee-cap check and pays nothing.
      const runEnv = !req.validation && zeroFees ? { ...env, baseFee: 0n, blobBaseFee: (args.maxFeePerBlobGas ?? 0n) === 0n ? 0n : env.blobBaseFee } : env;
      const evmTx = callTransaction({ ...args, nonce }, gas, runEnv.baseFee, common.isActivatedEIP(1559));
      let r: TxResult;
      if (ctx === undefined) throw new TypeError("simulated call without an engine");
      preCheck(state, from, { ...args, nonce }, gas, req.validation, runEnv, common.isActivatedEIP(1559));
      try {
        r = runTransaction({ ...ctx, block: runEnv }, evmTx, { call: !req.validation, skipTransactionChecks: true, checkBlockGasLimit: false, onTransfer });
      } catch (e) {
        if (e instanceof TxInvalidError) throw txError(e);
        throw e;
      }
      gasUsed += r.gasUsed;
      blobGasUsed += r.blobGasUsed;
      budget -= r.gasUsed;
      const receiptLogs = tracer.enabled ? r.logs.filter((l) => !tracer.isSynthetic(l)) : r.logs;
      receipts.push(encodeReceiptFields({ type: tx.type, statusOrRoot: r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0), cumulativeGasUsed: gasUsed, bloom: bloomOf(receiptLogs), logs: receiptLogs, extra: [] }));
      // geth `ExecutionResult.Return()`: no return data for a failed call (a revert's data is in its error).
      const call: SimulatedCall = {
        returnData: r.status === 1 ? r.output : new Uint8Array(0),
        logs: r.logs.map((l) => ({ ...l, index: logIndexes.get(l) ?? 0 })),
        gasUsed: r.gasUsed,
        maxUsedGas: r.gasPeak,
        status: r.status,
      };
      if (r.status === 0) {
        if (r.halt === Halt.REVERT) {
          const rev = revertError(r.output);
          call.error = { message: rev.message, code: CALL_REVERTED, data: to0x(r.output) };
        } else {
          const message = HALT_MESSAGES[r.halt] ?? "execution failed";
          call.error = { message: gasCapped ? `${message} (gas limit was capped by the RPC server's global gas cap)` : message, code: CALL_VM_ERROR };
        }
      } else allLogs.push(...receiptLogs);
      calls.push(call);
      txs.push(tx);
      senders.push(from);
    }
    state.flush(overlaySink(overlay));
    const withdrawals = bo.withdrawals ?? [];
    for (const w of withdrawals) creditBalance(overlay, fromHex(w.address), BigInt(w.amount) * GWEI);
    // Before the merge the consensus engine pays the block reward to the coinbase (geth ethash `Finalize`; no uncles here).
    if (!common.gteHardfork("paris")) creditBalance(overlay, headerData.coinbase as Uint8Array, blockReward(common));
    const stateRoot = await overlay.getStateRoot();
    const logsBloom = bloomOf(allLogs);
    headerData.stateRoot = stateRoot;
    headerData.gasUsed = gasUsed;
    headerData.logsBloom = logsBloom;
    headerData.transactionsTrie = orderedTrieRoot(txs.map((t) => t.serialize()));
    headerData.receiptTrie = orderedTrieRoot(receipts);
    if (common.isActivatedEIP(4844)) headerData.blobGasUsed = blobGasUsed;
    const withdrawalData = withdrawals.map((w) => ({ index: BigInt(w.index), validatorIndex: BigInt(w.validatorIndex), address: fromHex(w.address), amount: BigInt(w.amount) }));
    if (common.isActivatedEIP(4895)) {
      headerData.withdrawalsRoot = orderedTrieRoot(withdrawalData.map((w) => RLP.encode([w.index, w.validatorIndex, w.address, w.amount])));
    }
    if (common.isActivatedEIP(7685)) headerData.requestsHash = sha256(new Uint8Array(0));
    // The block from its parts (createBlock would rebuild the transactions from their fields, refusing geth's zero signatures and nonces).
    const header = createBlockHeader(headerData as never, { common, skipConsensusFormatValidation: true });
    const block = new Block(header, txs, [], common.isActivatedEIP(4895) ? withdrawalData.map(createWithdrawal) : undefined, { common });
    simulatedHashes.set(plan.number, block.hash());
    results.push({ block, calls, senders });
    parent = block.header;
  }
  return results;
}

/**
 * The fast engine of a simulated block's fork; undefined for an empty block of a fork it does not
 * run (pre-London: only the header and the overrides matter then).
 * @throws SimulateError `INVALID_TX` when such a block has calls.
 */
function fastEvmFor(common: Common, opFork: OpFork | undefined, hasCalls: boolean): FastEvm | undefined {
  try {
    return FastEvm.of(common, opFork);
  } catch (e) {
    if (!(e instanceof FastEvmUnsupported)) throw e;
    if (hasCalls) throw new SimulateError(SimulateErrorCode.INVALID_TX, `eth_simulateV1 cannot execute calls in a ${common.hardfork()} block on this node: ${e.message}`);
    return undefined;
  }
}

/** The precompile addresses of `common`'s fork as the reference engine lists them. */
function referencePrecompiles(common: Common): number[] {
  return [...getActivePrecompiles(common).keys()].map((a) => Number.parseInt(a, 16));
}

/** The pre-merge block reward of `common`'s fork (ethash: 5, 3 from Byzantium, 2 ETH from Constantinople). */
function blockReward(common: Common): bigint {
  if (common.gteHardfork("constantinople")) return 2_000_000_000_000_000_000n;
  if (common.gteHardfork("byzantium")) return 3_000_000_000_000_000_000n;
  return 5_000_000_000_000_000_000n;
}

/**
 * geth's checks before a simulated call runs, in geth's order (`preCheck`, `buyGas`): the nonce
 * (with `validation`), the fee caps against the base fee (skipped for a call that pays nothing
 * without validation: its environment then has base fee 0), the balance for gas × fee cap +
 * value. Intrinsic gas and the rest are the engine's checks, which come after.
 * @throws SimulateError with geth's code.
 */
function preCheck(state: EvmState, from: Uint8Array, args: CallArgs & { nonce: bigint }, gas: bigint, validate: boolean, env: BlockEnv, london: boolean): void {
  const acc = state.account(from);
  const who = checksummedHex(from);
  if (validate) {
    if (acc.nonce < args.nonce) throw new SimulateError(SimulateErrorCode.NONCE_TOO_HIGH, `nonce too high: address ${who}, tx: ${args.nonce} state: ${acc.nonce}`);
    if (acc.nonce > args.nonce) throw new SimulateError(SimulateErrorCode.NONCE_TOO_LOW, `nonce too low: address ${who}, tx: ${args.nonce} state: ${acc.nonce}`);
    if (acc.nonce >= MAX_TX_NONCE) throw new SimulateError(SimulateErrorCode.INVALID_TX, `nonce has max value: address ${who}, nonce: ${acc.nonce}`);
  }
  const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n;
  const tip = args.gasPrice ?? args.maxPriorityFeePerGas ?? 0n;
  if (london) {
    if (feeCap < tip) throw new SimulateError(SimulateErrorCode.INVALID_FEES, `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`);
    if (feeCap < env.baseFee) throw new SimulateError(SimulateErrorCode.BASE_FEE_TOO_LOW, `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap}, baseFee: ${env.baseFee}`);
  }
  let want = gas * feeCap + (args.value ?? 0n);
  if (args.blobVersionedHashes !== undefined) want += BigInt(args.blobVersionedHashes.length) * 131_072n * (args.maxFeePerBlobGas ?? 0n);
  if (acc.balance < want) throw new SimulateError(SimulateErrorCode.INSUFFICIENT_FUNDS, `insufficient funds for gas * price + value: address ${who} have ${acc.balance} want ${want}`);
}

/** Adds `amount` to an account's balance in `overlay` outside any transaction (withdrawals, block rewards). */
function creditBalance(overlay: OverlayStateManager, address: Uint8Array, amount: bigint): void {
  const acc = overlay.getAccountSync(address);
  if (amount === 0n && acc === undefined) return;
  overlay.putAccountFieldsSync(address, acc?.nonce ?? 0n, (acc?.balance ?? 0n) + amount, acc?.codeHash ?? KECCAK256_NULL, acc !== undefined && !bytesEq(acc.storageRoot, KECCAK256_RLP));
}

function bytesEq(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
