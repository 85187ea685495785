/** The metrics endpoint: GET /metrics in Prometheus text with the process metrics, 404 elsewhere, port conflicts refused. */
import { register } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { MetricsServerError, startMetricsServer, type MetricsServer } from "../../../src/ops/metrics/server.js";

const servers: MetricsServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe("metrics server", () => {
  it("serves the default registry at /metrics and 404 elsewhere", async () => {
    const s = await startMetricsServer({ host: "127.0.0.1", port: 0 });
    servers.push(s);
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/metrics`);
    const res = await fetch(s.url, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(register.contentType);
    const text = await res.text();
    const names = [
      "basalt_process_cpu_seconds_total",
      "basalt_process_resident_memory_bytes",
      "basalt_rpc_requests_total",
      "basalt_chain_head_number",
      "basalt_flashblocks_received_total",
    ];
    for (const name of names) {
      expect(text).toContain(`# HELP ${name} `);
    }
    expect((await fetch(`http://127.0.0.1:${s.port}/`, { signal: AbortSignal.timeout(5000) })).status).toBe(404);
    expect((await fetch(s.url, { method: "POST", body: "x", signal: AbortSignal.timeout(5000) })).status).toBe(404);
  });

  it("refuses a port that is taken", async () => {
    const a = await startMetricsServer({ host: "127.0.0.1", port: 0 });
    servers.push(a);
    await expect(startMetricsServer({ host: "127.0.0.1", port: a.port })).rejects.toThrow(MetricsServerError);
  });
});
