/**
 * `GET /health?max_lag=<seconds>` on the rollup port: the specification's sync check
 * (lag = now − `unsafe_l2.timestamp`) as an HTTP status, for load balancers and Kubernetes
 * readiness probes that cannot send a JSON-RPC POST or read its body (deploy/haproxy.cfg,
 * deploy/k8s/statefulset.yaml). 200 while the head is at most `max_lag` seconds old, else 503.
 */
import type { Chain } from "../blockchain/chain.js";
import { DEFAULT_HEALTH_MAX_LAG_S } from "./constants.js";

/** The path served. */
const HEALTH_PATH = "/health";

/** The answer to `GET /health` at `nowS` (Unix seconds), or undefined for other paths. */
export function healthAnswer(chain: Chain, path: string, query: string, nowS = Date.now() / 1000): { status: string; body: string } | undefined {
  if (path !== HEALTH_PATH) return undefined;
  const raw = new URLSearchParams(query).get("max_lag");
  const maxLag = raw === null || raw === "" ? DEFAULT_HEALTH_MAX_LAG_S : Number(raw);
  if (!Number.isFinite(maxLag) || maxLag < 0) {
    return { status: "400 Bad Request", body: JSON.stringify({ error: `max_lag must be a number of seconds ≥ 0, got ${JSON.stringify(raw)}` }) };
  }
  const head = chain.head.header;
  const lag = Math.max(0, Math.round(nowS - Number(head.timestamp)));
  const healthy = lag <= maxLag;
  return {
    status: healthy ? "200 OK" : "503 Service Unavailable",
    body: JSON.stringify({ healthy, lag, max_lag: maxLag, unsafe_l2: { number: Number(head.number), timestamp: Number(head.timestamp) } }),
  };
}
