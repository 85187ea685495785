/** Prometheus metrics of the execution pool, created with src/util/metrics.ts. */
import { counter, gauge, histogram } from "../../util/metrics.js";

/** How a pool task ended: answered (`ok`, or `error` for a JSON-RPC error such as a revert), refused, timed out or lost with its worker. */
export type PoolOutcome = "ok" | "error" | "rejected" | "timeout" | "crashed";

/** Call-family requests by method and outcome. */
export const poolTasksTotal = counter({ name: "basalt_execution_pool_tasks_total", help: "Execution pool tasks by method and outcome", labelNames: ["method", "outcome"] });

/** Time from acceptance to answer (queue wait included), by method. */
export const poolTaskSeconds = histogram({
  name: "basalt_execution_pool_task_seconds",
  help: "Execution pool task time from acceptance to answer, queue wait included, in seconds",
  labelNames: ["method"],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Requests per batch handed to a worker (1 when idle; more under load, up to EXECUTION_BATCH_MAX). */
export const poolBatchRequests = histogram({
  name: "basalt_execution_pool_batch_requests",
  help: "Call requests handed to an execution worker in one message",
  buckets: [1, 2, 4, 8, 16],
});

/** Workers replaced after a crash or a timeout. */
export const poolWorkerRestartsTotal = counter({ name: "basalt_execution_pool_worker_restarts_total", help: "Execution pool workers replaced, by reason", labelNames: ["reason"] });

/** Reads the live pool figures at scrape time. */
interface PoolGauges {
  queueDepth(): number;
  busyWorkers(): number;
  workers(): number;
}

let gauges: PoolGauges | undefined;

/** Points the queue-depth and busy-worker gauges at the running pool (one pool per process). */
export function bindPoolGauges(g: PoolGauges | undefined): void {
  gauges = g;
}

/** A gauge reading the bound pool at scrape time (0 while none is bound). */
function poolGauge(name: string, help: string, read: (g: PoolGauges) => number): void {
  gauge({
    name,
    help,
    collect() {
      this.set(gauges === undefined ? 0 : read(gauges));
    },
  });
}

poolGauge("basalt_execution_pool_queued_requests", "Call-family requests waiting for an execution worker", (g) => g.queueDepth());
poolGauge("basalt_execution_pool_busy_workers", "Execution workers running a task", (g) => g.busyWorkers());
poolGauge("basalt_execution_pool_workers", "Execution workers alive", (g) => g.workers());
