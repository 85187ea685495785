/**
 * eth_simulateV1's first parameter parsed on the RPC thread: the JSON shape of the request, the
 * overrides (src/rpc/overrideParams.ts) and geth's request limits (blocks, calls), before any
 * thread hop. Call objects are parsed by the RPC layer's call-object parser (the same as
 * eth_call's, src/rpc/params.ts).
 */
import type { CallArgs } from "../execution/callArgs.js";
import { SimulateError, SimulateErrorCode } from "../execution/simulate/errors.js";
import type { SimulateBlockInput, SimulateRequest } from "../execution/simulate/request.js";
import { MAX_SIMULATE_BLOCKS } from "../execution/constants.js";
import { MAX_SIMULATE_CALLS_PER_BLOCK, MAX_SIMULATE_TOTAL_CALLS } from "./constants.js";
import { invalid, isRecord, parseBlockOverrides, parseStateOverrides } from "./overrideParams.js";

/**
 * Parses eth_simulateV1's first parameter; `parseCall` parses one call object (the RPC layer's
 * parser). Checks geth's limits first: no blocks ("empty input"), more than
 * {@link MAX_SIMULATE_BLOCKS} blocks, too many calls per block or in total.
 * @throws SimulateError `INVALID_PARAMS` or `LIMIT_EXCEEDED`.
 */
export function parseSimulateRequest(v: unknown, parseCall: (call: unknown) => CallArgs): SimulateRequest {
  if (!isRecord(v)) throw invalid("invalid argument 0: simulation options object expected");
  const bsc = v.blockStateCalls ?? [];
  if (!Array.isArray(bsc)) throw invalid("invalid argument 0: blockStateCalls must be an array");
  if (bsc.length === 0) throw invalid("empty input");
  if (bsc.length > MAX_SIMULATE_BLOCKS) throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, "too many blocks");
  let total = 0;
  const blocks = bsc.map((b: unknown, i): SimulateBlockInput => {
    if (!isRecord(b)) throw invalid(`invalid argument 0: blockStateCalls[${i}]: object expected`);
    const calls = b.calls ?? [];
    if (!Array.isArray(calls)) throw invalid(`invalid argument 0: blockStateCalls[${i}].calls must be an array`);
    if (calls.length > MAX_SIMULATE_CALLS_PER_BLOCK) {
      throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, `too many calls in block: ${calls.length} > ${MAX_SIMULATE_CALLS_PER_BLOCK}`);
    }
    total += calls.length;
    if (total > MAX_SIMULATE_TOTAL_CALLS) throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, `too many calls: ${total} > ${MAX_SIMULATE_TOTAL_CALLS}`);
    const out: SimulateBlockInput = { calls: calls.map((c) => parseCall(c)) };
    const bo = parseBlockOverrides(b.blockOverrides, `blockStateCalls[${i}].blockOverrides`);
    if (bo !== undefined) out.blockOverrides = bo;
    const so = parseStateOverrides(b.stateOverrides, `blockStateCalls[${i}].stateOverrides`);
    if (so !== undefined) out.stateOverrides = so;
    return out;
  });
  const flag = (k: string): boolean => {
    const f = v[k];
    if (f === undefined || f === null) return false;
    if (typeof f !== "boolean") throw invalid(`invalid argument 0: ${k} must be a boolean`);
    return f;
  };
  return { blocks, traceTransfers: flag("traceTransfers"), validation: flag("validation"), returnFullTransactions: flag("returnFullTransactions") };
}
