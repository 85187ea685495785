/**
 * geth-style tracing: debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash
 * and debug_traceBlock (RLP), with the struct logger and geth's native tracers
 * (src/execution/trace/). The RPC thread checks the parameters and the trace config (a
 * malformed request never reaches a worker) and resolves block numbers and tags to hashes; the
 * execution pool replays the block, never this thread. `--public` keeps debug_* off
 * (publicPolicy.ts).
 */
import { parseTraceConfig } from "../../execution/trace/config.js";
import { TraceError, TraceErrorCode } from "../../execution/trace/errors.js";
import type { TraceRequest } from "../../execution/trace/request.js";
import { createTracer } from "../../execution/trace/tracers.js";
import { to0x } from "../../util/bytes.js";
import type { RpcBackend } from "../backend.js";
import { parseBlockParam, resolveBlock } from "../blockParam.js";
import { InvalidParamsError, ServerError } from "../errors.js";
import { parseData, parseHash } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import { RawJson, type MethodTable } from "../types.js";

/**
 * Checks the trace config at `params[i]` as geth decodes it: a field of the wrong type is an
 * invalid argument (-32602); an unknown tracer, a malformed tracer config or timeout answer
 * -32000 (geth finds them when the tracer is built).
 */
function checkConfig(params: unknown[], i: number): unknown {
  const raw = params[i];
  try {
    createTracer(parseTraceConfig(raw));
  } catch (e) {
    if (e instanceof TraceError && e.type.code === TraceErrorCode.BAD_CONFIG && e.message.includes("tracers.TraceConfig") ) throw new InvalidParamsError(`invalid argument ${i}: ${e.message}`);
    if (e instanceof TraceError && e.type.code === TraceErrorCode.BAD_CONFIG && e.message.includes("Go struct field TraceConfig.")) throw new InvalidParamsError(`invalid argument ${i}: ${e.message}`);
    throw e;
  }
  return raw ?? null;
}

/** Handlers of the debug_trace* family. */
export function traceMethods(b: RpcBackend): MethodTable {
  const { chain, calls } = b;
  const run = async (method: string, req: TraceRequest): Promise<RawJson> => new RawJson(await calls.trace(method, req));
  return {
    /** debug_traceTransaction(hash, config): the trace of one transaction, its block's earlier transactions replayed first. */
    debug_traceTransaction: (params) => {
      maxParams(params, 2);
      const hash = parseHash(required(params, 0), 0);
      return run("debug_traceTransaction", { kind: "tx", hash: to0x(hash), config: checkConfig(params, 1) });
    },
    /** debug_traceBlockByNumber(number, config): every transaction of a canonical block. */
    debug_traceBlockByNumber: (params) => {
      maxParams(params, 2);
      const p = parseBlockParam(required(params, 0), 0);
      const config = checkConfig(params, 1);
      const block = resolveBlock(chain, p);
      if (block === undefined) throw new ServerError(`block #${p.kind === "number" ? p.number : 0} not found`);
      return run("debug_traceBlockByNumber", { kind: "block", hash: to0x(block.hash()), config });
    },
    /** debug_traceBlockByHash(hash, config): every transaction of a stored block. */
    debug_traceBlockByHash: (params) => {
      maxParams(params, 2);
      const hash = to0x(parseHash(required(params, 0), 0));
      return run("debug_traceBlockByHash", { kind: "block", hash, config: checkConfig(params, 1) });
    },
    /** debug_traceBlock(rlp, config): every transaction of an RLP-encoded block whose parent is stored. */
    debug_traceBlock: (params) => {
      maxParams(params, 2);
      const rlp = to0x(parseData(required(params, 0), 0));
      return run("debug_traceBlock", { kind: "rlp", rlp, config: checkConfig(params, 1) });
    },
  };
}
