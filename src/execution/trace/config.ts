/**
 * Parsing of geth's `TraceConfig` (debug_trace*): the struct logger's options, the tracer name,
 * its `tracerConfig` and the `timeout` (a Go duration string). Field names match as Go's JSON
 * decoder matches them (case-insensitively); unknown fields are ignored; a value of the wrong
 * type is refused with the decoder's message. Runs on both threads: the RPC thread refuses bad
 * input before any hop, the worker parses the same JSON again.
 */
import { TRACE_DEFAULT_TIMEOUT_MS } from "../constants.js";
import { TraceError, TraceErrorCode } from "./errors.js";

/** The built-in tracers (geth eth/tracers/native and the struct logger). */
export const TRACER_NAMES = ["structLogger", "callTracer", "flatCallTracer", "prestateTracer", "4byteTracer", "noopTracer", "muxTracer"] as const;
/** One of {@link TRACER_NAMES}; `structLogger` when no tracer is named. */
export type TracerName = (typeof TRACER_NAMES)[number];

/** The struct logger's options (geth `logger.Config`). */
export interface StructLoggerOptions {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  enableReturnData: boolean;
  /** Most struct logs recorded (0: no limit). */
  limit: number;
}

/** A parsed trace config. */
export interface TraceConfig {
  tracer: TracerName;
  logger: StructLoggerOptions;
  /** The raw `tracerConfig` object ({} when absent). */
  tracerConfig: Record<string, unknown>;
  /** Per-transaction time limit. */
  timeoutMs: number;
}

type JsonType = "string" | "number" | "bool" | "object" | "array";

function jsonTypeOf(v: unknown): JsonType {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  return Array.isArray(v) ? "array" : "object";
}

/**
 * geth's decoder message for a value of the wrong type: `json: cannot unmarshal <type> into Go
 * struct field <Struct>.<field> of type <go type>` (numbers are named with their value).
 */
export function unmarshalError(struct: string, field: string, value: unknown, goType: string): TraceError {
  const t = jsonTypeOf(value);
  const what = t === "number" ? `number ${String(value)}` : t;
  const type = struct === "TraceConfig" ? ({ code: TraceErrorCode.BAD_CONFIG, field, argument: true } as const) : ({ code: TraceErrorCode.BAD_CONFIG, field } as const);
  return new TraceError(type, `json: cannot unmarshal ${what} into Go struct field ${struct}.${field} of type ${goType}`);
}

/** The value of `field` in `o`, matched case-insensitively as Go does (exact match first). */
export function goField(o: Record<string, unknown>, field: string): unknown {
  if (field in o) return o[field];
  const lower = field.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

/** A boolean field (null or absent: `false`). */
export function goBool(o: Record<string, unknown>, struct: string, field: string): boolean {
  const v = goField(o, field);
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw unmarshalError(struct, field, v, "bool");
  return v;
}

function goInt(o: Record<string, unknown>, struct: string, field: string): number {
  const v = goField(o, field);
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isSafeInteger(v)) throw unmarshalError(struct, field, v, "int");
  return v;
}

/** Go's duration units in nanoseconds (time.ParseDuration). */
const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Parses a Go duration ("5s", "300ms", "1m30s", "1.5h") into milliseconds, with Go's messages
 * (`time: invalid duration "x"`, `time: missing unit in duration "5"`).
 */
export function parseGoDuration(s: string): number {
  const quoted = JSON.stringify(s);
  const bad = (): TraceError => new TraceError({ code: TraceErrorCode.BAD_CONFIG, field: "timeout" }, `time: invalid duration ${quoted}`);
  let rest = s;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest[0] === "-" ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw bad();
  let ns = 0;
  while (rest !== "") {
    const num = /^(\d*)(\.\d*)?/.exec(rest)!;
    if (num[0] === "" || num[0] === ".") throw bad();
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]+/.exec(rest)?.[0];
    if (unit === undefined) throw new TraceError({ code: TraceErrorCode.BAD_CONFIG, field: "timeout" }, `time: missing unit in duration ${quoted}`);
    const scale = DURATION_UNITS[unit];
    if (scale === undefined) throw new TraceError({ code: TraceErrorCode.BAD_CONFIG, field: "timeout" }, `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    ns += Number(num[0]) * scale;
    rest = rest.slice(unit.length);
  }
  return (sign * ns) / 1e6;
}

/** The tracer config object of `raw` (absent or null: {}). */
function tracerConfigOf(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw unmarshalError("TraceConfig", "tracerConfig", raw, "json.RawMessage object");
  return raw as Record<string, unknown>;
}

/**
 * Parses a `TraceConfig` (absent or null: the struct logger with geth's defaults and the 5 s
 * timeout).
 * @throws TraceError `BAD_CONFIG` (wrong types, bad timeout), `UNKNOWN_TRACER`.
 */
export function parseTraceConfig(raw: unknown): TraceConfig {
  const o = raw === undefined || raw === null ? {} : raw;
  if (typeof o !== "object" || Array.isArray(o)) {
    throw new TraceError({ code: TraceErrorCode.BAD_CONFIG, field: "", argument: true }, `json: cannot unmarshal ${jsonTypeOf(o)} into Go value of type tracers.TraceConfig`);
  }
  const c = o as Record<string, unknown>;
  const logger: StructLoggerOptions = {
    disableStack: goBool(c, "TraceConfig", "disableStack"),
    disableStorage: goBool(c, "TraceConfig", "disableStorage"),
    enableMemory: goBool(c, "TraceConfig", "enableMemory"),
    enableReturnData: goBool(c, "TraceConfig", "enableReturnData"),
    limit: goInt(c, "TraceConfig", "limit"),
  };
  const name = goField(c, "tracer");
  let tracer: TracerName = "structLogger";
  if (name !== undefined && name !== null) {
    if (typeof name !== "string") throw unmarshalError("TraceConfig", "tracer", name, "string");
    if (name !== "") {
      if (name === "structLogger" || !(TRACER_NAMES as readonly string[]).includes(name)) {
        throw new TraceError({ code: TraceErrorCode.UNKNOWN_TRACER, tracer: name }, `tracer not found: ${name} (built-in tracers: ${TRACER_NAMES.slice(1).join(", ")}; JavaScript tracers are not served)`);
      }
      tracer = name as TracerName;
    }
  }
  const timeout = goField(c, "timeout");
  let timeoutMs = TRACE_DEFAULT_TIMEOUT_MS;
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout !== "string") throw unmarshalError("TraceConfig", "timeout", timeout, "string");
    timeoutMs = parseGoDuration(timeout);
  }
  return { tracer, logger, tracerConfig: tracerConfigOf(goField(c, "tracerConfig")), timeoutMs };
}
