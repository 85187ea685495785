/** Prometheus metrics of public-endpoint mode (`--public`), created with src/util/metrics.ts. */
import { counter, gauge } from "../util/metrics.js";

/** Requests (HTTP) and messages (WebSocket) refused by the per-client rate limit, by transport (`http`, `ws`). */
export const rpcRateLimitedTotal = counter({
  name: "basalt_rpc_rate_limited_total",
  help: "Requests refused by the per-client rate limit (public mode)",
  labelNames: ["transport"],
});

/** Calls refused because their method is not served on public endpoints, by method. */
export const rpcForbiddenTotal = counter({
  name: "basalt_rpc_forbidden_total",
  help: "Calls refused on public endpoints (eth_getBlockReceipts, debug/admin/… namespaces), by method",
  labelNames: ["method"],
});

/** Connections (HTTP requests or WebSocket upgrades) refused because the public connection cap was reached. */
export const rpcConnectionsRejectedTotal = counter({ name: "basalt_rpc_connections_rejected_total", help: "Connections refused at the public connection cap" });

/** Connections counted against the public cap: in-flight HTTP requests plus open WebSockets. */
export const rpcOpenConnections = gauge({ name: "basalt_rpc_open_connections", help: "Public-mode connections: in-flight HTTP requests plus open WebSockets" });
