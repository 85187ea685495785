/**
 * Prometheus metrics of the JSON-RPC layer (created with src/util/metrics.ts; the per-method
 * request counter and duration histogram are fed in plain numbers and exported on scrape).
 */
import { Counter, Histogram, register, type MetricObjectWithValues, type MetricValueWithName, type Registry } from "prom-client";
import { checkMetricName, counter, gauge, histogram } from "../util/metrics.js";

/** Label used for the `method` label when the method is not in the served table (bounds cardinality). */
export const UNKNOWN_METHOD_LABEL = "unknown";
/** Label used for the `method` label of requests that are not valid JSON-RPC requests. */
export const INVALID_METHOD_LABEL = "invalid";

/** Transports a request can come in on (the `transport` label). */
type RpcTransport = "http" | "ws" | "engine" | "rollup";

const TRANSPORTS: readonly RpcTransport[] = ["http", "ws", "engine", "rollup"];

/** Upper bounds of the request duration buckets, in seconds. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method's requests and handler durations, counted in plain numbers on the request path. */
export interface MethodRecord {
  readonly method: string;
  /** Requests by transport since start. */
  readonly requests: Record<RpcTransport, number>;
  /** Requests by transport already added to the prom-client counter. */
  readonly exported: Record<RpcTransport, number>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * The handler duration histogram, fed per method without prom-client's per-observation label
 * hashing: {@link recordOf} finds a method's record once per request, {@link observeRecord} adds
 * to plain numbers, and the export builds exactly what prom-client's own Histogram exports for
 * the same observations (the records also hold the request counts that feed
 * `basalt_rpc_requests_total` on each scrape).
 */
export class MethodDurationHistogram extends Histogram<"method"> {
  private readonly records = new Map<string, MethodRecord>();

  constructor(
    private readonly metricName: string,
    help: string,
    registers: Registry[] = [register],
  ) {
    checkMetricName(metricName, "histogram");
    super({ name: metricName, help, labelNames: ["method"], buckets: DURATION_BUCKETS, registers });
  }

  /** The record of `method`, created on first use. */
  recordOf(method: string): MethodRecord {
    let r = this.records.get(method);
    if (r === undefined) {
      const zero = (): Record<RpcTransport, number> => ({ http: 0, ws: 0, engine: 0, rollup: 0 });
      r = { method, requests: zero(), exported: zero(), buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.records.set(method, r);
    }
    return r;
  }

  /** Adds one handler duration (seconds) to `record`. */
  observeRecord(record: MethodRecord, seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] as number)) i++;
    record.buckets[i] = (record.buckets[i] as number) + 1;
    record.sum += seconds;
    record.count++;
  }

  /** Every method's record (for the request counter's export). */
  allRecords(): IterableIterator<MethodRecord> {
    return this.records.values();
  }

  /** prom-client's export shape: cumulative `_bucket` values per bound and `+Inf`, then `_sum` and `_count`, per method. */
  async getForPromString(): Promise<PromExport> {
    // Observations made through prom-client's own API, if any, as its Histogram exports them.
    const base = await (Histogram.prototype as unknown as { getForPromString(this: Histogram): Promise<PromExport> }).getForPromString.call(this);
    const values = [...base.values];
    const bucketName = `${this.metricName}_bucket`;
    for (const r of this.records.values()) {
      if (r.count === 0) continue;
      const shared = { method: r.method };
      let acc = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        acc += r.buckets[i] as number;
        values.push({ labels: { le }, sharedLabels: shared, value: acc, metricName: bucketName, exemplar: null });
      });
      values.push(
        { labels: { le: "+Inf" }, sharedLabels: shared, value: r.count, metricName: bucketName, exemplar: null },
        { labels: {}, sharedLabels: shared, value: r.sum, metricName: `${this.metricName}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: shared, value: r.count, metricName: `${this.metricName}_count`, exemplar: undefined },
      );
    }
    return { ...base, values };
  }

  /** The metric with each value's labels merged (prom-client's `get`). */
  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<"method">>> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })) };
  }

  override reset(): void {
    super.reset();
    // Called by prom-client's constructor before the field initializers run.
    if (this.records === undefined) return;
    for (const r of this.records.values()) {
      r.buckets.fill(0);
      r.sum = 0;
      r.count = 0;
    }
  }
}

/** One exported value as prom-client's histograms hand them to the registry (labels and the shared `method`). */
interface PromValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string | number>;
  value: number;
  metricName?: string;
  exemplar?: null;
}

/** A histogram's export before its labels are merged (prom-client's `getForPromString`). */
type PromExport = Omit<MetricObjectWithValues<MetricValueWithName<string>>, "values"> & { values: PromValue[] };

/** Handler wall time per method, in seconds. */
export const rpcRequestDuration =
  (register.getSingleMetric("basalt_rpc_request_duration_seconds") as MethodDurationHistogram | undefined) ??
  new MethodDurationHistogram("basalt_rpc_request_duration_seconds", "JSON-RPC handler duration in seconds");

/**
 * JSON-RPC calls and notifications served, by method and transport (`http`, `ws`, `engine`), from
 * the method records: registered once (its `collect` reads {@link rpcRequestDuration}), read only
 * by a scrape.
 */
if (register.getSingleMetric("basalt_rpc_requests_total") === undefined) {
  new Counter<"method" | "transport">({
    name: "basalt_rpc_requests_total",
    help: "JSON-RPC requests served",
    labelNames: ["method", "transport"],
    collect(this: Counter<"method" | "transport">) {
      for (const r of rpcRequestDuration.allRecords()) {
        for (const transport of TRANSPORTS) {
          const delta = r.requests[transport] - r.exported[transport];
          if (delta > 0) this.inc({ method: r.method, transport }, delta);
          r.exported[transport] = r.requests[transport];
        }
      }
    },
  });
}

/** JSON-RPC error answers, by method and JSON-RPC error code. */
export const rpcErrorsTotal = counter({ name: "basalt_rpc_errors_total", help: "JSON-RPC error responses", labelNames: ["method", "code"] });

/** Number of entries in each batch request. */
export const rpcBatchSize = histogram({
  name: "basalt_rpc_batch_requests",
  help: "Entries per JSON-RPC batch request",
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
});

/** Open WebSocket JSON-RPC connections. */
export const rpcWsConnections = gauge({ name: "basalt_rpc_ws_connections", help: "Open WebSocket JSON-RPC connections" });

/** Active eth_subscribe subscriptions, by kind (`newHeads`, `logs`, `newFlashblocks`, …). */
export const rpcWsSubscriptions = gauge({ name: "basalt_rpc_ws_subscriptions", help: "Active eth_subscribe subscriptions", labelNames: ["kind"] });

/** Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter), by kind: block, logs, pendingTx. */
export const rpcFilters = gauge({ name: "basalt_rpc_filters", help: "Installed polling filters", labelNames: ["kind"] });

/** Filters removed for not being polled within the timeout, by kind. */
export const rpcFiltersExpiredTotal = counter({ name: "basalt_rpc_filters_expired_total", help: "Filters removed after five minutes without a poll", labelNames: ["kind"] });

/** Pending transactions dropped from a full pending-transaction filter (the oldest go first). */
export const rpcFilterPendingDroppedTotal = counter({
  name: "basalt_rpc_filter_pending_dropped_transactions_total",
  help: "Transactions dropped from pending-transaction filters that were not polled in time",
});

/** eth_subscription notifications written to WebSocket connections, by subscription kind. */
export const rpcWsNotificationsTotal = counter({ name: "basalt_rpc_ws_notifications_total", help: "eth_subscription notifications sent", labelNames: ["kind"] });

/** WebSocket connections closed because the client did not read its messages fast enough. */
export const rpcWsSlowConsumerDisconnectsTotal = counter({
  name: "basalt_rpc_ws_slow_consumer_disconnects_total",
  help: "WebSocket connections closed for unread output above the backpressure bound",
});

/** Blocks of eth_getLogs / eth_getFilterLogs ranges, by the path that answered them. */
export const rpcGetLogsBlocksTotal = counter<"path">({
  name: "basalt_rpc_get_logs_blocks_total",
  help: "Blocks of eth_getLogs/eth_getFilterLogs ranges, by path: candidates looked up in the log index (index) or every block's bloom checked (scan)",
  labelNames: ["path"],
});

/** Blocks whose receipts eth_getLogs read: the index's candidates, or the scan's bloom hits. */
export const rpcGetLogsBlocksReadTotal = counter<"path">({
  name: "basalt_rpc_get_logs_blocks_read_total",
  help: "Blocks whose receipts eth_getLogs/eth_getFilterLogs read, by path: the log index's candidate blocks (index) or the blocks whose bloom may match (scan)",
  labelNames: ["path"],
});
