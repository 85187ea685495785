/**
 * Prometheus metrics of the JSON-RPC layer, on prom-client's default registry.
 *
 * Every metric is looked up in the registry before being created, so importing this module
 * twice (tests, worker reloads) never throws "metric already registered".
 */
import { Counter, Gauge, Histogram, register } from "prom-client";

/** Label used for the `method` label when the method is not in the served table (bounds cardinality). */
export const UNKNOWN_METHOD_LABEL = "unknown";
/** Label used for the `method` label of requests that are not valid JSON-RPC requests. */
export const INVALID_METHOD_LABEL = "invalid";

function counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames });
}

function histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
  return (
    (register.getSingleMetric(name) as Histogram<L> | undefined) ??
    new Histogram<L>({ name, help, labelNames, buckets })
  );
}

/** JSON-RPC calls and notifications served, by method and transport (`http`, `ws`, `engine`). */
export const rpcRequestsTotal = counter("basalt_rpc_requests_total", "JSON-RPC requests served", [
  "method",
  "transport",
]);

/** Handler wall time per method, in seconds. */
export const rpcRequestDuration = histogram(
  "basalt_rpc_request_duration_seconds",
  "JSON-RPC handler duration in seconds",
  ["method"],
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);

/** JSON-RPC error answers, by method and JSON-RPC error code. */
export const rpcErrorsTotal = counter("basalt_rpc_errors_total", "JSON-RPC error responses", ["method", "code"]);

/** Number of entries in each batch request. */
export const rpcBatchSize = histogram(
  "basalt_rpc_batch_size",
  "Entries per JSON-RPC batch request",
  [],
  [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
);

function gauge<L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> {
  return (register.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge<L>({ name, help, labelNames });
}

/** Open WebSocket JSON-RPC connections. */
export const rpcWsConnections = gauge("basalt_rpc_ws_connections", "Open WebSocket JSON-RPC connections", []);

/** Active eth_subscribe subscriptions, by kind (`newHeads`, `logs`, `newFlashblocks`, …). */
export const rpcWsSubscriptions = gauge("basalt_rpc_ws_subscriptions", "Active eth_subscribe subscriptions", ["kind"]);

/** eth_subscription notifications written to WebSocket connections, by subscription kind. */
export const rpcWsNotificationsTotal = counter("basalt_rpc_ws_notifications_total", "eth_subscription notifications sent", ["kind"]);

/** WebSocket connections closed because the client did not read its messages fast enough. */
export const rpcWsSlowConsumerDisconnectsTotal = counter(
  "basalt_rpc_ws_slow_consumer_disconnects_total",
  "WebSocket connections closed for unread output above the backpressure bound",
  [],
);
