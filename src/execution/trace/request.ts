/**
 * A trace request (debug_traceTransaction, debug_traceBlockByNumber/ByHash, debug_traceBlock) in
 * the form that crosses the thread boundary — plain strings and the raw trace config — and the
 * one function that answers it on the thread holding the chain (an execution pool worker, or
 * the calling thread in in-process tests). The RPC thread resolves block numbers and tags to
 * hashes and checks the config before sending; the worker re-parses it.
 */
import type { BlockHeader } from "@ethereumjs/block";
import { decodeBlockFromRlp } from "../../chain/blockCodec.js";
import { fromHex } from "../../util/bytes.js";
import type { CallArgs } from "../callArgs.js";
import type { CallTarget } from "../callExecutor.js";
import { resolveCallTarget, type CallBlockRef } from "../callTarget.js";
import { overlayReader, overriddenTarget } from "../simulate/callOverrides.js";
import type { SerializedBlockOverrides, SerializedStateOverrides } from "../simulate/overrides.js";
import { traceCalls } from "./traceCall.js";
import { parseTraceConfig } from "./config.js";
import { TraceError, TraceErrorCode } from "./errors.js";
import { stateBeforeTx, traceBlock, type TxTrace } from "./replay.js";
import { parentOf } from "./parent.js";
import { answerParityRequest, type ParityRequest } from "./parityRequest.js";
import type { CallTracing, TraceChain } from "./tracing.js";


/** Calls traced at a block (debug_traceCall: one bundle of one call; debug_traceCallMany: bundles). */
export interface TraceCallsRequest {
  kind: "calls";
  bundles: CallArgs[][];
  /** debug_traceCallMany: the answer is one list of results per bundle; else the one result. */
  many: boolean;
  block: CallBlockRef;
  /** Gas cap (`--rpc.gascap`). */
  gasCap: bigint;
  config: unknown;
  stateOverrides?: SerializedStateOverrides;
  blockOverrides?: SerializedBlockOverrides;
  /** Run before this transaction of the block (geth `txIndex`): its earlier transactions replayed first; the block must be named by hash. */
  txIndex?: number;
}

/** A trace request; `config` is the request's raw `TraceConfig` (JSON value). */
export type TraceRequest =
  | { kind: "tx"; hash: string; config: unknown }
  | { kind: "block"; hash: string; config: unknown }
  | { kind: "rlp"; rlp: string; config: unknown }
  | TraceCallsRequest
  | ParityRequest;

/** The tracer a request names (for metrics): `structLogger` when none. */
export function tracerNameOf(req: TraceRequest): string {
  if (req.kind === "parity") return "parity";
  const c = req.config as Record<string, unknown> | null | undefined;
  const t = c !== null && typeof c === "object" ? c.tracer : undefined;
  return typeof t === "string" && t !== "" ? t : "structLogger";
}

/** geth's JSON of a block's traces (`txTraceResult`: txHash, then result or error). */
function blockTracesJson(traces: TxTrace[]): string {
  const parts = traces.map((t) => (t.result !== undefined ? `{"txHash":"${t.txHash}","result":${t.result}}` : `{"txHash":"${t.txHash}","error":${JSON.stringify(t.error)}}`));
  return `[${parts.join(",")}]`;
}

/**
 * Answers `req` over `chain`: the result's JSON text.
 * @throws TraceError (unknown transaction or block, genesis, bad config, timeout of a single
 *   transaction's trace), ChainError `STATE_UNAVAILABLE` (pruned parent state)
 */
export async function answerTraceRequest(chain: TraceChain, req: TraceRequest, calls: CallTracing): Promise<string> {
  if (req.kind === "parity") return answerParityRequest(chain, req, calls);
  const cfg = parseTraceConfig(req.config);
  switch (req.kind) {
    case "tx": {
      const loc = chain.store.getTxLocation(fromHex(req.hash));
      const block = loc === undefined ? undefined : chain.getBlockByHash(loc.blockHash);
      if (loc === undefined || block === undefined) throw new TraceError({ code: TraceErrorCode.TX_NOT_FOUND, hash: req.hash }, "transaction not found");
      const [trace] = await traceBlock(chain, block, parentOf(chain, block), cfg, new Set([loc.index]));
      if (trace === undefined) throw new TraceError({ code: TraceErrorCode.TX_NOT_FOUND, hash: req.hash }, "transaction not found");
      if (trace.failure !== undefined) throw trace.failure;
      return trace.result!;
    }
    case "block": {
      const block = chain.getBlockByHash(fromHex(req.hash));
      if (block === undefined) throw new TraceError({ code: TraceErrorCode.BLOCK_NOT_FOUND, block: req.hash }, `block ${req.hash} not found`);
      return blockTracesJson(await traceBlock(chain, block, parentOf(chain, block), cfg));
    }
    case "calls": {
      let target: CallTarget = resolveCallTarget(chain, calls.pending, req.block);
      if (req.txIndex !== undefined && !("header" in target)) {
        const block = chain.getBlockByHash((target as BlockHeader).hash());
        if (block === undefined) throw new TraceError({ code: TraceErrorCode.BLOCK_NOT_FOUND, block: "" }, "block not found");
        target = { header: block.header, state: overlayReader(await stateBeforeTx(chain, block, parentOf(chain, block), req.txIndex)) };
      }
      if (req.stateOverrides !== undefined || req.blockOverrides !== undefined) target = overriddenTarget(chain, target, req.stateOverrides, req.blockOverrides);
      const sizes = req.bundles.map((b) => b.length);
      const flat = await traceCalls(calls.executor, target, req.bundles.flat(), cfg, req.gasCap);
      if (!req.many) return flat[0]!;
      const out: string[] = [];
      let i = 0;
      for (const n of sizes) {
        out.push(`[${flat.slice(i, i + n).join(",")}]`);
        i += n;
      }
      return `[${out.join(",")}]`;
    }
    case "rlp": {
      const block = decodeBlockFromRlp(chain, fromHex(req.rlp));
      return blockTracesJson(await traceBlock(chain, block, parentOf(chain, block), cfg));
    }
  }
}
