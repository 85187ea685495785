/**
 * Prometheus metrics of the devnet sequencer (block production), created with
 * src/util/metrics.ts.
 */
import { counter } from "../util/metrics.js";

/**
 * Failed block production or seal attempts (e.g. the store cannot be written on a full disk),
 * by `stage` ("produce" | "seal"). Each is retried with backoff; the log line is written once
 * per distinct reason, so this counter is what an alert watches.
 */
export const sequencerProductionFailuresTotal = counter<"stage">({
  name: "basalt_sequencer_production_failures_total",
  help: "Failed devnet block production (stage=produce) or seal (stage=seal) attempts, each retried",
  labelNames: ["stage"],
});
