/**
 * eth_call, eth_estimateGas and eth_createAccessList on the fast EVM: a call runs as a message
 * (geth's `eth_call`: no signed transaction object, nonce and EOA checks skipped), on an
 * {@link EvmState} that belongs to the call context and keeps its account and slot caches
 * between calls — every run's effects are discarded; of its loaded state, what was read before
 * recently is kept (evm/loadAdmission.ts), the rest is dropped after the call.
 */
import type { BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { OpFork } from "../chain/op/forks.js";
import { CALL_STATE_ADMISSION_SLOTS, CALL_STATE_MAX_ACCOUNTS, CALL_STATE_MAX_SLOTS } from "./constants.js";
import type { CallArgs } from "./callArgs.js";
import { callFees, callTxType, feeVariantOf, type FeeVariant } from "./callMessage.js";
import { blockEnvOf, FastEvm } from "./evm/engine.js";
import type { PrecompileSet } from "./evm/precompiles/index.js";
import { movedPrecompileSet } from "./simulate/precompileSet.js";
import type { BlockEnv } from "./evm/interpreter.js";
import { LoadAdmission } from "./evm/loadAdmission.js";
import { EvmState, type StateSource } from "./evm/state.js";
import { authorizationFromBytes, runTransaction, type EvmTransaction, type TxResult } from "./evm/transaction.js";

const ZERO_ADDRESS = new Uint8Array(20);
const EMPTY = new Uint8Array(0);
const NO_LIST: readonly never[] = [];
/** One doorkeeper per thread: an entry hot at one head is hot at the next. */
const admission = new LoadAdmission(CALL_STATE_ADMISSION_SLOTS);

/**
 * The message of a call (geth `TransactionArgs.ToMessage` for eth_call, rules in callMessage.ts).
 * Fee caps are checked by the transaction layer (tip above cap is an error).
 */
export function callTransaction(args: CallArgs, gasLimit: bigint, baseFee: bigint | undefined, eip1559: boolean): EvmTransaction {
  const type = callTxType(args, eip1559);
  const { maxFee, tip } = callFees(args, type, baseFee);
  const auths = args.authorizationList as Uint8Array[][] | undefined;
  return {
    type,
    sender: args.from ?? ZERO_ADDRESS,
    to: args.to === null || args.to === undefined ? undefined : args.to,
    nonce: args.nonce ?? 0n,
    gasLimit,
    value: args.value ?? 0n,
    data: args.data ?? EMPTY,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: tip,
    accessList: args.accessList ?? NO_LIST,
    blobVersionedHashes: args.blobVersionedHashes ?? NO_LIST,
    maxFeePerBlobGas: args.maxFeePerBlobGas ?? 0n,
    authorizationList: auths === undefined ? NO_LIST : auths.map(authorizationFromBytes),
  };
}

/** The fast engine's part of a call context: the engine, the cached state and the block environments. */
export class FastCallContext {
  readonly evm: FastEvm;
  readonly state: EvmState;
  private readonly envs = new Map<FeeVariant, BlockEnv>();

  /**
   * @throws FastEvmUnsupported when the fork runs on the reference engine only.
   */
  constructor(
    source: StateSource,
    private readonly header: BlockHeader,
    readonly common: Common,
    opFork: OpFork | undefined,
    private readonly blockHash: (n: bigint) => Uint8Array,
    overrides: { precompiles?: ReadonlyMap<string, string>; blobBaseFee?: bigint } = {},
  ) {
    this.evm = FastEvm.of(common, opFork);
    this.state = new EvmState(source, true);
    this.precompiles = overrides.precompiles === undefined ? this.evm.precompiles : movedPrecompileSet(this.evm.precompiles, overrides.precompiles);
    this.blobBaseFee = overrides.blobBaseFee;
  }

  /** The precompiles calls see: the fork's, or as state overrides moved them. */
  private readonly precompiles: PrecompileSet;
  /** A block override's blob base fee (geth applies it to the block context only). */
  private readonly blobBaseFee: bigint | undefined;

  private env(variant: FeeVariant): BlockEnv {
    let e = this.envs.get(variant);
    if (e === undefined) {
      e = blockEnvOf(this.header, this.blockHash, variant !== "base");
      if (variant === "zero") e.blobBaseFee = this.header.excessBlobGas === undefined ? 0n : this.header.getBlobGasPrice();
      if (this.blobBaseFee !== undefined && variant !== "zero-blob") e.blobBaseFee = this.blobBaseFee;
      this.envs.set(variant, e);
    }
    return e;
  }

  /**
   * Runs `args` with `gasLimit` as a message call; every effect is discarded afterwards.
   * @throws TxInvalidError for calls that cannot run (funds, fee caps, intrinsic gas…),
   *   FastEvmUnsupported for what the reference engine must run.
   */
  run(args: CallArgs, gasLimit: bigint, opts: { recordAccessList?: boolean } = {}): TxResult {
    const variant = feeVariantOf(args, this.header);
    const env = this.env(variant);
    const tx = callTransaction(args, gasLimit, this.header.baseFeePerGas, this.common.isActivatedEIP(1559));
    try {
      return runTransaction({ ...this.evm.context(this.state, env), precompiles: this.precompiles }, tx, { call: true, checkBlockGasLimit: false, discard: true, recordAccessList: opts.recordAccessList });
    } catch (e) {
      this.state.discardTransaction();
      throw e;
    } finally {
      this.state.evictLoads(admission, CALL_STATE_MAX_ACCOUNTS, CALL_STATE_MAX_SLOTS);
    }
  }
}
