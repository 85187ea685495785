/**
 * Prometheus metrics of the execution-layer network, from the devp2p worker's last status
 * (`service.ts`): peers by direction, discovery table size and bytes go into the families shared
 * with the consensus-layer network (`../sharedMetrics.ts`, protocol "devp2p" / "discv4");
 * `basalt_p2p_devp2p_messages_total{message,direction}` counts eth messages and
 * `basalt_p2p_devp2p_dropped_total{reason}` what was dropped (garbage, oversized frames, refused
 * Status, bad discovery packets, handshake timeouts, peer limits).
 */
import type { Counter } from "prom-client";
import { counter } from "../../util/metrics.js";
import { setP2pMetricsSource } from "../sharedMetrics.js";

/** What the metrics read from the service. */
export interface DevP2PMetricsView {
  counters(): Record<string, number>;
  peerDirections(): { inbound: number; outbound: number };
  discoveryNodes(): number | undefined;
}

let view: DevP2PMetricsView | undefined;

/** Points the collectors at the running service (`undefined` to detach). */
export function bindDevP2PMetrics(v: DevP2PMetricsView | undefined): void {
  view = v;
  setP2pMetricsSource(
    "devp2p",
    v === undefined
      ? undefined
      : {
          peers: () => v.peerDirections(),
          discovery: () => {
            const n = v.discoveryNodes();
            return n === undefined ? undefined : { protocol: "discv4", nodes: n };
          },
          bytes: () => ({ in: v.counters()["bytes:in"] ?? 0, out: v.counters()["bytes:out"] ?? 0 }),
        },
  );
  registerDevP2PMetrics();
}

/** Registers the devp2p families (idempotent). */
export function registerDevP2PMetrics(): void {
  counter({
    name: "basalt_p2p_devp2p_messages_total",
    help: "eth/68 messages by name and direction (in, out)",
    labelNames: ["message", "direction"],
    collect(this: Counter) {
      this.reset();
      for (const [k, n] of Object.entries(view?.counters() ?? {})) {
        const m = /^messages:(in|out):(.+)$/.exec(k);
        if (m !== null) this.inc({ message: m[2]!, direction: m[1]! }, n);
      }
    },
  });
  counter({
    name: "basalt_p2p_devp2p_dropped_total",
    help: "Connections, messages and discovery packets dropped, by reason (invalid, oversized, handshakeTimeout, tooManyPeers, discv4Invalid, status_<why>)",
    labelNames: ["reason"],
    collect(this: Counter) {
      this.reset();
      for (const [k, n] of Object.entries(view?.counters() ?? {})) {
        if (k.startsWith("dropped:")) this.inc({ reason: k.slice("dropped:".length) }, n);
      }
    },
  });
}
