/**
 * Counters of flashblocks ingestion, kept by the flashblocks worker in its own thread's prom-client
 * registry: the worker host scrapes them into the main thread's `/metrics` (`util/workerMetrics.ts`).
 * The main thread registers the same families at zero (`registerIngestCounters`) so a scrape lists
 * them before the worker runs (or without `--flashblocks-url`); the scrape sums both, and only the
 * worker ever moves them. A restarted worker's counters start again from zero (a counter reset).
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge } from "../util/metrics.js";
import type { ClearReason, DropReason } from "./sequence.js";
import type { BuildFailure, DiffMismatch } from "./pendingBuilder.js";
import type { DisconnectReason } from "./streamClient.js";

/** Why a frame was rejected before or during execution (the `reason` label of `basalt_flashblocks_rejected_total`). */
export type RejectReason = "malformed" | "oversize" | BuildFailure | "snapshot-too-large";

const DROP_REASONS: readonly DropReason[] = ["block-zero", "index-too-high", "base-block-mismatch", "stale", "too-far-ahead", "waiting-for-first"];
const CLEAR_REASONS: readonly ClearReason[] = [
  "non-sequential-gap",
  "non-sequential-predecessor",
  "invalid-new-block-index",
  "parent-hash-mismatch",
  "conflicting-duplicate",
];
const REJECT_REASONS: readonly RejectReason[] = ["malformed", "oversize", "execution", "decode", "parent-unknown", "not-next", "snapshot-too-large"];
const MISMATCH_FIELDS: readonly DiffMismatch["field"][] = ["block_hash", "receipts_root", "gas_used", "logs_bloom"];
const DISCONNECT_REASONS: readonly DisconnectReason[] = ["connect-failed", "ping-timeout", "closed", "error"];
/** Outcomes of canonical blocks reconciled with pending state. */
const CANONICAL_OUTCOMES = ["catch-up", "rebase", "reorg", "ignore", "continue"] as const;

/** Counters without labels, by their name in {@link IngestStats}. */
type CounterName = "received" | "applied" | "duplicate" | "held" | "replaced" | "transactionsExecuted" | "evmFallbacks" | "idleCollections";
/** Gauges, by their name in {@link IngestStats}. */
type GaugeName = "connected" | "pendingBlock" | "pendingIndex";
/** Counters labelled by `reason`, by their prefix in {@link IngestStats} (`dropped:stale`). */
type LabelledName = "dropped" | "cleared" | "rejected" | "mismatch" | "disconnect" | "canonical";

interface IngestCounters {
  counters: Record<CounterName, Counter>;
  gauges: Record<GaugeName, Gauge>;
  labelled: Record<LabelledName, Counter<"reason">>;
}

/**
 * Registers the ingestion counters in this thread's registry (idempotent), every `reason` label at
 * zero: the worker moves them; the main thread calls it so the families are listed from the start.
 * Each metric is created once per registry (`util/metrics.ts` returns a registered one).
 */
export function registerIngestCounters(): IngestCounters {
  const labelled = (name: string, help: string, values: readonly string[]): Counter<"reason"> => {
    const c = counter({ name, help, labelNames: ["reason"] });
    for (const v of values) c.inc({ reason: v }, 0);
    return c;
  };
  return {
    counters: {
      received: counter({ name: "basalt_flashblocks_received_total", help: "Flashblock frames received from the stream" }),
      applied: counter({ name: "basalt_flashblocks_applied_total", help: "Flashblocks executed into pending state" }),
      duplicate: counter({ name: "basalt_flashblocks_duplicates_total", help: "Duplicate flashblocks ignored" }),
      held: counter({ name: "basalt_flashblocks_held_total", help: "Flashblocks held until their parent block is canonical" }),
      replaced: counter({ name: "basalt_flashblocks_replaced_total", help: "Pending builds replaced by a new payload id" }),
      transactionsExecuted: counter({ name: "basalt_flashblocks_transactions_executed_total", help: "Transactions executed from flashblocks" }),
      evmFallbacks: counter({
        name: "basalt_flashblocks_evm_fallbacks_total",
        help: "Pending blocks re-executed on the reference EVM because the fast engine's result differed from the published diff",
      }),
      idleCollections: counter({ name: "basalt_flashblocks_idle_collections_total", help: "Young-generation collections the flashblocks worker ran between frames" }),
    },
    gauges: {
      connected: gauge({ name: "basalt_flashblocks_stream_connections", help: "1 while the flashblocks stream is connected" }),
      pendingBlock: gauge({ name: "basalt_flashblocks_pending_number", help: "Block number of the latest applied flashblock" }),
      pendingIndex: gauge({ name: "basalt_flashblocks_pending_index", help: "Index of the latest applied flashblock" }),
    },
    labelled: {
      dropped: labelled("basalt_flashblocks_dropped_total", "Flashblocks dropped by the sequencing rules, by reason", DROP_REASONS),
      cleared: labelled("basalt_flashblocks_cleared_total", "Pending state cleared by a broken sequence, by reason", CLEAR_REASONS),
      rejected: labelled("basalt_flashblocks_rejected_total", "Flashblocks rejected (malformed, oversize, failed execution), by reason", REJECT_REASONS),
      mismatch: labelled("basalt_flashblocks_diff_mismatch_total", "Published diff fields that differ from re-execution, by field", MISMATCH_FIELDS),
      disconnect: labelled("basalt_flashblocks_disconnects_total", "Flashblocks stream disconnects, by reason", DISCONNECT_REASONS),
      canonical: labelled("basalt_flashblocks_canonical_total", "Canonical blocks reconciled with pending state, by outcome", CANONICAL_OUTCOMES),
    },
  };
}

/**
 * The ingestion's counting (on the flashblocks worker): each count moves this thread's metric and
 * a tally of this instance, which {@link get} reads (tests, logs).
 */
export class IngestStats {
  private readonly m = registerIngestCounters();
  private readonly tally = new Map<string, number>();
  /** The metric child of each name counted so far (labels resolved once, not at every frame). */
  private readonly children = new Map<string, { inc(by: number): void }>();

  inc(name: CounterName | `${LabelledName}:${string}`, by = 1): void {
    this.tally.set(name, (this.tally.get(name) ?? 0) + by);
    let child = this.children.get(name);
    if (child === undefined) {
      const colon = name.indexOf(":");
      child = colon < 0 ? this.m.counters[name as CounterName] : this.m.labelled[name.slice(0, colon) as LabelledName].labels(name.slice(colon + 1));
      this.children.set(name, child);
    }
    child.inc(by);
  }

  set(name: GaugeName, value: number): void {
    this.tally.set(name, value);
    this.m.gauges[name].set(value);
  }

  /** This instance's count (or last value) of `name`, 0 before any. */
  get(name: string): number {
    return this.tally.get(name) ?? 0;
  }
}
