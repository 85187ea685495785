/**
 * State and block overrides of eth_call and eth_estimateGas (their third and fourth parameters,
 * as geth takes them): the call then runs in an explicit context — the header with the block
 * overrides applied (geth `BlockOverrides.MakeHeader`; the blob base fee, which a header cannot
 * carry, beside it), over the target's state with the state overrides written into a private
 * overlay, and the precompiles as the overrides moved or removed them.
 */
import { createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import { fromHex } from "../../util/bytes.js";
import { callContextOf, type CallChain, type CallContext, type CallTarget } from "../callExecutor.js";
import { OverlayStateManager } from "../state/overlayStateManager.js";
import type { StateReader } from "../state/stateReader.js";
import { FastEvm } from "../evm/engine.js";
import { opForkAt } from "../../chain/op/forks.js";
import { SimulateError, SimulateErrorCode } from "./errors.js";
import { applyStateOverrides, nativePrecompiles, type SerializedBlockOverrides, type SerializedStateOverrides } from "./overrides.js";

/**
 * `header` with `o` applied (number, difficulty, time, gas limit, fee recipient, prev randao,
 * base fee); geth refuses `beaconRoot` and `withdrawals` outside eth_simulateV1.
 * @throws SimulateError `BAD_OVERRIDE` for those two.
 */
function overriddenHeader(chain: CallChain, header: BlockHeader, o: SerializedBlockOverrides): BlockHeader {
  if (o.beaconRoot !== undefined) throw new SimulateError(SimulateErrorCode.BAD_OVERRIDE, `block override "beaconRoot" is not supported for this RPC method`);
  if (o.withdrawals !== undefined) throw new SimulateError(SimulateErrorCode.BAD_OVERRIDE, `block override "withdrawals" is not supported for this RPC method`);
  const h = header.toJSON() as Record<string, unknown>;
  if (o.number !== undefined) h.number = BigInt(o.number);
  if (o.difficulty !== undefined) h.difficulty = BigInt(o.difficulty);
  if (o.time !== undefined) h.timestamp = BigInt(o.time);
  if (o.gasLimit !== undefined) h.gasLimit = BigInt(o.gasLimit);
  if (o.feeRecipient !== undefined) h.coinbase = fromHex(o.feeRecipient);
  if (o.prevRandao !== undefined) h.mixHash = fromHex(o.prevRandao);
  if (o.baseFeePerGas !== undefined) h.baseFeePerGas = BigInt(o.baseFeePerGas);
  const common = chain.commonAt(BigInt(h.number as string | bigint), BigInt(h.timestamp as string | bigint));
  return createBlockHeader(h as never, { common, skipConsensusFormatValidation: true });
}

/** A state reader over an overlay's current contents (the overrides written into it; debug_traceCall's replayed transactions). */
export function overlayReader(overlay: OverlayStateManager): StateReader {
  return {
    stateRoot: overlay.base.stateRoot,
    account: (a) => overlay.getAccountSync(a),
    storage: (a, s) => overlay.getStorageSync(a, s),
    code: (h) => overlay.codeByHash(h),
  };
}

/**
 * The context a call with overrides runs in.
 * @throws SimulateError `BAD_OVERRIDE` for overrides geth refuses.
 */
export function overriddenTarget(chain: CallChain, target: CallTarget, state: SerializedStateOverrides | undefined, block: SerializedBlockOverrides | undefined): CallContext {
  const ctx = callContextOf(target);
  const header = block === undefined ? ctx.header : overriddenHeader(chain, ctx.header, block);
  const blobBaseFee = block?.blobBaseFee === undefined ? {} : { blobBaseFee: BigInt(block.blobBaseFee) };
  if (state === undefined) return { header, state: ctx.state ?? chain.stateManagerAt(ctx.header).state.base, ...blobBaseFee };
  const overlay =
    ctx.state === undefined ? chain.stateManagerAt(ctx.header).state : chain.overlayOn(ctx.state);
  const common = chain.commonAt(header.number, header.timestamp);
  const native = nativePrecompiles(FastEvm.of(common, chain.op === undefined ? undefined : opForkAt(chain.op, header.timestamp)).precompiles.addresses);
  const precompiles = new Map(native);
  applyStateOverrides(overlay, state, precompiles);
  const changed = precompiles.size !== native.size || [...precompiles].some(([at, from]) => at !== from);
  return { header, state: overlayReader(overlay), ...blobBaseFee, ...(changed ? { precompiles } : {}) };
}
