/**
 * Parity-style tracing as reth serves it: trace_transaction, trace_get, trace_block,
 * trace_filter, trace_replayTransaction, trace_replayBlockTransactions, trace_call,
 * trace_callMany and trace_rawTransaction, with the trace types "trace", "stateDiff" and
 * "vmTrace". The RPC thread checks the parameters and resolves blocks; the execution pool
 * replays the blocks or runs the calls (src/execution/trace/parityRequest.ts) and this thread
 * only reshapes the answer per method. No block rewards are listed: OP chains have none.
 * `--public` keeps trace_* off (publicPolicy.ts).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { TRACE_FILTER_MAX_BLOCKS } from "../../config/constants.js";
import type { CallBlockRef } from "../../execution/callTarget.js";
import type { CallArgs } from "../../execution/callArgs.js";
import type { ParityRequest, ParitySubject } from "../../execution/trace/parityRequest.js";
import { PARITY_TRACE_TYPES, type ParityTraceType } from "../../execution/trace/parityTracer.js";
import { parseBlockOverrides, parseStateOverrides } from "../overrideParams.js";
import { decodeRawTransaction } from "../../txpool/txpool.js";
import { to0x } from "../../util/bytes.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveBlock, resolveStateBlock } from "../blockParam.js";
import { InvalidParamsError, RpcCode, RpcError, ServerError } from "../errors.js";
import { parseAddress, parseData, parseHash, parseQuantity } from "../hexParams.js";
import { maxParams, parseCallArgs, required } from "../params.js";
import { pendingFor } from "./pending.js";
import type { MethodTable } from "../types.js";

/** A transaction's answer from the pool (parityTracer.ts). */
interface TxResult {
  output: string;
  stateDiff: unknown;
  trace: Record<string, unknown>[];
  vmTrace: unknown;
  transactionHash: string;
  blockHash: string;
  blockNumber: number;
  transactionPosition: number;
}

/** The trace types at `params[i]` (reth's `HashSet<TraceType>`). */
function parseTraceTypes(v: unknown, i: number): ParityTraceType[] {
  if (!Array.isArray(v)) throw new InvalidParamsError(`invalid argument ${i}: array of trace types expected`);
  const out = new Set<ParityTraceType>();
  for (const t of v) {
    if (typeof t !== "string" || !(PARITY_TRACE_TYPES as readonly string[]).includes(t)) {
      throw new InvalidParamsError(`invalid argument ${i}: unknown variant \`${String(t)}\`, expected one of \`trace\`, \`vmTrace\`, \`stateDiff\``);
    }
    out.add(t as ParityTraceType);
  }
  return [...out];
}

/** reth's `TraceResults` (field order of its serialiser). */
function replayShape(r: TxResult): Record<string, unknown> {
  return { output: r.output, stateDiff: r.stateDiff, trace: r.trace, vmTrace: r.vmTrace };
}

/** reth's `LocalizedTransactionTrace`s of a transaction. */
function localized(r: TxResult): Record<string, unknown>[] {
  return r.trace.map((t) => ({ ...t, blockHash: r.blockHash, blockNumber: r.blockNumber, transactionHash: r.transactionHash, transactionPosition: r.transactionPosition }));
}

/** The call arguments a signed transaction stands for (trace_rawTransaction). */
function callArgsOfTx(tx: TypedTransaction): CallArgs {
  const t = tx as TypedTransaction & { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; accessList?: [Uint8Array, Uint8Array[]][] };
  const args: CallArgs = { from: tx.getSenderAddress().bytes, to: tx.to?.bytes ?? null, gas: tx.gasLimit, value: tx.value, data: tx.data, nonce: tx.nonce };
  if (t.maxFeePerGas !== undefined) {
    args.maxFeePerGas = t.maxFeePerGas;
    args.maxPriorityFeePerGas = t.maxPriorityFeePerGas;
  } else if (t.gasPrice !== undefined) args.gasPrice = t.gasPrice;
  if (t.accessList !== undefined) args.accessList = t.accessList.map(([address, storageKeys]) => ({ address, storageKeys }));
  return args;
}

/** An address list of a trace filter (`fromAddress`, `toAddress`). */
function addressSet(v: unknown, field: string): Set<string> {
  if (v === undefined || v === null) return new Set();
  if (!Array.isArray(v)) throw new InvalidParamsError(`invalid argument 0: ${field}: array of addresses expected`);
  return new Set(v.map((a, i) => to0x(parseAddress(a, `0.${field}[${i}]`))));
}

/** The sender and receiver a trace entry is filtered by (reth `TraceFilterMatcher`). */
function endsOf(t: Record<string, unknown>): { from?: string; to?: string } {
  const a = t.action as Record<string, string>;
  if (t.type === "suicide") return { from: a.address, to: a.refundAddress };
  if (t.type === "create") return { from: a.from, to: (t.result as Record<string, string> | null)?.address };
  return { from: a.from, to: a.to };
}

/** Handlers of the trace_* family. */
export function parityTraceMethods(b: RpcBackend): MethodTable {
  const { chain, calls } = b;
  const run = async (method: string, subject: ParitySubject, types: ParityTraceType[]): Promise<unknown> => {
    const req: ParityRequest = { kind: "parity", subject, types };
    return JSON.parse(await calls.trace(method, req)) as unknown;
  };
  const blockRef = (v: unknown, i: number, method: string): CallBlockRef => {
    const p = parseBlockParam(v, i, { allowHash: true, optional: true });
    if (isPendingParam(p) && pendingFor(b, method) !== undefined) return { pending: true };
    return { hash: to0x(resolveStateBlock(chain, p).hash()) };
  };
  const blockHashOf = (v: unknown, i: number): string | undefined => {
    const blk = resolveBlock(chain, parseBlockParam(v, i, { allowHash: true }));
    return blk === undefined ? undefined : to0x(blk.hash());
  };
  const runCalls = async (method: string, list: { args: CallArgs; types: ParityTraceType[] }[], block: CallBlockRef, extra: Pick<Extract<ParitySubject, { kind: "calls" }>, "stateOverrides" | "blockOverrides"> = {}): Promise<TxResult[]> =>
    (await run(method, { kind: "calls", calls: list, block, gasCap: b.settings.gasCap, ...extra }, [])) as TxResult[];

  return {
    /** trace_transaction(hash): the flat call trace of a transaction, placed in its block; null when unknown. */
    trace_transaction: async (params) => {
      maxParams(params, 1);
      const r = (await run("trace_transaction", { kind: "tx", hash: to0x(parseHash(required(params, 0), 0)) }, ["trace"])) as TxResult | null;
      return r === null ? null : localized(r);
    },
    /** trace_get(hash, indices): the entry at `indices[0]` of trace_transaction's list (reth: null unless exactly one index). */
    trace_get: async (params) => {
      maxParams(params, 2);
      const hash = to0x(parseHash(required(params, 0), 0));
      const raw = required(params, 1);
      if (!Array.isArray(raw)) throw new InvalidParamsError("invalid argument 1: array of indices expected");
      const indices = raw.map((v, i) => Number(parseQuantity(typeof v === "number" ? "0x" + v.toString(16) : v, `1[${i}]`, { bits: 64 })));
      if (indices.length !== 1) return null;
      const r = (await run("trace_get", { kind: "tx", hash }, ["trace"])) as TxResult | null;
      return r === null ? null : (localized(r)[indices[0]!] ?? null);
    },
    /** trace_block(block): the flat call traces of every transaction of a block; null when the block is unknown. */
    trace_block: async (params) => {
      maxParams(params, 1);
      const hash = blockHashOf(required(params, 0), 0);
      if (hash === undefined) return null;
      const rs = (await run("trace_block", { kind: "block", hash }, ["trace"])) as TxResult[] | null;
      return rs === null ? null : rs.flatMap(localized);
    },
    /**
     * trace_filter({fromBlock, toBlock, fromAddress, toAddress, after, count, mode}): the traces
     * of a block range (at most `--rpc.max-trace-filter-blocks` blocks, default
     * TRACE_FILTER_MAX_BLOCKS, as reth's flag) whose sender or receiver is listed (`mode`: "union", the
     * default, or "intersection"), skipping `after` and keeping `count`.
     */
    trace_filter: async (params) => {
      maxParams(params, 1);
      const f = required(params, 0);
      if (f === null || typeof f !== "object" || Array.isArray(f)) throw new InvalidParamsError("invalid argument 0: trace filter object expected");
      const o = f as Record<string, unknown>;
      const head = chain.head.header.number;
      const num = (k: string, dflt: bigint): bigint => {
        const v = o[k];
        if (v === undefined || v === null) return dflt;
        const p = parseBlockParam(v, 0);
        if (p.kind === "number") return p.number;
        const blk = resolveBlock(chain, p);
        if (blk === undefined) throw new ServerError(`block ${String(v)} not found`);
        return blk.header.number;
      };
      const from = num("fromBlock", 0n);
      const to = num("toBlock", head);
      if (from > to) throw new InvalidParamsError("invalid params: fromBlock must not be greater than toBlock");
      const cap = b.settings.maxTraceFilterBlocks ?? TRACE_FILTER_MAX_BLOCKS;
      if (to - from > BigInt(cap)) throw new InvalidParamsError(`Block range too large; currently limited to ${cap} blocks`);
      const fromSet = addressSet(o.fromAddress, "fromAddress");
      const toSet = addressSet(o.toAddress, "toAddress");
      const mode = o.mode ?? "union";
      if (mode !== "union" && mode !== "intersection") throw new InvalidParamsError(`invalid argument 0: unknown variant \`${String(mode)}\`, expected \`union\` or \`intersection\``);
      const opt = (k: string): number | undefined => (o[k] === undefined || o[k] === null ? undefined : typeof o[k] === "number" ? (o[k] as number) : Number(parseQuantity(o[k], `0.${k}`, { bits: 64 })));
      const after = opt("after") ?? 0;
      const count = opt("count");
      const matches = (t: Record<string, unknown>): boolean => {
        if (fromSet.size === 0 && toSet.size === 0) return true;
        const { from: a, to: c } = endsOf(t);
        const inFrom = a !== undefined && fromSet.has(a);
        const inTo = c !== undefined && toSet.has(c);
        if (mode === "intersection") return (fromSet.size === 0 || inFrom) && (toSet.size === 0 || inTo);
        return inFrom || inTo;
      };
      const out: Record<string, unknown>[] = [];
      for (let n = from === 0n ? 1n : from; n <= to; n++) {
        const blk = chain.getBlockByNumber(n);
        if (blk === undefined || blk.transactions.length === 0) continue;
        const rs = (await run("trace_filter", { kind: "block", hash: to0x(blk.hash()) }, ["trace"])) as TxResult[] | null;
        for (const r of rs ?? []) for (const t of localized(r)) if (matches(t)) out.push(t);
      }
      return out.slice(after, count === undefined ? undefined : after + count);
    },
    /** trace_replayTransaction(hash, traceTypes): the transaction replayed in its block with the trace types asked for. */
    trace_replayTransaction: async (params) => {
      maxParams(params, 2);
      const hash = to0x(parseHash(required(params, 0), 0));
      const types = parseTraceTypes(required(params, 1), 1);
      const r = (await run("trace_replayTransaction", { kind: "tx", hash }, types)) as TxResult | null;
      // reth: EthApiError::TransactionNotFound, answered with ResourceNotFound (-32001).
      if (r === null) throw new RpcError(RpcCode.ResourceNotFound, "transaction not found");
      return replayShape(r);
    },
    /** trace_replayBlockTransactions(block, traceTypes): every transaction of a block replayed, each with its `transactionHash`; null when the block is unknown. */
    trace_replayBlockTransactions: async (params) => {
      maxParams(params, 2);
      const hash = blockHashOf(required(params, 0), 0);
      const types = parseTraceTypes(required(params, 1), 1);
      if (hash === undefined) return null;
      const rs = (await run("trace_replayBlockTransactions", { kind: "block", hash }, types)) as TxResult[] | null;
      return rs === null ? null : rs.map((r) => ({ ...replayShape(r), transactionHash: r.transactionHash }));
    },
    /** trace_call(call, traceTypes, block?, stateOverrides?, blockOverrides?): a call traced at a block's state (eth_call's semantics). */
    trace_call: async (params) => {
      maxParams(params, 5);
      const args = parseCallArgs(required(params, 0), 0);
      const types = parseTraceTypes(required(params, 1), 1);
      const block = blockRef(params[2], 2, "trace_call");
      const extra: Pick<Extract<ParitySubject, { kind: "calls" }>, "stateOverrides" | "blockOverrides"> = {};
      const state = parseStateOverrides(params[3] ?? undefined, "argument 3");
      const blockOverrides = parseBlockOverrides(params[4] ?? undefined, "argument 4");
      if (state !== undefined) extra.stateOverrides = state;
      if (blockOverrides !== undefined) extra.blockOverrides = blockOverrides;
      const [r] = await runCalls("trace_call", [{ args, types }], block, extra);
      return replayShape(r!);
    },
    /** trace_callMany([[call, traceTypes], …], block?): calls traced in order at a block's state (default pending), each seeing the earlier ones' effects. */
    trace_callMany: async (params) => {
      maxParams(params, 2);
      const raw = required(params, 0);
      if (!Array.isArray(raw)) throw new InvalidParamsError("invalid argument 0: array of [call, traceTypes] pairs expected");
      const list = raw.map((pair, i) => {
        if (!Array.isArray(pair) || pair.length !== 2) throw new InvalidParamsError(`invalid argument 0: entry ${i}: [call, traceTypes] expected`);
        return { args: parseCallArgs(pair[0], 0), types: parseTraceTypes(pair[1], 0) };
      });
      // reth: after the pending block when none is named.
      const rs = await runCalls("trace_callMany", list, blockRef(params[1] ?? "pending", 1, "trace_callMany"));
      return rs.map(replayShape);
    },
    /** trace_rawTransaction(rawTx, traceTypes, block?): a signed transaction traced as a call at a block's state (default latest). */
    trace_rawTransaction: async (params) => {
      maxParams(params, 3);
      const { tx } = decodeRawTransaction(chain, parseData(required(params, 0), 0));
      const types = parseTraceTypes(required(params, 1), 1);
      const [r] = await runCalls("trace_rawTransaction", [{ args: callArgsOfTx(tx), types }], blockRef(params[2], 2, "trace_rawTransaction"));
      return replayShape(r!);
    },
  };
}
