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
import { bindIngestStats } from "../../flashblocks/ingestMetrics.js";
import { allocateIngestStats, IngestStats } from "../../flashblocks/ingestStats.js";
import { registerStorageGauges } from "../../storage/metrics.js";
import { registerLogIndexGauges } from "../../storage/logIndexMetrics.js";
import { isMetricRegistered, METRIC_PREFIX } from "../../util/metrics.js";

/** Prefix of prom-client's default process and Node.js metrics (`basalt_process_cpu_seconds_total`, …). */
const PROCESS_METRICS_PREFIX = METRIC_PREFIX;
/** A metric of the default set, used to tell whether it is registered already. */
const PROCESS_METRICS_PROBE = `${PROCESS_METRICS_PREFIX}process_cpu_seconds_total`;
/** A counter of the flashblocks ingestion collectors, registered by {@link bindIngestStats}. */
const INGEST_PROBE = "basalt_flashblocks_received_total";

/**
 * Registers the default process metrics (CPU, RSS, heap, event-loop lag; prefixed `basalt_`), the
 * chain and storage gauges and the flashblocks ingestion counters (at zero until a flashblocks service binds
 * its worker's stats). Idempotent; call once per process before serving /metrics.
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
  // A running flashblocks service has bound its worker's stats already: never replace them.
  if (!isMetricRegistered(INGEST_PROBE)) bindIngestStats(new IngestStats(allocateIngestStats()));
}
