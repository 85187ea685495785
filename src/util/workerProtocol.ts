/**
 * The frames every dedicated worker thread exchanges with the main thread ({@link WorkerHost} on
 * the main side, `serveWorker` on the worker's): one msgpack-encoded object per message, so only
 * bytes cross the boundary. Payloads are plain values (numbers, strings, byte arrays, arrays and
 * objects of them); an error crosses as its {@link ErrorObject}.
 */
import { Packr } from "msgpackr";
import type { ErrorObject } from "./errors.js";
import type { MetricObjectWithValues, MetricValue } from "prom-client";

const packr = new Packr({ useRecords: false, moreTypes: false });

/** A worker's metrics as prom-client's `getMetricsAsJSON()` gives them. */
export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** Main thread → worker. */
export type ToWorker =
  /** A request the worker answers with `res` or `err` of the same id. */
  | { k: "req"; id: number; m: string; p?: unknown }
  /** A one-way note (e.g. "head": the canonical head moved). */
  | { k: "note"; m: string; p?: unknown }
  /** Asks for the worker's metrics (answered by `metrics` of the same id). */
  | { k: "metrics"; id: number }
  /** Finish, close, answer `stopped`. */
  | { k: "stop" };

/** Worker → main thread. */
export type FromWorker =
  /** Set up; requests may come. */
  | { k: "ready" }
  /** Setup failed; the worker will not become ready. */
  | { k: "fatal"; e: ErrorObject }
  | { k: "res"; id: number; r?: unknown }
  | { k: "err"; id: number; e: ErrorObject }
  | { k: "metrics"; id: number; r: WorkerMetrics }
  /** An unasked event (e.g. "latest": the proofs window moved). */
  | { k: "event"; m: string; p?: unknown }
  | { k: "stopped" };

/**
 * msgpackr encodes into a reusable buffer and postMessage would clone the whole backing buffer of
 * a view: every frame gets its own exact-size buffer.
 */
function own(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

/** Encodes a frame. */
export function encodeFrame(f: ToWorker | FromWorker): Uint8Array {
  return own(packr.pack(f));
}

/** Decodes a frame (the sender is a thread of this process, running this module). */
export function decodeFrame<F extends ToWorker | FromWorker>(bytes: Uint8Array): F {
  return packr.unpack(bytes) as F;
}
