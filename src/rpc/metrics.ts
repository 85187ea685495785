/** Prometheus metrics of the JSON-RPC layer (created with src/util/metrics.ts). */
import { counter, gauge, histogram } from "../util/metrics.js";

/** Label used for the `method` label when the method is not in the served table (bounds cardinality). */
export const UNKNOWN_METHOD_LABEL = "unknown";
/** Label used for the `method` label of requests that are not valid JSON-RPC requests. */
export const INVALID_METHOD_LABEL = "invalid";

/** JSON-RPC calls and notifications served, by method and transport (`http`, `ws`, `engine`). */
export const rpcRequestsTotal = counter({ name: "basalt_rpc_requests_total", help: "JSON-RPC requests served", labelNames: ["method", "transport"] });

/** Handler wall time per method, in seconds. */
export const rpcRequestDuration = histogram({
  name: "basalt_rpc_request_duration_seconds",
  help: "JSON-RPC handler duration in seconds",
  labelNames: ["method"],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** JSON-RPC error answers, by method and JSON-RPC error code. */
export const rpcErrorsTotal = counter({ name: "basalt_rpc_errors_total", help: "JSON-RPC error responses", labelNames: ["method", "code"] });

/** Number of entries (requests) in each batch request: `basalt_rpc_batch_requests`. */
export const rpcBatchSize = histogram({
  name: "basalt_rpc_batch_requests",
  help: "Entries per JSON-RPC batch request",
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
});

/** Open WebSocket JSON-RPC connections. */
export const rpcWsConnections = gauge({ name: "basalt_rpc_ws_connections", help: "Open WebSocket JSON-RPC connections" });

/** Active eth_subscribe subscriptions, by kind (`newHeads`, `logs`, `newFlashblocks`, …). */
export const rpcWsSubscriptions = gauge({ name: "basalt_rpc_ws_subscriptions", help: "Active eth_subscribe subscriptions", labelNames: ["kind"] });

/** eth_subscription notifications written to WebSocket connections, by subscription kind. */
export const rpcWsNotificationsTotal = counter({ name: "basalt_rpc_ws_notifications_total", help: "eth_subscription notifications sent", labelNames: ["kind"] });

/** WebSocket connections closed because the client did not read its messages fast enough. */
export const rpcWsSlowConsumerDisconnectsTotal = counter({
  name: "basalt_rpc_ws_slow_consumer_disconnects_total",
  help: "WebSocket connections closed for unread output above the backpressure bound",
});
