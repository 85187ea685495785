/**
 * Prometheus metrics of the consensus-layer P2P: gossip messages by topic version, result and
 * reason, refused discovery records and packets, req/resp requests by side and result, bans —
 * collected in the P2P worker's own thread from its node's tally (`workers/p2p.ts` binds them; the
 * worker host scrapes that registry into `/metrics`) — and worker restarts, counted on the main
 * thread by the host. Peers, the discv5 table size and bytes go to the families shared with
 * devp2p (`sharedMetrics.ts`, protocol "libp2p"), also from the worker. The main thread registers
 * every family (empty) so a scrape lists them before P2P runs.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge, isMetricRegistered } from "../util/metrics.js";
import type { StatSample } from "./cl/protocol.js";
import { registerSharedP2pMetrics, setP2pMetricsSource } from "./sharedMetrics.js";

let samples: () => StatSample[] = () => [];

const FIRST = "basalt_p2p_gossip_messages_total";

/** Sum of the samples called `name` whose labels include `match`. */
function sampled(name: string, match: Record<string, string> = {}): number {
  let total = 0;
  for (const s of samples()) {
    if (s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)) total += s.value;
  }
  return total;
}

/** P2P worker: points the collectors at the node's samples (registers the worker's families once, in its registry). */
export function bindP2PMetrics(readSamples: () => StatSample[]): void {
  samples = readSamples;
  registerSharedP2pMetrics();
  registerSampledMetrics();
  // Peers, the discovery table and bytes share their families with devp2p (told apart by `protocol`).
  setP2pMetricsSource("libp2p", {
    peers: () => ({ inbound: sampled("peers", { direction: "inbound" }), outbound: sampled("peers", { direction: "outbound" }) }),
    discovery: () => ({ protocol: "discv5", nodes: sampled("discovery_nodes") }),
    bytes: () => ({ in: sampled("bytes", { direction: "inbound" }), out: sampled("bytes", { direction: "outbound" }) }),
  });
}

/** Main thread: registers the P2P families (empty; the worker's values are summed in at scrape). Idempotent. */
export function registerP2PMetrics(): void {
  registerSharedP2pMetrics();
  registerSampledMetrics();
  p2pWorkerRestarts();
}

/** Restarts of the P2P worker after it crashed (main thread; the worker host increments it). */
export function p2pWorkerRestarts(): Counter {
  return counter({ name: "basalt_p2p_worker_restarts_total", help: "Restarts of the P2P worker after it crashed" });
}

function registerSampledMetrics(): void {
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
  fromSamples(
    "counter",
    "basalt_p2p_gossip_messages_total",
    "Gossiped block messages validated, by topic version (v1..v4), result (accept, reject, ignore) and reason",
    "gossip_messages",
    ["version", "result", "reason"],
  );
  fromSamples("counter", "basalt_p2p_gossip_published_messages_total", "Blocks this node signed and published, by topic version", "gossip_published", ["version"]);
  fromSamples("counter", "basalt_p2p_discovery_rejected_nodes_total", "Discovered records refused, by reason (noEntry, wrongChain, wrongVersion, badEntry, noTcpAddress, badRecord)", "discovery_rejected_nodes", ["reason"]);
  fromSamples("counter", "basalt_p2p_discovery_messages_total", "discv5 UDP packets received, by result (decoded, malformed)", "discovery_packets", ["result"]);
  fromSamples("counter", "basalt_p2p_reqresp_requests_total", "payload_by_number requests by side (server, client) and result", "reqresp_requests", ["side", "result"]);
  fromSamples("counter", "basalt_p2p_dials_total", "Outbound dials by source (discovery, static) and result", "dials", ["source", "result"]);
  fromSamples("counter", "basalt_p2p_peer_bans_total", "Peers banned for a gossip score below the ban threshold", "peer_bans", []);
  fromSamples("gauge", "basalt_p2p_banned_peers", "Peers blocked or banned now", "banned_peers", []);
}
