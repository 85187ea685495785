/**
 * A parity-style trace request (reth's trace_* methods) in the form that crosses the thread
 * boundary, and its answer on the thread holding the chain: one transaction replayed in its
 * block, every transaction of a block, or calls run at a block's state — each with the
 * {@link ParityTracer} of the trace types asked for. The answer is JSON text: the tracer's
 * result for a transaction (`null` when the transaction is unknown), an array of them for a
 * block (`null` when the block is not stored) or for calls.
 */
import { fromHex } from "../../util/bytes.js";
import type { CallArgs } from "../callArgs.js";
import type { CallTarget } from "../callExecutor.js";
import { resolveCallTarget, type CallBlockRef } from "../callTarget.js";
import { overriddenTarget } from "../simulate/callOverrides.js";
import type { SerializedBlockOverrides, SerializedStateOverrides } from "../simulate/overrides.js";
import { parseTraceConfig } from "./config.js";
import { parentOf } from "./parent.js";
import { ParityTracer, type ParityTraceType } from "./parityTracer.js";
import { traceBlock } from "./replay.js";
import type { CallTracing, TraceChain } from "./tracing.js";
import { traceCalls } from "./traceCall.js";

/** What a parity request traces. */
export type ParitySubject =
  | { kind: "tx"; hash: string }
  | { kind: "block"; hash: string }
  | {
      kind: "calls";
      /** Each call with its trace types (trace_callMany: one list per call). */
      calls: { args: CallArgs; types: ParityTraceType[] }[];
      block: CallBlockRef;
      /** Gas cap (`--rpc.gascap`). */
      gasCap: bigint;
      stateOverrides?: SerializedStateOverrides;
      blockOverrides?: SerializedBlockOverrides;
    };

/** A parity trace request; `types` for tx and block subjects. */
export interface ParityRequest {
  kind: "parity";
  subject: ParitySubject;
  types: ParityTraceType[];
}

/**
 * Answers `req` over `chain` (see the module comment for the JSON).
 * @throws TraceError (genesis, timeout), ExecutionError `INVALID_CALL` for a call that cannot run,
 *   ChainError `STATE_UNAVAILABLE` (pruned parent state)
 */
export async function answerParityRequest(chain: TraceChain, req: ParityRequest, calls: CallTracing): Promise<string> {
  const cfg = parseTraceConfig(null);
  const s = req.subject;
  const make = (): ParityTracer => new ParityTracer(new Set(req.types));
  switch (s.kind) {
    case "tx": {
      const loc = chain.store.getTxLocation(fromHex(s.hash));
      const block = loc === undefined ? undefined : chain.getBlockByHash(loc.blockHash);
      if (loc === undefined || block === undefined) return "null";
      const [trace] = await traceBlock(chain, block, parentOf(chain, block), cfg, new Set([loc.index]), make);
      if (trace === undefined) return "null";
      if (trace.failure !== undefined) throw trace.failure;
      return trace.result!;
    }
    case "block": {
      const block = chain.getBlockByHash(fromHex(s.hash));
      if (block === undefined) return "null";
      if (block.header.number === 0n) return "[]";
      const traces = await traceBlock(chain, block, parentOf(chain, block), cfg, undefined, make);
      for (const t of traces) if (t.failure !== undefined) throw t.failure;
      return `[${traces.map((t) => t.result!).join(",")}]`;
    }
    case "calls": {
      let target: CallTarget = resolveCallTarget(chain, calls.pending, s.block);
      if (s.stateOverrides !== undefined || s.blockOverrides !== undefined) target = overriddenTarget(chain, target, s.stateOverrides, s.blockOverrides);
      const results = await traceCalls(calls.executor, target, s.calls.map((c) => c.args), cfg, s.gasCap, (i) => new ParityTracer(new Set(s.calls[i]!.types)));
      return `[${results.join(",")}]`;
    }
  }
}
