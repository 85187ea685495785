/** The metric helper: names follow basalt_<subsystem>_…_<unit>, and a second definition reuses the first. */
import { describe, expect, it } from "vitest";
import { checkMetricName, counter, MetricNameError } from "../../../src/util/metrics.js";

describe("metric helper", () => {
  it("accepts names with a subsystem prefix and a unit suffix", () => {
    for (const [name, kind] of [
      ["basalt_rpc_requests_total", "counter"],
      ["basalt_flashblocks_publish_bytes_total", "counter"],
      ["basalt_rpc_batch_requests", "histogram"],
      ["basalt_chain_head_number", "gauge"],
      ["basalt_sync_follow_head_number", "gauge"],
      ["basalt_execution_pool_task_seconds", "histogram"],
    ] as const) {
      expect(() => checkMetricName(name, kind), name).not.toThrow();
    }
  });

  it("refuses a missing prefix, an unknown subsystem, a missing unit and a counter without _total", () => {
    for (const [name, kind] of [
      ["rpc_requests_total", "counter"],
      ["basalt_widgets_made_total", "counter"],
      ["basalt_rpc_batch_size", "histogram"],
      ["basalt_chain_head_block", "gauge"],
      ["basalt_rpc_requests", "counter"],
    ] as const) {
      expect(() => checkMetricName(name, kind), name).toThrow(MetricNameError);
    }
  });

  it("reuses a metric defined twice instead of throwing", () => {
    const a = counter({ name: "basalt_rpc_helper_test_total", help: "test" });
    const b = counter({ name: "basalt_rpc_helper_test_total", help: "test" });
    expect(b).toBe(a);
  });
});
