/**
 * Running one Base native precompile call to its outcome (base/base `base_precompile!` and
 * `BasePrecompileError::into_precompile_result`): a call through DELEGATECALL or CALLCODE
 * reverts `DelegateCallNotAllowed()` at no gas; otherwise the handler runs over a metered
 * {@link BaseCallContext}, and whatever it throws becomes a revert (gas used so far, its data)
 * or a halt (all gas) — see `errors.ts` for the table.
 *
 * The outcome says nothing about state: the engine that called keeps the precompile's writes,
 * logs and refund on success and undoes them on revert or halt, as for any call frame.
 *
 * A fatal failure (base/base `PrecompileError::Fatal`: a broken invariant, a database error) is
 * no outcome: alloy-evm turns it into an EVM error that aborts the transaction — the block
 * cannot be built or imported — so {@link PrecompileFatalError} propagates to the engine's
 * caller, and so does any error that is not one of the precompile's own (a bug).
 */
import type { BasaltError } from "../../util/errors.js";
import { encodeCall, selectorOf } from "./abi.js";
import { BaseCallContext, type BaseCallEnv } from "./context.js";
import {
  AbiDecodeError,
  PrecompileOutOfGasError,
  PrecompilePanicError,
  PrecompileRevertError,
  StaticCallViolationError,
  UnknownSelectorError,
} from "./errors.js";
import type { BaseGasSchedule } from "./gas.js";
import type { BaseStateHost } from "./host.js";

/** A precompile's logic: its return data for `input`, or one of `errors.ts`'s errors thrown. */
export type BasePrecompileHandler = (ctx: BaseCallContext, input: Uint8Array) => Uint8Array;

/** How a call ended. `gasUsed` includes everything charged; a halt uses all the call's gas. */
export type BasePrecompileOutcome =
  | { status: "success"; output: Uint8Array; gasUsed: number; refund: number }
  | { status: "revert"; output: Uint8Array; gasUsed: number }
  | { status: "halt"; reason: "outOfGas"; gasUsed: number; error: BasaltError };

/** `DelegateCallNotAllowed()`: what a DELEGATECALL or CALLCODE into a Base precompile returns. */
export const DELEGATE_CALL_NOT_ALLOWED = encodeCall(selectorOf("DelegateCallNotAllowed()"), [], []);

/** `Panic(uint256)`'s selector (0x4e487b71). */
const PANIC_SELECTOR = selectorOf("Panic(uint256)");

const EMPTY = new Uint8Array(0);

/**
 * Runs `handler` for one call. `direct` is false for DELEGATECALL and CALLCODE (the code's
 * address is not the address called).
 * @throws PrecompileFatalError (or the error itself, for one that is not the precompile's own) —
 *   the transaction cannot execute.
 */
export function runBasePrecompile(handler: BasePrecompileHandler, input: Uint8Array, env: BaseCallEnv, host: BaseStateHost, schedule: BaseGasSchedule, direct: boolean): BasePrecompileOutcome {
  if (!direct) return { status: "revert", output: DELEGATE_CALL_NOT_ALLOWED, gasUsed: 0 };
  const ctx = new BaseCallContext(host, env, schedule);
  return outcomeOf(ctx, () => handler(ctx, input));
}

/** The outcome of running `f` over `ctx` (exported for the golden tests, which call dispatchers directly). */
export function outcomeOf(ctx: BaseCallContext, f: () => Uint8Array): BasePrecompileOutcome {
  try {
    const output = f();
    return { status: "success", output, gasUsed: ctx.gasUsed, refund: ctx.refund };
  } catch (e) {
    if (e instanceof PrecompileRevertError) return { status: "revert", output: e.data, gasUsed: ctx.gasUsed };
    if (e instanceof PrecompilePanicError) return { status: "revert", output: encodeCall(PANIC_SELECTOR, ["uint256"], [BigInt(e.panicCode)]), gasUsed: ctx.gasUsed };
    if (e instanceof UnknownSelectorError) return { status: "revert", output: e.selector, gasUsed: ctx.gasUsed };
    if (e instanceof AbiDecodeError) {
      const reason = new TextEncoder().encode(e.reason);
      const out = new Uint8Array(4 + reason.length);
      out.set(e.selector);
      out.set(reason, 4);
      return { status: "revert", output: out, gasUsed: ctx.gasUsed };
    }
    if (e instanceof StaticCallViolationError) return { status: "revert", output: EMPTY, gasUsed: ctx.gasUsed };
    if (e instanceof PrecompileOutOfGasError) return { status: "halt", reason: "outOfGas", gasUsed: ctx.env.gasLimit, error: e };
    throw e;
  }
}
