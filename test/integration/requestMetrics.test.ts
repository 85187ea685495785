/**
 * The request duration histogram counted in plain numbers per method (MethodDurationHistogram):
 * its export — the registry's text and `get()` — is exactly what prom-client's own Histogram
 * exports for the same observations, bucket boundaries included.
 */
import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { DURATION_BUCKETS, MethodDurationHistogram } from "../../src/rpc/metrics.js";

describe("per-method duration histogram", () => {
  it("exports what prom-client's Histogram exports for the same observations", async () => {
    const mine = new Registry();
    const theirs = new Registry();
    const ours = new MethodDurationHistogram("basalt_rpc_test_duration_seconds", "handler duration", [mine]);
    const ref = new Histogram({ name: "basalt_rpc_test_duration_seconds", help: "handler duration", labelNames: ["method"], buckets: DURATION_BUCKETS, registers: [theirs] });
    expect(await mine.metrics()).toBe(await theirs.metrics());
    const values = [0, 1e-9, 0.0004, 0.0005, 0.00051, 0.001, 0.003, 0.25, 1, 7, 10, 10.5, 3600];
    for (const method of ["eth_getBlockByNumber", "eth_call", 'we"ird\\name']) {
      for (const v of values) {
        ours.observeRecord(ours.recordOf(method), v);
        ref.observe({ method }, v);
      }
    }
    ours.recordOf("never_observed");
    expect(await mine.metrics()).toBe(await theirs.metrics());
    expect(await ours.get()).toEqual(await ref.get());
    ours.reset();
    ref.reset();
    expect(await mine.metrics()).toBe(await theirs.metrics());
  });
});
