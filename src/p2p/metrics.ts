/**
 * Prometheus metrics of the consensus-layer P2P, collected at scrape time from the P2P worker's
 * last samples (`service.ts`; the worker counts, the main thread's registry exposes):
 * peers by protocol and direction, gossip messages by topic version, result and reason,
 * discovery table size and refused records and packets, bytes by direction, req/resp requests
 * by side and result, bans, and worker restarts.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge, isMetricRegistered } from "../util/metrics.js";
import type { StatSample } from "./cl/protocol.js";

let samples: () => StatSample[] = () => [];
let restarts: () => number = () => 0;

const FIRST = "basalt_p2p_peers";

/** Points the collectors at the running service (registers the families once). */
export function bindP2PMetrics(readSamples: () => StatSample[], readRestarts: () => number): void {
  samples = readSamples;
  restarts = readRestarts;
  registerP2PMetrics();
}

/** Registers the P2P families (empty until a service binds). Idempotent. */
export function registerP2PMetrics(): void {
  if (isMetricRegistered(FIRST)) return;
  /** A family from the samples called `sample`, with `labels`. */
  const fromSamples = (kind: "counter" | "gauge", name: string, help: string, sample: string, labels: string[]): void => {
    const collect = function (this: Counter | Gauge): void {
      this.reset();
      for (const s of samples()) {
        if (s.name !== sample) continue;
        const l = Object.fromEntries(labels.map((k) => [k, s.labels[k] ?? ""]));
        if (kind === "counter") (this as Counter).inc(l, s.value);
        else (this as Gauge).inc(l, s.value);
      }
    };
    if (kind === "counter") counter({ name, help, labelNames: labels, collect });
    else gauge({ name, help, labelNames: labels, collect });
  };
  fromSamples("gauge", FIRST, "Connected peers by protocol (libp2p) and direction (inbound, outbound)", "peers", ["protocol", "direction"]);
  fromSamples(
    "counter",
    "basalt_p2p_gossip_messages_total",
    "Gossiped block messages validated, by topic version (v1..v4), result (accept, reject, ignore) and reason",
    "gossip_messages",
    ["version", "result", "reason"],
  );
  fromSamples("counter", "basalt_p2p_gossip_published_messages_total", "Blocks this node signed and published, by topic version", "gossip_published", ["version"]);
  fromSamples("gauge", "basalt_p2p_discovery_nodes", "Records in the discv5 table", "discovery_nodes", []);
  fromSamples("counter", "basalt_p2p_discovery_rejected_nodes_total", "Discovered records refused, by reason (noEntry, wrongChain, wrongVersion, badEntry, noTcpAddress, badRecord)", "discovery_rejected_nodes", ["reason"]);
  fromSamples("counter", "basalt_p2p_discovery_messages_total", "discv5 UDP packets received, by result (decoded, malformed)", "discovery_packets", ["result"]);
  fromSamples("counter", "basalt_p2p_bytes_total", "Bytes over libp2p connections, by direction (inbound, outbound)", "bytes", ["direction"]);
  fromSamples("counter", "basalt_p2p_reqresp_requests_total", "payload_by_number requests by side (server, client) and result", "reqresp_requests", ["side", "result"]);
  fromSamples("counter", "basalt_p2p_dials_total", "Outbound dials by source (discovery, static) and result", "dials", ["source", "result"]);
  fromSamples("counter", "basalt_p2p_peer_bans_total", "Peers banned for a gossip score below the ban threshold", "peer_bans", []);
  fromSamples("gauge", "basalt_p2p_banned_peers", "Peers blocked or banned now", "banned_peers", []);
  counter({
    name: "basalt_p2p_worker_restarts_total",
    help: "Restarts of the P2P worker after it crashed",
    collect(this: Counter) {
      this.reset();
      this.inc(restarts());
    },
  });
}
