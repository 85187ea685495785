/**
 * The bytes exchanged with the execution pool's workers: msgpack of plain values only (no class
 * instances cross the thread boundary). A worker never throws across it: an error answer
 * carries the error's `toObject()` form (code, message, metadata), and the RPC thread rebuilds
 * the typed error ({@link reviveError}), which src/rpc/errors.ts maps like any other.
 */
import { Packr } from "msgpackr";
import type { CallRequest } from "../callRequest.js";
import type { WitnessRequest } from "../witness/request.js";
import type { TraceRequest } from "../trace/request.js";
import type { MeterRequest } from "../metering/request.js";
import { TraceError } from "../trace/errors.js";
import { ExecutionError } from "../errors.js";
import { BasaltError, type ErrorObject } from "../../util/errors.js";
import { PoolError } from "./errors.js";

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * msgpackr returns views into its reusable 8 KiB+ buffer, and postMessage clones a view's whole
 * backing buffer: copy the encoded bytes into their own exact-size buffer before sending.
 */
function own(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

/** A task: one call-family request. */
export interface CallTask {
  req: CallRequest;
}

/** A worker's answer: the result as JSON text, or the error's plain form. */
export type CallReply = { ok: string } | { err: ErrorObject };

/**
 * A worker's error rebuilt on the RPC thread: an {@link ExecutionError} or {@link PoolError} for
 * their codes, a plain {@link BasaltError} for other codes (chain errors, …), an `Error` with the
 * same message for anything thrown without a code.
 */
export function reviveError(o: ErrorObject): Error {
  if (o.code === undefined) return new Error(o.message);
  const coded = { code: o.code, message: o.message, meta: o.meta };
  if (ExecutionError.codes.has(o.code)) return ExecutionError.fromObject(coded);
  if (PoolError.codes.has(o.code)) return PoolError.fromObject(coded);
  if (TraceError.codes.has(o.code)) return TraceError.fromObject(coded);
  return BasaltError.fromObject(coded);
}

/** Encodes a task for a worker. */
export function encodeCallTask(t: CallTask): Uint8Array {
  return own(packr.pack(t));
}

/** Decodes a task (worker side). */
export function decodeCallTask(bytes: Uint8Array): CallTask {
  return packr.unpack(bytes) as CallTask;
}

/** Encodes a batch of encoded tasks for one worker run. */
export function encodeBatch(tasks: Uint8Array[]): Uint8Array {
  return own(packr.pack(tasks));
}

/** Decodes a batch (worker side): the encoded tasks, in order. */
export function decodeBatch(bytes: Uint8Array): Uint8Array[] {
  return packr.unpack(bytes) as Uint8Array[];
}

/** Encodes a batch's replies (worker side), one per task, in order. */
export function encodeBatchReplies(replies: Uint8Array[]): Uint8Array {
  return own(packr.pack(replies));
}

/** Decodes a batch's replies (RPC thread side). */
export function decodeBatchReplies(bytes: Uint8Array): Uint8Array[] {
  return packr.unpack(bytes) as Uint8Array[];
}

/** Encodes a worker's answer. */
export function encodeCallReply(r: CallReply): Uint8Array {
  return own(packr.pack(r));
}

/** Decodes a worker's answer (RPC thread side). */
export function decodeCallReply(bytes: Uint8Array): CallReply {
  return packr.unpack(bytes) as CallReply;
}

/** A sender-recovery task: the raw transactions (EIP-2718 envelopes) of one block and the chain's hardfork point. */
export interface SendersTask {
  /** Block number and timestamp (the hardfork the transactions are decoded with). */
  number: string;
  timestamp: string;
  txs: Uint8Array[];
}

/** Encodes a sender-recovery task. */
export function encodeSendersTask(t: SendersTask): Uint8Array {
  return own(packr.pack(t));
}

/** Decodes a sender-recovery task (worker side). */
export function decodeSendersTask(bytes: Uint8Array): SendersTask {
  return packr.unpack(bytes) as SendersTask;
}

/** Encodes a witness task (debug_executionWitness, debug_executePayload). */
export function encodeWitnessTask(req: WitnessRequest): Uint8Array {
  return own(packr.pack(req));
}

/** Decodes a witness task (worker side). */
export function decodeWitnessTask(bytes: Uint8Array): WitnessRequest {
  return packr.unpack(bytes) as WitnessRequest;
}

/** Encodes a trace task (debug_trace*). */
export function encodeTraceTask(req: TraceRequest): Uint8Array {
  return own(packr.pack(req));
}

/** Encodes a metering task (base_meterBundle, base_meterBlockBy*). */
export function encodeMeterTask(req: MeterRequest): Uint8Array {
  return own(packr.pack(req));
}

/** Decodes a metering task (worker side). */
export function decodeMeterTask(bytes: Uint8Array): MeterRequest {
  return packr.unpack(bytes) as MeterRequest;
}

/** Decodes a trace task (worker side). */
export function decodeTraceTask(bytes: Uint8Array): TraceRequest {
  return packr.unpack(bytes) as TraceRequest;
}
