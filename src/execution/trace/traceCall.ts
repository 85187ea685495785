/**
 * debug_traceCall and debug_traceCallMany: calls (geth `TransactionArgs`) traced at a block's
 * state with eth_call's semantics (no nonce check, zero-fee calls run with base fee 0, the gas
 * cap), on the reference engine through the call executor; a bundle's calls see the earlier
 * calls' effects. The tracers see a zero transaction and block hash (geth traces calls with an
 * empty context).
 */
import type { CallExecutor, CallTarget } from "../callExecutor.js";
import type { CallArgs } from "../callArgs.js";
import type { TraceConfig } from "./config.js";
import { attachTracer, stateViewOf } from "./hooks.js";
import { precompileTest, timeoutError } from "./replay.js";
import { createTracer } from "./tracers.js";
import type { Tracer } from "./tracer.js";

const ZERO_ADDRESS = new Uint8Array(20);
const ZERO_HASH = "0x" + "00".repeat(32);

/**
 * Traces `calls` in order at `target`; returns each call's result JSON text.
 * @param make builds the tracer of call `i` (default: the tracer `cfg` names)
 * @throws ExecutionError `INVALID_CALL` for a call that cannot run; TraceError for a timeout or the size cap
 */
export async function traceCalls(
  executor: CallExecutor,
  target: CallTarget,
  calls: CallArgs[],
  cfg: TraceConfig,
  cap: bigint,
  make: (i: number) => Tracer = () => createTracer(cfg),
): Promise<string[]> {
  const results: string[] = [];
  await executor.traceCalls(target, calls, cap, {
    start({ vm, state, header, args, gas }) {
      const tracer = make(results.length);
      const view = stateViewOf(state);
      const from = args.from ?? ZERO_ADDRESS;
      tracer.onTxStart({
        from,
        to: args.to ?? undefined,
        value: args.value ?? 0n,
        gasLimit: gas,
        input: args.data ?? new Uint8Array(),
        coinbase: header.coinbase.bytes,
        nonce: view.account(from)?.nonce ?? 0n,
        state: view,
        isPrecompile: precompileTest(vm.evm as never),
        blockHash: ZERO_HASH,
        blockNumber: 0n,
        txHash: ZERO_HASH,
        txIndex: 0,
      });
      const { detach, top } = attachTracer(vm.evm as never, tracer, view, from, performance.now() + cfg.timeoutMs, () => timeoutError(cfg.timeoutMs));
      return {
        detach,
        done(out) {
          tracer.onTxEnd({ gasUsed: out.gasUsed, output: top.output, error: top.error, reverted: top.reverted, state: view });
          results.push(tracer.result());
        },
      };
    },
  });
  return results;
}
