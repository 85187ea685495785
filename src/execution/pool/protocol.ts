/**
 * The bytes exchanged with the execution pool's workers: msgpack of plain values, bigint and
 * bytes (no class instances cross the thread boundary). A call-family request is encoded once,
 * on the RPC thread ({@link encodeCallRequest}, memoized per request object: the call cache keys
 * on the same bytes); a batch is those bytes framed end to end ({@link frame}), not packed again. A worker never throws across it: an error answer
 * carries the error's `toObject()` form (code, message, metadata), and the RPC thread rebuilds
 * the typed error (`errorFromObject`, util/errorRegistry.ts), which src/rpc/errors.ts maps like any other.
 */
import { Packr } from "msgpackr";
import type { CallRequest } from "../callRequest.js";
import type { WitnessRequest } from "../witness/request.js";
import type { TraceRequest } from "../trace/request.js";
import type { MeterRequest } from "../metering/request.js";
import { TraceError } from "../trace/errors.js";
import { ExecutionError } from "../errors.js";
import type { ErrorObject } from "../../util/errors.js";
import { registerErrors } from "../../util/errorRegistry.js";
import { SimulateError } from "../simulate/errors.js";
import { PoolError } from "./errors.js";

/**
 * bigint in both directions (call arguments and gas caps are bigint, up to 256 bits: msgpackr's
 * bigint extension above 64 bits, int64 decoded as bigint); absent fields are left out rather
 * than encoded as `undefined`.
 */
const packrOptions = { useRecords: false, moreTypes: false, useBigIntExtension: true, int64AsType: "bigint" as const, skipValues: [undefined] };
// `skipValues` (msgpackr ≥ 1.11) is missing from msgpackr's typings: passed as a variable, not a literal.
const packr = new Packr(packrOptions);

/**
 * msgpackr returns views into its reusable 8 KiB+ buffer, and postMessage clones a view's whole
 * backing buffer: copy the encoded bytes into their own exact-size buffer before sending.
 */
function own(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

/** A worker's answer: the result as JSON text, or the error's plain form. */
type CallReply = { ok: string } | { err: ErrorObject };

// The classes a pool worker raises that come back as themselves (errorRegistry.ts); any other
// coded error comes back as a plain BasaltError with its code, which src/rpc/errors.ts maps alike.
registerErrors(ExecutionError, PoolError, TraceError, SimulateError);

/** Each request's encoding, made once (see {@link encodeCallRequest}). */
const encoded = new WeakMap<CallRequest, Uint8Array>();

/**
 * A call-family request's bytes, encoded on first use and then reused for this request object:
 * the call cache hashes them (src/rpc/callCache.ts) and the pool sends them.
 */
export function encodeCallRequest(req: CallRequest): Uint8Array {
  let bytes = encoded.get(req);
  if (bytes === undefined) {
    bytes = packr.pack(req);
    // A view into msgpackr's reusable buffer: copied out, since the next pack overwrites it.
    bytes = own(bytes);
    encoded.set(req, bytes);
  }
  return bytes;
}

/** Decodes a request (worker side). */
export function decodeCallRequest(bytes: Uint8Array): CallRequest {
  return packr.unpack(bytes) as CallRequest;
}

/**
 * Encoded messages end to end, each after its length (u32 little-endian): one batch of requests
 * for a worker, or a batch's replies. Framing copies bytes; nothing is encoded again.
 */
export function frame(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += 4 + p.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    view.setUint32(at, p.length, true);
    out.set(p, at + 4);
    at += 4 + p.length;
  }
  return out;
}

/** The messages of a {@link frame}, in order (views into `bytes`). */
export function unframe(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = view.getUint32(at, true);
    out.push(bytes.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
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
interface SendersTask {
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
