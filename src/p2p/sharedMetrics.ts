/**
 * The metric families the execution-layer (devp2p) and consensus-layer (libp2p) networks share,
 * told apart by their `protocol` label: `basalt_p2p_peers{protocol,direction}`,
 * `basalt_p2p_discovery_nodes{protocol}` and `basalt_p2p_bytes_total{protocol,direction}`.
 * prom-client keeps one collector per name, so each network registers a source here instead of
 * defining the family itself; the collectors read every source at scrape time.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge } from "../util/metrics.js";

/** What one network reports into the shared families. */
interface P2pMetricsSource {
  /** Connected peers by direction ("inbound" / "outbound"). */
  peers(): { inbound: number; outbound: number };
  /** Nodes in each discovery table, labelled with the discovery protocol (none, one, or one per protocol the network runs). */
  discovery(): { protocol: string; nodes: number }[] | { protocol: string; nodes: number } | undefined;
  /** Bytes received and sent so far (all of the network's sockets). */
  bytes(): { in: number; out: number };
}

const sources = new Map<string, P2pMetricsSource>();

/** Registers (or replaces, or with `undefined` removes) the source of `protocol` ("devp2p", "libp2p"). */
export function setP2pMetricsSource(protocol: string, source: P2pMetricsSource | undefined): void {
  if (source === undefined) sources.delete(protocol);
  else sources.set(protocol, source);
  registerSharedP2pMetrics();
}

/** Registers the shared families (idempotent). */
export function registerSharedP2pMetrics(): void {
  gauge({
    name: "basalt_p2p_peers",
    help: "Connected peers by network protocol (devp2p, libp2p) and direction",
    labelNames: ["protocol", "direction"],
    collect(this: Gauge) {
      this.reset();
      for (const [protocol, s] of sources) {
        const p = s.peers();
        this.set({ protocol, direction: "inbound" }, p.inbound);
        this.set({ protocol, direction: "outbound" }, p.outbound);
      }
    },
  });
  gauge({
    name: "basalt_p2p_discovery_nodes",
    help: "Nodes in the discovery table by discovery protocol (discv4, discv5 of the consensus layer, discv5-basev0 of Base's execution layer)",
    labelNames: ["protocol"],
    collect(this: Gauge) {
      this.reset();
      for (const s of sources.values()) {
        const d = s.discovery();
        for (const t of d === undefined ? [] : Array.isArray(d) ? d : [d]) this.set({ protocol: t.protocol }, t.nodes);
      }
    },
  });
  counter({
    name: "basalt_p2p_bytes_total",
    help: "Bytes received (in) and sent (out) by network protocol, discovery included",
    labelNames: ["protocol", "direction"],
    collect(this: Counter) {
      this.reset();
      for (const [protocol, s] of sources) {
        const b = s.bytes();
        this.inc({ protocol, direction: "in" }, b.in);
        this.inc({ protocol, direction: "out" }, b.out);
      }
    },
  });
}
