/**
 * Prometheus metrics of the execution-layer network, collected in the devp2p worker's own thread
 * (`workers/devp2p.ts` binds them to its node; the worker host scrapes that registry into
 * `/metrics`; the main thread only registers the empty families): peers by direction, discovery table sizes and bytes go into the families shared
 * with the consensus-layer network (`../sharedMetrics.ts`, protocol "devp2p"; discovery protocol
 * "discv4" and "discv5-basev0", told apart from the consensus layer's standard "discv5");
 * `basalt_p2p_devp2p_messages_total{message,direction}` counts eth messages,
 * `basalt_p2p_devp2p_eth_peers{version}` the peers by negotiated eth version (68, 69), and
 * `basalt_p2p_devp2p_dropped_total{reason}` what was dropped: garbage, oversized frames, refused
 * Status (`status_<why>`), false ranges (`rangeInvalid`, `rangeBackwards`, `rangeUnservable`,
 * `rangeHeaderMismatch`, `rangeNoAnswer`), bad bodies and receipts (`bodyMismatch`,
 * `receiptsWithBloom`, `receiptsRootMismatch`, `receiptsBloomMismatch`), discovery datagrams
 * (`discv4Invalid`, `discv5WrongProtocol`, `discv5Invalid`), discovered records refused
 * (`enr_<why>`), handshake timeouts and peer limits.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge } from "../../util/metrics.js";
import { setP2pMetricsSource } from "../sharedMetrics.js";

/** What the metrics read from the devp2p node (in the worker). */
interface DevP2PMetricsView {
  counters(): Record<string, number>;
  peerDirections(): { inbound: number; outbound: number };
  /** Nodes in each discovery table that runs, by discovery protocol. */
  discoveryNodes(): { protocol: string; nodes: number }[];
  /** Connected peers by negotiated eth version ("68", "69"). */
  ethVersions(): Record<string, number>;
}

let view: DevP2PMetricsView | undefined;

/** Points the collectors at the worker's node (`undefined` to detach). */
export function bindDevP2PMetrics(v: DevP2PMetricsView | undefined): void {
  view = v;
  setP2pMetricsSource(
    "devp2p",
    v === undefined
      ? undefined
      : {
          peers: () => v.peerDirections(),
          discovery: () => v.discoveryNodes(),
          bytes: () => ({ in: v.counters()["bytes:in"] ?? 0, out: v.counters()["bytes:out"] ?? 0 }),
        },
  );
  registerDevP2PMetrics();
}

/** Registers the devp2p families (idempotent). */
export function registerDevP2PMetrics(): void {
  counter({
    name: "basalt_p2p_devp2p_messages_total",
    help: "eth messages (eth/68 and eth/69) by name and direction (in, out)",
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
    help: "Connections, messages, discovery datagrams and records dropped, by reason (invalid, oversized, handshakeTimeout, tooManyPeers, status_<why>, range*, receipts*, bodyMismatch, discv4Invalid, discv5WrongProtocol, discv5Invalid, enr_<why>)",
    labelNames: ["reason"],
    collect(this: Counter) {
      this.reset();
      for (const [k, n] of Object.entries(view?.counters() ?? {})) {
        if (k.startsWith("dropped:")) this.inc({ reason: k.slice("dropped:".length) }, n);
      }
    },
  });
  gauge({
    name: "basalt_p2p_devp2p_eth_peers",
    help: "Connected execution-layer peers by negotiated eth protocol version (68, 69)",
    labelNames: ["version"],
    collect(this: Gauge) {
      this.reset();
      for (const [version, n] of Object.entries(view?.ethVersions() ?? {})) this.set({ version }, n);
    },
  });
}
