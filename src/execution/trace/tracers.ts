/** Builds the tracer a {@link TraceConfig} names, with its `tracerConfig` parsed (geth's tracer directory). */
import { CallTracer, parseCallTracerConfig } from "./callTracer.js";
import { TRACER_NAMES, type TraceConfig, type TracerName } from "./config.js";
import { TraceError, TraceErrorCode } from "./errors.js";
import { FlatCallTracer, parseFlatCallConfig } from "./flatCallTracer.js";
import { FourByteTracer } from "./fourByteTracer.js";
import { badMuxConfig, MuxTracer } from "./muxTracer.js";
import { NoopTracer } from "./noopTracer.js";
import { parsePrestateConfig, PrestateTracer } from "./prestateTracer.js";
import { StructLogger } from "./structLogger.js";
import type { Tracer } from "./tracer.js";

function configObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw badMuxConfig();
  return raw as Record<string, unknown>;
}

function build(name: TracerName, cfg: TraceConfig, tracerConfig: Record<string, unknown>): Tracer {
  switch (name) {
    case "structLogger":
      return new StructLogger(cfg.logger);
    case "callTracer":
      return new CallTracer(parseCallTracerConfig(tracerConfig));
    case "flatCallTracer":
      return new FlatCallTracer(parseFlatCallConfig(tracerConfig));
    case "prestateTracer":
      return new PrestateTracer(parsePrestateConfig(tracerConfig));
    case "4byteTracer":
      return new FourByteTracer();
    case "noopTracer":
      return new NoopTracer();
    case "muxTracer": {
      const tracers = new Map<string, Tracer>();
      for (const [sub, subCfg] of Object.entries(tracerConfig)) {
        if (sub === "muxTracer" || !(TRACER_NAMES as readonly string[]).includes(sub) || sub === "structLogger") {
          throw new TraceError({ code: TraceErrorCode.UNKNOWN_TRACER, tracer: sub }, `tracer not found: ${sub}`);
        }
        tracers.set(sub, build(sub as TracerName, cfg, configObject(subCfg)));
      }
      return new MuxTracer(tracers);
    }
  }
}

/**
 * A fresh tracer for one transaction.
 * @throws TraceError `BAD_CONFIG` for a malformed `tracerConfig`, `UNKNOWN_TRACER` for an unknown tracer inside a mux
 */
export function createTracer(cfg: TraceConfig): Tracer {
  return build(cfg.tracer, cfg, cfg.tracerConfig);
}
