/**
 * Trace config parsing (geth `TraceConfig`): defaults, case-insensitive fields, Go's decoder
 * messages for wrong types, Go durations, unknown tracers; and the struct logger's size cap.
 */
import { describe, expect, it } from "vitest";
import { parseGoDuration, parseTraceConfig } from "../../../../src/execution/trace/config.js";
import { TraceError } from "../../../../src/execution/trace/errors.js";
import { StructLogger } from "../../../../src/execution/trace/structLogger.js";
import type { Step } from "../../../../src/execution/trace/tracer.js";
import { createTracer } from "../../../../src/execution/trace/tracers.js";

describe("parseTraceConfig", () => {
  it("defaults to the struct logger with geth's options and the 5 s timeout", () => {
    expect(parseTraceConfig(undefined)).toEqual({
      tracer: "structLogger",
      logger: { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false, limit: 0 },
      tracerConfig: {},
      timeoutMs: 5_000,
    });
  });

  it("matches fields case-insensitively, as Go's decoder does, and ignores unknown ones", () => {
    const c = parseTraceConfig({ DisableStack: true, ENABLEMEMORY: true, Limit: 7, whatever: 1, tracer: "callTracer", tracerConfig: { onlyTopCall: true } });
    expect(c.logger.disableStack).toBe(true);
    expect(c.logger.enableMemory).toBe(true);
    expect(c.logger.limit).toBe(7);
    expect(c.tracer).toBe("callTracer");
    expect(c.tracerConfig).toEqual({ onlyTopCall: true });
  });

  it("refuses wrong types with Go's messages", () => {
    expect(() => parseTraceConfig({ disableStack: "yes" })).toThrow("json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool");
    expect(() => parseTraceConfig({ limit: 1.5 })).toThrow("json: cannot unmarshal number 1.5 into Go struct field TraceConfig.limit of type int");
    expect(() => parseTraceConfig({ tracer: 5 })).toThrow("json: cannot unmarshal number 5 into Go struct field TraceConfig.tracer of type string");
    expect(() => parseTraceConfig([])).toThrow("json: cannot unmarshal array into Go value of type tracers.TraceConfig");
    expect(() => createTracer(parseTraceConfig({ tracer: "prestateTracer", tracerConfig: { diffMode: "on" } }))).toThrow(
      "json: cannot unmarshal string into Go struct field prestateTracerConfig.diffMode of type bool",
    );
  });

  it("marks a wrong type in the config argument itself (invalid argument, -32602) apart from a bad tracer config or timeout", () => {
    const typeOf = (raw: unknown): unknown => {
      try {
        createTracer(parseTraceConfig(raw));
      } catch (e) {
        return (e as TraceError).type;
      }
      return undefined;
    };
    expect(typeOf("x")).toEqual({ code: "TRACE_BAD_CONFIG", field: "", argument: true });
    expect(typeOf({ disableStack: "yes" })).toEqual({ code: "TRACE_BAD_CONFIG", field: "disableStack", argument: true });
    expect(typeOf({ tracer: 1 })).toEqual({ code: "TRACE_BAD_CONFIG", field: "tracer", argument: true });
    expect(typeOf({ tracer: "callTracer", tracerConfig: { onlyTopCall: 1 } })).toEqual({ code: "TRACE_BAD_CONFIG", field: "onlyTopCall" });
    expect(typeOf({ timeout: "5 parsecs" })).toMatchObject({ code: "TRACE_BAD_CONFIG", field: "timeout" });
    expect(typeOf({ timeout: "5 parsecs" })).not.toHaveProperty("argument");
  });

  it("refuses unknown tracers, also inside a mux", () => {
    expect(() => parseTraceConfig({ tracer: "fooTracer" })).toThrow(TraceError);
    expect(() => parseTraceConfig({ tracer: "fooTracer" })).toThrow(/^tracer not found: fooTracer/);
    expect(() => createTracer(parseTraceConfig({ tracer: "muxTracer", tracerConfig: { barTracer: {} } }))).toThrow("tracer not found: barTracer");
  });

  it("parses Go durations", () => {
    expect(parseGoDuration("5s")).toBe(5_000);
    expect(parseGoDuration("300ms")).toBe(300);
    expect(parseGoDuration("1m30s")).toBe(90_000);
    expect(parseGoDuration("1.5h")).toBe(5_400_000);
    expect(parseGoDuration("10us")).toBe(0.01);
    expect(parseGoDuration("0")).toBe(0);
    expect(() => parseGoDuration("5")).toThrow('time: missing unit in duration "5"');
    expect(() => parseGoDuration("abc")).toThrow('time: invalid duration "abc"');
    expect(() => parseGoDuration("5x")).toThrow('time: unknown unit "x" in duration "5x"');
  });
});

describe("StructLogger", () => {
  const step = (pc: number): Step => ({
    pc,
    op: 0x60,
    opName: "PUSH1",
    gas: 1000n,
    gasCost: 3n,
    depth: 1,
    stack: [1n, 2n],
    memory: new Uint8Array(),
    refund: 0n,
    address: new Uint8Array(20),
    returnData: new Uint8Array(),
    state: { account: () => undefined, storage: () => new Uint8Array(32) },
  });
  const end = { gasUsed: 21_003n, output: new Uint8Array(), error: undefined, reverted: false, state: { account: () => undefined, storage: () => new Uint8Array(32) } };
  const opts = { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false, limit: 0 };

  it("fails past its byte cap with an error naming the cap and the limit option", () => {
    const logger = new StructLogger(opts, 1_000);
    for (let i = 0; i < 100; i++) logger.onStep(step(i));
    logger.onTxEnd(end);
    expect(() => logger.result()).toThrow(/struct log exceeds 1000 bytes .*"limit" option/);
  });

  it("stays under the cap with `limit`", () => {
    const logger = new StructLogger({ ...opts, limit: 3 }, 1_000);
    for (let i = 0; i < 100; i++) logger.onStep(step(i));
    logger.onTxEnd(end);
    const r = JSON.parse(logger.result()) as { gas: number; structLogs: unknown[] };
    expect(r.gas).toBe(21_003);
    expect(r.structLogs).toEqual([0, 1, 2].map((pc) => ({ pc, op: "PUSH1", gas: 1000, gasCost: 3, depth: 1, stack: ["0x1", "0x2"] })));
  });

  it("records a failing step's error on that step (geth: out of gas before the opcode ran)", () => {
    const logger = new StructLogger(opts);
    logger.onStep(step(0));
    logger.onStepError(1, "out of gas");
    logger.onTxEnd({ ...end, error: "out of gas" });
    const r = JSON.parse(logger.result()) as { failed: boolean; returnValue: string; structLogs: Record<string, unknown>[] };
    expect(r.failed).toBe(true);
    expect(r.returnValue).toBe("0x");
    expect(r.structLogs[0]!.error).toBe("out of gas");
  });
});
