/** Builds the tracer a {@link TraceConfig} names, with its `tracerConfig` parsed (geth's tracer directory). */
import { CallTracer, parseCallTracerConfig } from "./callTracer.js";
import type { TraceConfig } from "./config.js";
import { NoopTracer } from "./noopTracer.js";
import { StructLogger } from "./structLogger.js";
import type { Tracer } from "./tracer.js";

/**
 * A fresh tracer for one transaction.
 * @throws TraceError `BAD_CONFIG` for a malformed `tracerConfig`
 */
export function createTracer(cfg: TraceConfig): Tracer {
  switch (cfg.tracer) {
    case "structLogger":
      return new StructLogger(cfg.logger);
    case "callTracer":
      return new CallTracer(parseCallTracerConfig(cfg.tracerConfig));
    case "noopTracer":
      return new NoopTracer();
    default:
      return new NoopTracer();
  }
}
