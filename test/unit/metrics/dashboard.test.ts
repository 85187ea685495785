/**
 * deploy/grafana/basalt.json: valid JSON with a `${DS_PROMETHEUS}` datasource input, and every
 * metric its panels query exists in the registry once all of basalt's metric families are
 * registered (histogram series by their family name).
 */
import { readFileSync } from "node:fs";
import { register } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerAllMetrics } from "../../../src/ops/metrics/families.js";

interface Panel {
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(readFileSync(new URL("../../../deploy/grafana/basalt.json", import.meta.url), "utf8")) as {
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: Panel[];
  templating: { list: { query: { query: string } }[] };
};

/** Histogram and summary series suffixes: the family is registered without them. */
const SERIES_SUFFIX = /_(bucket|sum|count)$/;

function referencedMetrics(): Set<string> {
  const names = new Set<string>();
  const exprs = [...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)), ...dashboard.templating.list.map((v) => v.query.query)];
  for (const e of exprs) for (const m of e.matchAll(/\bbasalt_[a-z0-9_]+/g)) names.add(m[0]);
  return names;
}

describe("Grafana dashboard", () => {
  it("takes its datasource as the DS_PROMETHEUS input", () => {
    expect(dashboard.__inputs).toContainEqual(expect.objectContaining({ name: "DS_PROMETHEUS", type: "datasource", pluginId: "prometheus" }));
    for (const p of dashboard.panels.filter((q) => q.type !== "row")) expect(p.datasource?.uid, p.title).toBe("${DS_PROMETHEUS}");
  });

  it("queries only metrics basalt registers", () => {
    registerAllMetrics();
    const referenced = referencedMetrics();
    expect(referenced.size).toBeGreaterThan(20);
    const registered = (n: string): boolean =>
      register.getSingleMetric(n) !== undefined || register.getSingleMetric(n.replace(SERIES_SUFFIX, "")) !== undefined;
    const missing = [...referenced].filter((n) => !registered(n));
    expect(missing).toEqual([]);
  });

  it("has the panels the operations guide names", () => {
    const referenced = referencedMetrics();
    for (const name of [
      "basalt_rpc_requests_total",
      "basalt_rpc_request_duration_seconds_bucket",
      "basalt_rpc_errors_total",
      "basalt_execution_pool_queued_requests",
      "basalt_execution_pool_busy_workers",
      "basalt_rpc_response_cache_hits_total",
      "basalt_chain_head_number",
      "basalt_chain_safe_number",
      "basalt_chain_finalized_number",
      "basalt_chain_head_age_seconds",
      "basalt_flashblocks_received_total",
      "basalt_flashblocks_applied_total",
      "basalt_flashblocks_rejected_total",
      "basalt_flashblocks_visible_latency_seconds_bucket",
      "basalt_storage_db_bytes",
      "basalt_process_resident_memory_bytes",
      "basalt_process_cpu_seconds_total",
      "basalt_p2p_peers",
      "basalt_p2p_gossip_messages_total",
      "basalt_p2p_blocks_first_seen_total",
      "basalt_p2p_discovery_nodes",
      "basalt_p2p_bytes_total",
      "basalt_p2p_gossip_import_blocks_total",
      "basalt_p2p_gossip_import_seconds_bucket",
    ]) {
      expect(referenced, name).toContain(name);
    }
  });
});
