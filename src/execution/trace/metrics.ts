/** Prometheus metrics of tracing (debug_trace*), created with src/util/metrics.ts. */
import { histogram } from "../../util/metrics.js";

/** Time of one trace request from acceptance to answer (queue wait included), by tracer. */
export const traceSeconds = histogram({
  name: "basalt_execution_trace_seconds",
  help: "debug_trace* request time from acceptance to answer, queue wait included, by tracer, in seconds",
  labelNames: ["tracer"],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
});
