/**
 * geth-style tracing: debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash,
 * debug_traceBlock (RLP), debug_traceCall and debug_traceCallMany, with the struct logger and geth's native tracers;
 * and reth's eth_callMany (debug_traceCallMany's bundles with the outputs only)
 * (src/execution/trace/). The RPC thread checks the parameters and the trace config (a
 * malformed request never reaches a worker) and resolves block numbers and tags to hashes; the
 * execution pool replays the block, never this thread. `--public` keeps debug_* (not eth_callMany) off
 * (publicPolicy.ts).
 */
import { parseTraceConfig } from "../../execution/trace/config.js";
import { TraceError, TraceErrorCode } from "../../execution/trace/errors.js";
import type { TraceCallsRequest, TraceRequest } from "../../execution/trace/request.js";
import type { CallBlockRef } from "../../execution/callTarget.js";
import { parseBlockOverrides, parseStateOverrides } from "../overrideParams.js";
import { goField } from "../../execution/trace/config.js";
import { isPendingParam } from "../blockParam.js";
import { parseCallArgs } from "../params.js";
import { pendingFor } from "./pending.js";
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
    if (e instanceof TraceError && e.type.code === TraceErrorCode.BAD_CONFIG && e.type.argument === true) throw new InvalidParamsError(`invalid argument ${i}: ${e.message}`);
    throw e;
  }
  return raw ?? null;
}

/**
 * The block a traced call runs after (`pending`: the pre-confirmed state when there is one) and
 * the overrides of its config (geth `TraceCallConfig`: `stateOverrides`, `blockOverrides`).
 */
function callContextParams(
  b: RpcBackend,
  method: string,
  params: unknown[],
  blockIndex: number,
  configIndex: number,
  txIndex: number | undefined,
): Pick<TraceCallsRequest, "block" | "config" | "stateOverrides" | "blockOverrides" | "gasCap" | "txIndex"> {
  const p = parseBlockParam(params[blockIndex], blockIndex, { allowHash: true, optional: method === "debug_traceCallMany" || method === "eth_callMany" });
  const config = checkConfig(params, configIndex);
  const c = config !== null && typeof config === "object" ? (config as Record<string, unknown>) : {};
  const index = txIndex ?? txIndexOf(goField(c, "txIndex"), `argument ${configIndex}.txIndex`);
  let block: CallBlockRef;
  // A transaction index names a place inside a stored block: never the pre-confirmed state.
  if (index === undefined && isPendingParam(p) && pendingFor(b, method) !== undefined) block = { pending: true };
  else {
    const blk = resolveBlock(b.chain, p);
    if (blk === undefined) throw new ServerError(p.kind === "hash" ? `block ${to0x(p.hash)} not found` : `block #${p.kind === "number" ? p.number : 0} not found`);
    if (index !== undefined && blk.header.number === 0n) throw new ServerError("genesis is not traceable");
    block = { hash: to0x(blk.hash()) };
  }
  const out: Pick<TraceCallsRequest, "block" | "config" | "stateOverrides" | "blockOverrides" | "gasCap" | "txIndex"> = { block, config, gasCap: b.settings.gasCap };
  if (index !== undefined) out.txIndex = index;
  const state = parseStateOverrides(goField(c, "stateOverrides"), `argument ${configIndex}.stateOverrides`);
  const blockOverrides = parseBlockOverrides(goField(c, "blockOverrides"), `argument ${configIndex}.blockOverrides`);
  if (state !== undefined) out.stateOverrides = state;
  if (blockOverrides !== undefined) out.blockOverrides = blockOverrides;
  return out;
}

/** A transaction index (a number or a hex quantity, as geth's `hexutil.Uint`); undefined when absent. */
function txIndexOf(v: unknown, where: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v) ? Number(BigInt(v)) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) throw new InvalidParamsError(`invalid argument: ${where}: transaction index expected`);
  return n;
}

/**
 * The request of debug_traceCallMany and eth_callMany (reth, erigon): `params[0]` bundles of
 * calls (`{transactions: [call…]}`), `params[1]` the state context — `blockNumber` (default
 * latest) and `transactionIndex` (-1 or absent: after the whole block; n: before its
 * transaction n) — and `config` the trace config.
 */
function callManyRequest(b: RpcBackend, method: string, params: unknown[], config: unknown): TraceCallsRequest {
  const raw = required(params, 0);
  if (!Array.isArray(raw)) throw new InvalidParamsError("invalid argument 0: array of bundles expected");
  const bundles = raw.map((bundle, i) => {
    if (bundle === null || typeof bundle !== "object" || !Array.isArray((bundle as Record<string, unknown>).transactions)) {
      throw new InvalidParamsError(`invalid argument 0: bundle ${i}: {"transactions": [...]} expected`);
    }
    const o = bundle as Record<string, unknown>;
    if (o.blockOverride !== undefined && o.blockOverride !== null) throw new ServerError(`bundle ${i}: blockOverride is not supported by this node`);
    return (o.transactions as unknown[]).map((t) => parseCallArgs(t, 0));
  });
  const sc = params[1];
  if (sc !== undefined && sc !== null && (typeof sc !== "object" || Array.isArray(sc))) throw new InvalidParamsError("invalid argument 1: state context object expected");
  const stateContext = (sc ?? {}) as Record<string, unknown>;
  const rawIndex = stateContext.transactionIndex;
  const index = rawIndex === -1 || rawIndex === "-1" ? undefined : txIndexOf(rawIndex, "argument 1.transactionIndex");
  return { kind: "calls", bundles, many: true, ...callContextParams(b, method, [stateContext.blockNumber, config], 0, 1, index) };
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
    /** debug_traceCall(call, block, config): a call traced at a block's state (config: a trace config with `stateOverrides`, `blockOverrides`, `txIndex`). */
    debug_traceCall: (params) => {
      maxParams(params, 3);
      const args = parseCallArgs(required(params, 0), 0);
      const ctx = callContextParams(b, "debug_traceCall", params, 1, 2, undefined);
      return run("debug_traceCall", { kind: "calls", bundles: [[args]], many: false, ...ctx });
    },
    /**
     * debug_traceCallMany(bundles, stateContext, config) (reth, erigon): bundles of calls
     * (`{transactions: [call…]}`) traced in order at the state after `stateContext.blockNumber`
     * (default latest; before its transaction `stateContext.transactionIndex` unless -1), each
     * seeing the earlier ones' effects; one list of results per bundle.
     */
    debug_traceCallMany: (params) => {
      maxParams(params, 3);
      return run("debug_traceCallMany", callManyRequest(b, "debug_traceCallMany", params, params[2]));
    },
    /**
     * eth_callMany(bundles, stateContext, stateOverrides) (reth): the bundles of debug_traceCallMany
     * run in order, each call seeing the earlier ones' effects; per bundle, per call, reth's
     * `{"value": output}` or `{"error": message}` ("execution reverted: <reason>" for a revert
     * with a reason).
     */
    eth_callMany: async (params) => {
      maxParams(params, 3);
      const config: Record<string, unknown> = { tracer: "callTracer", tracerConfig: { onlyTopCall: true } };
      if (params[2] !== undefined && params[2] !== null) config.stateOverrides = params[2];
      const answer = await calls.trace("eth_callMany", callManyRequest(b, "eth_callMany", params, config));
      const frames = JSON.parse(answer) as { output?: string; error?: string; revertReason?: string }[][];
      return frames.map((bundle) =>
        bundle.map((f) => (f.error === undefined ? { value: f.output ?? "0x" } : { error: f.revertReason === undefined ? f.error : `execution reverted: ${f.revertReason}` })),
      );
    },
    /** debug_traceBlock(rlp, config): every transaction of an RLP-encoded block whose parent is stored. */
    debug_traceBlock: (params) => {
      maxParams(params, 2);
      const rlp = to0x(parseData(required(params, 0), 0));
      return run("debug_traceBlock", { kind: "rlp", rlp, config: checkConfig(params, 1) });
    },
  };
}
