/**
 * Every metric family basalt exports, registered up front: a scrape (and the Grafana dashboard)
 * then lists each family from the first second, whether or not its subsystem has run yet
 * (e.g. flashblocks ingestion without `--flashblocks-url`).
 */
import { collectDefaultMetrics } from "prom-client";
import "../../rpc/metrics.js";
import "../../rpc/responseCache.js";
import "../../rpc/publicMetrics.js";
import "../../execution/pool/metrics.js";
import "../../execution/evm/metrics.js";
import "../../flashblocks/metrics.js";
import "../../flashblocks/ingestMetrics.js";
import "../../sync/metrics.js";
import "../../sequencer/metrics.js";
import "../../batcher/metrics.js";
import "../../sequencer/l1DevMetrics.js";
import "../../p2p/importMetrics.js";
import "../upgrades/watcher.js";
import { registerChainGauges } from "../../blockchain/metrics.js";
import { registerUpgradeGuardMetrics } from "../../blockchain/upgradeGuard.js";
import { registerDerivationMetrics } from "../../derivation/metrics.js";
import { registerP2PMetrics } from "../../p2p/metrics.js";
import { registerDevP2PMetrics } from "../../p2p/el/metrics.js";
import { registerIngestCounters } from "../../flashblocks/ingestStats.js";
import { registerStorageGauges } from "../../storage/metrics.js";
import { registerLogIndexGauges } from "../../storage/logIndexMetrics.js";
import { isMetricRegistered, METRIC_PREFIX } from "../../util/metrics.js";

/** Prefix of prom-client's default process and Node.js metrics (`basalt_process_cpu_seconds_total`, …). */
const PROCESS_METRICS_PREFIX = METRIC_PREFIX;
/** A metric of the default set, used to tell whether it is registered already. */
const PROCESS_METRICS_PROBE = `${PROCESS_METRICS_PREFIX}process_cpu_seconds_total`;

/**
 * Registers the default process metrics (CPU, RSS, heap, event-loop lag; prefixed `basalt_`), the
 * chain and storage gauges and the flashblocks ingestion counters (at zero in this thread: the flashblocks
 * worker's own are summed in at each scrape). Idempotent; call once per process before serving /metrics.
 */
export function registerAllMetrics(): void {
  if (!isMetricRegistered(PROCESS_METRICS_PROBE)) collectDefaultMetrics({ prefix: PROCESS_METRICS_PREFIX });
  registerChainGauges();
  registerUpgradeGuardMetrics();
  registerStorageGauges();
  registerLogIndexGauges();
  registerDerivationMetrics();
  registerP2PMetrics();
  registerDevP2PMetrics();
  registerIngestCounters();
}
