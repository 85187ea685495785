/**
 * The one way basalt creates Prometheus metrics (prom-client's default registry): a metric is
 * looked up before it is created, so importing a metrics module twice (tests, worker reloads)
 * reuses it instead of throwing "metric already registered", and every name is checked against
 * basalt's naming rule when it is defined:
 *
 * `basalt_<subsystem>_<what>_<unit>` — the subsystem is one of {@link METRIC_SUBSYSTEMS}; the name
 * ends with a unit from {@link METRIC_UNITS} (plural, Prometheus style), and a counter ends with
 * `_total` (e.g. `basalt_flashblocks_publish_bytes_total`). Subsystem metrics are defined in their
 * subsystem's own module with these helpers.
 */
import {
  Counter,
  Gauge,
  Histogram,
  register,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Metric,
} from "prom-client";
import { TypedError } from "./errors.js";

/** Prefix of every basalt metric (prom-client's default process metrics carry it too). */
export const METRIC_PREFIX = "basalt_";

/** The subsystems a metric name may start with, after {@link METRIC_PREFIX}. */
export const METRIC_SUBSYSTEMS = ["chain", "storage", "execution", "txpool", "flashblocks", "sync", "sequencer", "derivation", "batcher", "proofs", "p2p", "rpc", "rollup"] as const;

/**
 * Units a metric name may end with: base units (seconds, bytes, gas), counted things (blocks,
 * requests, transactions, workers, connections, subscribers, subscriptions, filters) and the identifiers
 * of a block (its number, a flashblock's index). Counters add `_total` after the unit.
 */
const METRIC_UNITS = ["seconds", "bytes", "gas", "blocks", "requests", "transactions", "workers", "connections", "subscribers", "subscriptions", "filters", "nodes", "number", "index", "peers", "messages"] as const;

/** The kinds of metric the helpers create. */
type MetricKind = "counter" | "gauge" | "histogram";

/** Stable code of {@link MetricNameError}. */
const MetricNameErrorCode = { NAME_INVALID: "METRIC_NAME_INVALID" } as const;
/** A {@link MetricNameError}'s code with its metadata. */
type MetricNameErrorType = { code: typeof MetricNameErrorCode.NAME_INVALID; name: string; kind: MetricKind };

/** A metric name that breaks the naming rule (a programming error, raised when the module loads). */
export class MetricNameError extends TypedError<MetricNameErrorType> {
  constructor(name: string, kind: MetricKind, why: string) {
    super({ code: MetricNameErrorCode.NAME_INVALID, name, kind }, `metric ${name} (${kind}): ${why}`);
  }
}

/**
 * Checks `name` against the naming rule: the `basalt_<subsystem>_` prefix, and a unit suffix
 * (for a counter, `_total`, alone after an event name or after a unit).
 * @throws MetricNameError naming what is wrong.
 */
export function checkMetricName(name: string, kind: MetricKind): void {
  const subsystem = METRIC_SUBSYSTEMS.find((s) => name.startsWith(`${METRIC_PREFIX}${s}_`));
  if (subsystem === undefined) throw new MetricNameError(name, kind, `must start with ${METRIC_PREFIX}<subsystem>_, subsystem one of ${METRIC_SUBSYSTEMS.join(", ")}`);
  if (!/^[a-z0-9_]+$/.test(name)) throw new MetricNameError(name, kind, "must be lower-case letters, digits and underscores");
  if (kind === "counter") {
    if (!name.endsWith("_total")) throw new MetricNameError(name, kind, "a counter must end with _total");
    return;
  }
  if (!METRIC_UNITS.some((u) => name.endsWith(`_${u}`))) throw new MetricNameError(name, kind, `must end with a unit: one of ${METRIC_UNITS.map((u) => `_${u}`).join(", ")}`);
}

/** Whether a metric called `name` is registered already (collectors that register as a group check one of them). */
export function isMetricRegistered(name: string): boolean {
  return register.getSingleMetric(name) !== undefined;
}

/** The registered metric called `config.name`, or a new one from `create` after checking the name. */
function metric<M extends Metric>(kind: MetricKind, name: string, create: () => M): M {
  checkMetricName(name, kind);
  return (register.getSingleMetric(name) as M | undefined) ?? create();
}

/** A counter (created once per process, reused afterwards). */
export function counter<L extends string = string>(config: CounterConfiguration<L>): Counter<L> {
  return metric("counter", config.name, () => new Counter<L>(config));
}

/** A gauge (created once per process, reused afterwards); `collect` reads live values at scrape time. */
export function gauge<L extends string = string>(config: GaugeConfiguration<L>): Gauge<L> {
  return metric("gauge", config.name, () => new Gauge<L>(config));
}

/** A histogram (created once per process, reused afterwards). */
export function histogram<L extends string = string>(config: HistogramConfiguration<L>): Histogram<L> {
  return metric("histogram", config.name, () => new Histogram<L>(config));
}
