/**
 * Prometheus metrics of public-endpoint mode (`--public`), on prom-client's default registry.
 * Each metric is looked up before it is created, so a second import never throws.
 */
import { Counter, Gauge, register } from "prom-client";

function counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames });
}

/** Requests (HTTP) and messages (WebSocket) refused by the per-client rate limit, by transport (`http`, `ws`). */
export const rpcRateLimitedTotal = counter("basalt_rpc_rate_limited_total", "Requests refused by the per-client rate limit (public mode)", [
  "transport",
]);

/** Calls refused because their method is not served on public endpoints, by method. */
export const rpcForbiddenTotal = counter(
  "basalt_rpc_forbidden_total",
  "Calls refused on public endpoints (eth_getBlockReceipts, debug/admin/… namespaces), by method",
  ["method"],
);

/** Connections (HTTP requests or WebSocket upgrades) refused because the public connection cap was reached. */
export const rpcConnectionsRejectedTotal = counter("basalt_rpc_connections_rejected_total", "Connections refused at the public connection cap", []);

/** Connections counted against the public cap: in-flight HTTP requests plus open WebSockets. */
export const rpcOpenConnections: Gauge =
  (register.getSingleMetric("basalt_rpc_open_connections") as Gauge | undefined) ??
  new Gauge({ name: "basalt_rpc_open_connections", help: "Public-mode connections: in-flight HTTP requests plus open WebSockets" });
