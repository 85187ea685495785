/**
 * Executes calls (eth_call, eth_estimateGas, eth_createAccessList) against the state after a
 * block, with geth's message semantics: nonce checks skipped, sender defaults to the zero
 * address, gas defaults to the RPC gas cap, a zero gas price runs with base fee 0
 * (geth `NoBaseFee`), intrinsic gas and access lists are charged as for a real transaction.
 *
 * This is the one interface the execution pool takes over (issue: pipelined node): it holds
 * no reference to the RPC layer and takes plain call arguments.
 *
 * Where a call runs is a {@link CallTarget}: a block header (the state after that canonical
 * block, in its context — as geth runs `latest` calls), or an explicit {@link CallContext}
 * naming the block context and the state, which the `pending` tag uses (the pending block's
 * context over the pre-confirmed state).
 */
import { ethereumjsRefusalText, ethereumjsTxRefusal } from "../util/foreignErrorText.js";
import { createBlock, type Block, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { Address, KECCAK256_NULL, bytesToHex, equalsBytes } from "@ethereumjs/util";
import { runTx, type VM } from "@ethereumjs/vm";
import { opForkAt, OpFork, type OpChainConfig } from "../chain/op/forks.js";
import { RPC_GAS_CAP } from "../config/constants.js";
import { ExecutionError, ExecutionErrorCode, type InvalidCallReason } from "./errors.js";
import { createAddress } from "../chain/json/receipt.js";
import { revertError } from "./revert.js";
import { capByAllowance, searchGas, type GasRunResult } from "./estimateGas.js";
import { OverlayStateManager } from "./state/overlayStateManager.js";
import type { StateReader } from "./state/stateReader.js";
import type { ChainStore } from "../storage/store.js";
import { LruMap } from "../util/lru.js";
import { toHex } from "../util/bytes.js";
import { FastCallContext } from "./fastCalls.js";
import { defaultEvmEngine, type EvmEngineName } from "./evm/engine.js";
import { FastEvmUnsupported } from "./evm/errors.js";
import { HALT_MESSAGES, Halt } from "./evm/interpreter.js";
import { TxInvalidCode, TxInvalidError } from "./evm/errors.js";
import type { TxResult } from "./evm/transaction.js";
import { readerSource } from "./state/readerSource.js";
import type { CallArgs } from "./callArgs.js";
import { callFees, callTxType, feeVariantOf } from "./callMessage.js";
import { MAX_TX_GAS_EIP7825, CALL_CONTEXTS_KEPT } from "./constants.js";


/**
 * What calls need of the chain they run on: the head, the fork rules, the store, and fresh
 * state and VMs after a block. The chain service (`Chain`, src/blockchain/chain.ts) implements
 * it; execution sits below that service and never imports it.
 */
export interface CallChain {
  /** OP Stack configuration; undefined for a plain Ethereum chain. */
  readonly op: OpChainConfig | undefined;
  /** The canonical head. */
  readonly head: Block;
  readonly store: ChainStore;
  /** A Common set to the hardfork of (number, timestamp). */
  commonAt(number: bigint, timestamp: bigint): Common;
  /** A fresh overlay state manager on the state after canonical block `header`. */
  stateManagerAt(header: BlockHeader): { state: OverlayStateManager };
  /** An overlay over an explicit state (pending, overridden), its tries read from the latest state's. */
  overlayOn(reader: StateReader): OverlayStateManager;
  /** A VM over `state` for executing on top of `parentHash`. */
  makeVM(common: Common, state: OverlayStateManager, parentHash: Uint8Array, timestamp?: bigint): Promise<VM>;
  /** A stored header by hash. */
  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined;
  /** BLOCKHASH for a block whose parent is `parentHash` (the fast EVM reads it synchronously). */
  evmBlockchain(parentHash: Uint8Array): { hashSync(n: bigint): Uint8Array };
}

/** What a traced call sees: the VM and state it runs on, its block and gas (see {@link CallExecutor.traceCalls}). */
interface CallObserver {
  start(run: { vm: VM; state: OverlayStateManager; header: BlockHeader; args: CallArgs; gas: bigint }): { detach(): void; done(out: CallOutcome): void };
}

/** Outcome of one call. */
interface CallOutcome {
  returnValue: Uint8Array;
  gasUsed: bigint;
  refund: bigint;
  /** "revert" for REVERT, another EVM error name for halts, undefined on success. */
  error?: string;
  accessList?: { address: string; storageKeys: string[] }[];
}

/**
 * An explicit execution context: the block whose environment the EVM sees (NUMBER, TIMESTAMP,
 * BASEFEE, COINBASE, PREVRANDAO, gas limit, hardfork; BLOCKHASH over its parent) and the state
 * the call runs on. The header need not be stored (a pending block's partial header).
 */
export interface CallContext {
  header: BlockHeader;
  /** The state to execute on; when omitted, the state after `header` (which must then be canonical). */
  state?: StateReader;
  /**
   * Active precompiles by address → the address of their implementation, when state overrides
   * moved or removed some (geth `StateOverride.Apply`); only the fast engine runs such calls.
   */
  precompiles?: ReadonlyMap<string, string>;
  /** The blob base fee when a block override sets it (the header cannot carry it). */
  blobBaseFee?: bigint;
}

/** Where a call runs: after a canonical block (its header) or in an explicit {@link CallContext}. */
export type CallTarget = BlockHeader | CallContext;

/** The {@link CallContext} of a target (a bare header: its own state). */
export function callContextOf(target: CallTarget): CallContext {
  return "header" in target ? target : { header: target };
}

const ZERO_ADDRESS = new Uint8Array(20);

/** An {@link ExecutionError} `INVALID_CALL` for `reason` with geth's message. */
function invalidCall(reason: InvalidCallReason, message: string, address?: Uint8Array): ExecutionError {
  const type = { code: ExecutionErrorCode.INVALID_CALL, reason } as const;
  return new ExecutionError(address === undefined ? type : { ...type, address: bytesToHex(address) }, message);
}

/**
 * Maps @ethereumjs transaction validation errors to typed errors with geth's messages. The library
 * says why it refused a transaction only in its message, so this is the one place that reads it.
 */
function gethTxError(e: unknown, args: CallArgs): ExecutionError {
  const m = e instanceof Error ? e.message : String(e);
  const from = args.from ?? ZERO_ADDRESS;
  const reason = ethereumjsTxRefusal(m);
  switch (reason) {
    case "insufficient-funds":
      return invalidCall(reason, `insufficient funds for gas * price + value: address ${bytesToHex(from)}`, from);
    case "intrinsic-gas":
      return invalidCall(reason, "intrinsic gas too low");
    case "fee-cap-below-base-fee":
      return invalidCall(reason, "max fee per gas less than block base fee");
    case "tip-above-fee-cap":
      return invalidCall(reason, "max priority fee per gas higher than max fee per gas");
    case "sender-not-eoa":
      return invalidCall(reason, `sender not an eoa: address ${bytesToHex(from)}`, from);
    case "gas-limit-too-high":
      return invalidCall(reason, "exceeds maximum per-transaction gas limit");
    case "gas-limit":
    case "rejected":
      // @ethereumjs's own words, without its block and transaction context.
      return invalidCall(reason, ethereumjsRefusalText(m));
  }
}

/**
 * Refusals that mean "this gas limit does not work" rather than "this call cannot run": the
 * gas search treats them as a failed run at that limit (geth's `ErrIntrinsicGas`,
 * `ErrGasLimitTooHigh`), not as its answer.
 */
const GAS_LIMIT_REASONS: ReadonlySet<InvalidCallReason> = new Set(["intrinsic-gas", "gas-limit-too-high", "gas-limit"]);

/** The fast engine's refusals as invalid-call reasons (the messages are already geth's). */
const INVALID_CALL_REASONS: Record<TxInvalidCode, InvalidCallReason> = {
  [TxInvalidCode.INSUFFICIENT_FUNDS]: "insufficient-funds",
  [TxInvalidCode.INTRINSIC_GAS_TOO_LOW]: "intrinsic-gas",
  [TxInvalidCode.FEE_CAP_BELOW_BASE_FEE]: "fee-cap-below-base-fee",
  [TxInvalidCode.TIP_ABOVE_FEE_CAP]: "tip-above-fee-cap",
  [TxInvalidCode.SENDER_NOT_EOA]: "sender-not-eoa",
  [TxInvalidCode.GAS_LIMIT_EXCEEDS_CAP]: "gas-limit-too-high",
  [TxInvalidCode.GAS_LIMIT_EXCEEDS_BLOCK]: "gas-limit",
  [TxInvalidCode.TYPE_NOT_SUPPORTED]: "rejected",
  [TxInvalidCode.BLOB_FEE_CAP_TOO_LOW]: "rejected",
  [TxInvalidCode.BLOB_HASHES_INVALID]: "rejected",
  [TxInvalidCode.CREATE_NOT_ALLOWED]: "rejected",
  [TxInvalidCode.EMPTY_AUTHORIZATION_LIST]: "rejected",
  [TxInvalidCode.INITCODE_TOO_LARGE]: "rejected",
  [TxInvalidCode.NONCE_TOO_LOW]: "rejected",
  [TxInvalidCode.NONCE_TOO_HIGH]: "rejected",
  [TxInvalidCode.NONCE_MAX]: "rejected",
};

/** Whether `e` refuses a run for its gas limit only ({@link GAS_LIMIT_REASONS}). */
function refusedForGasLimit(e: unknown): boolean {
  return e instanceof ExecutionError && e.type.code === ExecutionErrorCode.INVALID_CALL && GAS_LIMIT_REASONS.has(e.type.reason);
}

/**
 * What calls at one target share: the overlay state with its read caches, the fast engine's
 * context, the reference engine's VM (its EVM and opcode tables), the block context (and its
 * zero-base-fee twin) and the gas cap. A VM costs more than a typical call (~0.5 ms), so it is
 * built only when the reference engine runs a call here ({@link CallExecutor.vmOf}): with the
 * fast engine answering, a new context (every flashblock's) builds none. Every call runs inside
 * a checkpoint that is reverted, so the state stays the target's. Calls on one context run one
 * at a time.
 */
interface ExecContext {
  /** The reference engine's VM, built on first use ({@link CallExecutor.vmOf}). */
  vm?: Promise<VM>;
  /** The context runs over an explicit state (the VM's OP fork then follows the header's timestamp). */
  explicitState: boolean;
  state: OverlayStateManager;
  common: Common;
  header: BlockHeader;
  /** Block environments by fee variant (`base`, `zero`, `zero-blob`). */
  blocks: Map<string, ReturnType<typeof createBlock>>;
  /** The effective gas cap for `cap` (memoized per cap). */
  caps: Map<bigint, bigint>;
  /** Tail of the calls queued on this context. */
  tail: Promise<unknown>;
  /** The fast engine's context (undefined until first use, null when the fork needs the reference engine). */
  fast?: FastCallContext | null;
  /** The target's precompile moves and blob base fee override, if any ({@link CallContext}). */
  overrides?: Pick<CallContext, "precompiles" | "blobBaseFee">;
}

/** Executes calls on top of one block's state. */
export class CallExecutor {
  private readonly contexts = new LruMap<string, ExecContext>(CALL_CONTEXTS_KEPT);
  private readonly explicitContexts = new WeakMap<StateReader, ExecContext>();

  constructor(
    private readonly chain: CallChain,
    /** The engine calls run on first (`--evm`); the reference engine runs what the fast one does not support. */
    readonly engine: EvmEngineName = defaultEvmEngine(),
  ) {}

  /**
   * The fast engine's context of `ec`, or undefined when the reference engine must run it.
   * @throws ExecutionError when `ec` moves precompiles or sets a blob base fee, which only the fast engine applies.
   */
  private fastOf(ec: ExecContext): FastCallContext | undefined {
    const fast = this.fastContextOf(ec);
    if (fast === undefined && ec.overrides !== undefined) {
      throw invalidCall("rejected", "precompile and blob base fee overrides need the fast EVM engine, which does not run this call");
    }
    return fast;
  }

  private fastContextOf(ec: ExecContext): FastCallContext | undefined {
    if (this.engine !== "fast") return undefined;
    if (ec.fast === undefined) {
      try {
        const opFork = this.chain.op === undefined ? undefined : opForkAt(this.chain.op, ec.header.timestamp);
        const bc = this.chain.evmBlockchain(ec.header.parentHash);
        ec.fast = new FastCallContext(readerSource(ec.state.base), ec.header, ec.common, opFork, (n) => bc.hashSync(n), ec.overrides);
      } catch (e) {
        if (!(e instanceof FastEvmUnsupported)) throw e;
        ec.fast = null;
      }
    }
    return ec.fast ?? undefined;
  }

  /**
   * One run on the fast engine as a {@link CallOutcome}; undefined when the reference engine
   * must run it instead. Invalid calls throw geth's error.
   */
  private fastRun(ec: ExecContext, args: CallArgs, gasLimit: bigint, reportAccessList = false): CallOutcome | undefined {
    const fast = this.fastOf(ec);
    if (fast === undefined) return undefined;
    let r: TxResult;
    try {
      r = fast.run(args, gasLimit, { recordAccessList: reportAccessList });
    } catch (e) {
      if (e instanceof FastEvmUnsupported) return undefined;
      if (e instanceof TxInvalidError) throw invalidCall(INVALID_CALL_REASONS[e.reason], e.message, e.reason === TxInvalidCode.INSUFFICIENT_FUNDS || e.reason === TxInvalidCode.SENDER_NOT_EOA ? (args.from ?? ZERO_ADDRESS) : undefined);
      throw e;
    }
    const out: CallOutcome = {
      returnValue: r.output,
      gasUsed: r.gasUsed,
      refund: r.gasRefund,
      error: r.halt <= Halt.RETURN ? undefined : r.halt === Halt.REVERT ? "revert" : HALT_MESSAGES[r.halt],
    };
    if (r.accessList !== undefined) {
      out.accessList = [...r.accessList.values()].map((a) => ({ address: bytesToHex(a.address), storageKeys: [...a.slots.keys()].map((k) => "0x" + k) }));
    }
    return out;
  }

  /** Builds the unsigned transaction of `args` with `gasLimit`, sender overridden. */
  private buildTx(common: Common, args: CallArgs, gasLimit: bigint, baseFee: bigint | undefined): TypedTransaction {
    const base = {
      nonce: args.nonce ?? 0n,
      gasLimit,
      to: args.to === null || args.to === undefined ? undefined : args.to,
      value: args.value ?? 0n,
      data: args.data ?? new Uint8Array(),
      chainId: common.chainId(),
    };
    const type = callTxType(args, common.isActivatedEIP(1559));
    const accessList = (args.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]]);
    let data: Record<string, unknown>;
    const { maxFee, tip } = callFees(args, type, baseFee);
    if (type === 0) data = { ...base, type, gasPrice: maxFee };
    else if (type === 1) data = { ...base, type, gasPrice: maxFee, accessList };
    else {
      if (tip > maxFee) throw invalidCall("tip-above-fee-cap", "max priority fee per gas higher than max fee per gas");
      data = { ...base, type, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip, accessList };
      if (type === 3) {
        data.blobVersionedHashes = args.blobVersionedHashes;
        data.maxFeePerBlobGas = args.maxFeePerBlobGas ?? 0n;
      }
      if (type === 4) data.authorizationList = args.authorizationList;
    }
    const tx = createTx(data as never, { common, freeze: false });
    const from = new Address(args.from ?? ZERO_ADDRESS);
    Object.defineProperty(tx, "getSenderAddress", { value: () => from });
    return tx;
  }

  /**
   * The shared context for calls in `ctx`: over `ctx.state` when given (the OP fork then follows
   * the header's own timestamp), else over the state after `ctx.header`. Cached per target: a
   * header's context is keyed by its hash and the current head (the head's state is read from
   * the flat tables, which move with the head); an explicit state's by the state object.
   */
  private context(ctx: CallContext): ExecContext {
    const { header } = ctx;
    let key: string | undefined;
    if (ctx.state === undefined) {
      key = toHex(header.hash()) + toHex(this.chain.head.hash());
      const hit = this.contexts.get(key);
      if (hit !== undefined) return hit;
    } else {
      const hit = this.explicitContexts.get(ctx.state);
      if (hit !== undefined) return hit;
    }
    const common = this.chain.commonAt(header.number, header.timestamp);
    const explicitState = ctx.state !== undefined;
    const state = ctx.state === undefined ? this.chain.stateManagerAt(header).state : this.chain.overlayOn(ctx.state);
    const ec: ExecContext = { explicitState, state, common, header, blocks: new Map(), caps: new Map(), tail: Promise.resolve() };
    if (ctx.precompiles !== undefined || ctx.blobBaseFee !== undefined) ec.overrides = { precompiles: ctx.precompiles, blobBaseFee: ctx.blobBaseFee };
    if (key !== undefined) this.contexts.set(key, ec);
    else this.explicitContexts.set(ctx.state!, ec);
    return ec;
  }

  /** The reference engine's VM of `ec`, built the first time the reference engine runs there. */
  private vmOf(ec: ExecContext): Promise<VM> {
    ec.vm ??= this.chain.makeVM(ec.common, ec.state, ec.header.parentHash, ec.explicitState ? ec.header.timestamp : undefined);
    return ec.vm;
  }

  /** The block environment of `ec` for `args`: geth runs calls that pay nothing with base fee 0 (and blob base fee 0). */
  private blockFor(ec: ExecContext, args: CallArgs): ReturnType<typeof createBlock> {
    const key = feeVariantOf(args, ec.header);
    const zeroBase = key !== "base";
    const zeroBlob = key === "zero-blob";
    let block = ec.blocks.get(key);
    if (block === undefined) {
      const { header } = ec;
      const h = header.toJSON() as Record<string, unknown>;
      if (zeroBase && header.baseFeePerGas !== undefined) h.baseFeePerGas = 0n;
      block = createBlock({ header: h }, { common: ec.common, skipConsensusFormatValidation: true, freeze: false });
      // geth zeroes the blob base fee for calls that pay none.
      if (zeroBlob) Object.defineProperty(block.header, "getBlobGasPrice", { value: () => 0n });
      ec.blocks.set(key, block);
    }
    return block;
  }

  /**
   * Runs `fn` on the context of `ctx` after the calls queued before it, inside a checkpoint that
   * is reverted afterwards (the context keeps the target's state for the next call).
   */
  private async withContext<T>(ctx: CallContext, fn: (ec: ExecContext) => Promise<T>): Promise<T> {
    const ec = this.context(ctx);
    const run = ec.tail.then(async () => {
      await ec.state.checkpoint();
      try {
        return await fn(ec);
      } finally {
        await ec.state.revert();
        ec.state.originalStorageCache.clear();
      }
    });
    ec.tail = run.catch(() => undefined);
    return run;
  }

  private async runOnce(vm: VM, block: ReturnType<typeof createBlock>, tx: TypedTransaction, args: CallArgs, reportAccessList = false): Promise<CallOutcome> {
    let r;
    try {
      r = await runTx(vm, {
        tx,
        block,
        skipNonce: true,
        skipBalance: false,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList,
      });
    } catch (e) {
      throw gethTxError(e, args);
    }
    const err = r.execResult.exceptionError;
    return {
      returnValue: r.execResult.returnValue,
      gasUsed: r.totalGasSpent,
      refund: r.gasRefund ?? 0n,
      error: err === undefined ? undefined : err.error,
      accessList: r.accessList as CallOutcome["accessList"],
    };
  }

  /**
   * The effective gas cap: the RPC cap, lowered to the per-transaction maximum where
   * EIP-7825 (Osaka, 2^24) applies — as geth does for calls and estimates.
   */
  private capFor(ec: ExecContext, cap: bigint): bigint {
    const known = ec.caps.get(cap);
    if (known !== undefined) return known;
    const effective = this.effectiveCap(ec.common, cap);
    ec.caps.set(cap, effective);
    return effective;
  }

  private effectiveCap(common: Common, cap: bigint): bigint {
    if (common.isActivatedEIP(7825)) {
      // The EIP's cap, if the fork params do not name it.
      let max = MAX_TX_GAS_EIP7825;
      try {
        max = BigInt(common.param("maxTransactionGasLimit"));
      } catch {
        // The parameter is registered by @ethereumjs/tx only once a transaction was built.
      }
      if (max < cap) return max;
    }
    return cap;
  }

  private gasFor(ec: ExecContext, args: CallArgs, cap: bigint): bigint {
    const c = this.capFor(ec, cap);
    let gas = args.gas ?? c;
    if (gas > c) gas = c;
    return gas;
  }

  /**
   * eth_call: executes `args` at `target` (the state after a block, or an explicit context) and
   * returns the output bytes.
   * @throws ExecutionError: `REVERTED` (from {@link revertError}), `HALTED` for other halts,
   *   `INVALID_CALL` for calls that cannot run as a transaction.
   */
  async call(target: CallTarget, args: CallArgs, cap = RPC_GAS_CAP): Promise<Uint8Array> {
    return this.withContext(callContextOf(target), async (ec) => {
      const gas = this.gasFor(ec, args, cap);
      const out = this.fastRun(ec, args, gas) ?? (await this.runOnce(await this.vmOf(ec), this.blockFor(ec, args), this.buildTx(ec.common, args, gas, ec.header.baseFeePerGas), args));
      if (out.error === "revert") throw revertError(out.returnValue);
      if (out.error !== undefined) throw new ExecutionError({ code: ExecutionErrorCode.HALTED, reason: out.error }, gethHaltMessage(out.error, out.gasUsed));
      return out.returnValue;
    });
  }

  /**
   * debug_traceCall / debug_traceCallMany: runs `calls` one after the other at `target` on the
   * reference engine (the fast engine has no step hooks), each seeing the previous ones' effects,
   * all reverted afterwards; `observe.start` is told before each run and its answer after it.
   * Invalid calls throw geth's error (as eth_call).
   */
  async traceCalls(target: CallTarget, calls: CallArgs[], cap: bigint, observe: CallObserver): Promise<void> {
    return this.withContext(callContextOf(target), async (ec) => {
      for (const args of calls) {
        const gas = this.gasFor(ec, args, cap);
        const tx = this.buildTx(ec.common, args, gas, ec.header.baseFeePerGas);
        const vm = await this.vmOf(ec);
        const end = observe.start({ vm, state: ec.state, header: ec.header, args, gas });
        let out: CallOutcome;
        try {
          out = await this.runOnce(vm, this.blockFor(ec, args), tx, args);
        } finally {
          end.detach();
        }
        end.done(out);
      }
    });
  }

  /**
   * eth_estimateGas: geth/reth gas search (see estimateGas.ts) at `target`, with one VM and
   * state reused across runs (each run inside a checkpoint that is reverted).
   */
  async estimateGas(target: CallTarget, args: CallArgs, cap = RPC_GAS_CAP): Promise<bigint> {
    return this.withContext(callContextOf(target), async (ec) => {
      const { state, common, header } = ec;
      const block = this.blockFor(ec, args);
      let hi = args.gas !== undefined && args.gas >= 21_000n ? args.gas : header.gasLimit;
      const feePerGas = args.maxFeePerGas ?? args.gasPrice ?? 0n;
      if (feePerGas > 0n) {
        const acc = state.getAccountSync(args.from ?? ZERO_ADDRESS);
        let blobCost: bigint | undefined;
        if (args.blobVersionedHashes !== undefined) blobCost = BigInt(args.blobVersionedHashes.length) * 131_072n * (args.maxFeePerBlobGas ?? 0n);
        hi = capByAllowance(hi, acc?.balance ?? 0n, args.value ?? 0n, feePerGas, blobCost);
      }
      const effCap = this.capFor(ec, cap);
      if (hi > effCap) hi = effCap;
      const to = args.to ?? undefined;
      let isPlainTransfer = (args.data === undefined || args.data.length === 0) && to !== undefined;
      if (isPlainTransfer && to !== undefined) {
        const acc = state.getAccountSync(to);
        if (acc !== undefined && !equalsBytes(acc.codeHash, KECCAK256_NULL)) isPlainTransfer = false;
      }
      const run = async (gasLimit: bigint): Promise<GasRunResult> => {
        let fast: CallOutcome | undefined;
        try {
          fast = this.fastRun(ec, args, gasLimit);
        } catch (e) {
          if (refusedForGasLimit(e)) return { ok: false, gasUsed: 0n, refund: 0n };
          throw e;
        }
        if (fast !== undefined) {
          if (fast.error === undefined) return { ok: true, gasUsed: fast.gasUsed, refund: fast.refund };
          if (fast.error === "revert") return { ok: false, gasUsed: fast.gasUsed, refund: fast.refund, revertData: fast.returnValue };
          return { ok: false, gasUsed: fast.gasUsed, refund: fast.refund, error: fast.error };
        }
        const tx = this.buildTx(common, args, gasLimit, header.baseFeePerGas);
        await state.checkpoint();
        try {
          const out = await this.runOnce(await this.vmOf(ec), block, tx, args);
          if (out.error === undefined) return { ok: true, gasUsed: out.gasUsed, refund: out.refund };
          if (out.error === "revert") return { ok: false, gasUsed: out.gasUsed, refund: out.refund, revertData: out.returnValue };
          return { ok: false, gasUsed: out.gasUsed, refund: out.refund, error: out.error };
        } catch (e) {
          if (refusedForGasLimit(e)) return { ok: false, gasUsed: 0n, refund: 0n };
          throw e;
        } finally {
          await state.revert();
          state.originalStorageCache.clear();
        }
      };
      return searchGas({ run, hi, isPlainTransfer });
    });
  }

  /**
   * eth_createAccessList (geth algorithm) at `target`: run with the current list until the
   * touched addresses and slots stop changing; sender, recipient and precompiles are left out
   * unless their storage was accessed (then listed with the slots, as geth does).
   */
  async createAccessList(
    target: CallTarget,
    args: CallArgs,
    cap = RPC_GAS_CAP,
  ): Promise<{ accessList: { address: string; storageKeys: string[] }[]; gasUsed: bigint; error?: string }> {
    return this.withContext(callContextOf(target), async (ec) => {
      const { state, common, header } = ec;
      const block = this.blockFor(ec, args);
      const gas = this.gasFor(ec, args, cap);
      const from = bytesToHex(args.from ?? ZERO_ADDRESS);
      let to: string | undefined = args.to === undefined || args.to === null ? undefined : bytesToHex(args.to);
      if (to === undefined) {
        const acc = state.getAccountSync(args.from ?? ZERO_ADDRESS);
        to = bytesToHex(createAddress(args.from ?? ZERO_ADDRESS, args.nonce ?? acc?.nonce ?? 0n));
      }
      const precompiles = new Set<string>();
      for (let i = 1; i <= 0x11; i++) precompiles.add("0x" + i.toString(16).padStart(40, "0"));
      // P256VERIFY at 0x100: EIP-7951 (Osaka), and on OP chains RIP-7212 from Fjord (op-revm's Fjord precompiles).
      const opP256 = this.chain.op !== undefined && opForkAt(this.chain.op, header.timestamp) >= OpFork.fjord;
      if (common.isActivatedEIP(7951) || opP256) precompiles.add("0x" + "100".padStart(40, "0"));
      let list: { address: string; storageKeys: string[] }[] = (args.accessList ?? []).map((e) => ({
        address: bytesToHex(e.address),
        storageKeys: e.storageKeys.map((k) => bytesToHex(k) as string),
      }));
      for (let i = 0; i < 16; i++) {
        const withList = { ...args, accessList: list.map((e) => ({ address: hexBytes(e.address), storageKeys: e.storageKeys.map(hexBytes) })) };
        let out = this.fastRun(ec, withList, gas, true);
        if (out === undefined) {
          const tx = this.buildTx(common, withList, gas, header.baseFeePerGas);
          await state.checkpoint();
          try {
            out = await this.runOnce(await this.vmOf(ec), block, tx, args, true);
          } finally {
            await state.revert();
            state.originalStorageCache.clear();
          }
        }
        // geth's access-list tracer: sender, recipient and precompiles are left out as bare
        // addresses, never with their slots (a call's own SLOADs list the recipient's keys).
        const next = (out.accessList ?? [])
          .filter((e) => e.storageKeys.length > 0 || (e.address !== from && e.address !== to && !precompiles.has(e.address)))
          .map((e) => ({ address: e.address, storageKeys: [...e.storageKeys] }));
        if (sameList(next, list)) {
          const error = out.error === undefined ? undefined : out.error === "revert" ? revertError(out.returnValue).message : gethHaltMessage(out.error, out.gasUsed);
          return { accessList: list, gasUsed: out.gasUsed, error };
        }
        list = next;
      }
      return { accessList: list, gasUsed: 0n };
    });
  }
}

function hexBytes(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h.slice(2), "hex"));
}

function sameList(a: { address: string; storageKeys: string[] }[], b: { address: string; storageKeys: string[] }[]): boolean {
  const key = (l: { address: string; storageKeys: string[] }[]): string =>
    l
      .map((e) => e.address + ":" + [...e.storageKeys].sort().join(","))
      .sort()
      .join("|");
  return key(a) === key(b);
}

/** geth's message for an EVM halt (other than revert). */
function gethHaltMessage(error: string, gasUsed: bigint): string {
  void gasUsed;
  switch (error) {
    case "out of gas":
      return "out of gas";
    case "invalid opcode":
      return "invalid opcode";
    case "stack underflow":
      return "stack underflow";
    case "stack overflow":
      return "stack limit reached 1024 (1023)";
    case "invalid JUMP":
      return "invalid jump destination";
    default:
      return error;
  }
}
