/**
 * Prometheus metrics of basalt's local L1 (`--network devnet-l1`): the slot-clock block producer
 * and the blobs its beacon API serves. Under the sequencer subsystem (`basalt_sequencer_l1_*`):
 * the L1 producer is the devnet-l1 counterpart of the devnet sequencer. Created with
 * src/util/metrics.ts.
 */
import { counter, gauge } from "../util/metrics.js";

/** Blocks the devnet-l1 producer built and committed (timer slots and `evm_mine`). */
export const l1BlocksProducedTotal = counter({
  name: "basalt_sequencer_l1_blocks_produced_total",
  help: "devnet-l1 blocks produced (one per slot with a block)",
});

/** Slots that passed without a block between two blocks produced by this process (a busy or stalled producer). */
export const l1MissedSlotsTotal = counter({
  name: "basalt_sequencer_l1_missed_slots_total",
  help: "devnet-l1 slots without a block between two produced blocks",
});

/** Failed block productions (the next slot tries again). */
export const l1ProductionFailuresTotal = counter({
  name: "basalt_sequencer_l1_production_failures_total",
  help: "devnet-l1 block productions that failed (retried at the next slot)",
});

/** Blobs of committed blocks handed to the beacon API. */
export const l1BlobsServedTotal = counter({
  name: "basalt_sequencer_l1_blobs_served_total",
  help: "Blobs of devnet-l1 blocks handed to the beacon API",
});

/** Blobs the beacon API stopped serving, by `reason`: "reorg" (the block was unwound) or "retention" (past the bound). */
export const l1BlobsDroppedTotal = counter<"reason">({
  name: "basalt_sequencer_l1_blobs_dropped_total",
  help: "Blobs removed from the devnet-l1 beacon API: reason=reorg (block unwound) or retention (past the slot/blob bound)",
  labelNames: ["reason"],
});

/** The slot of the devnet-l1 head block. */
export const l1HeadSlot = gauge({
  name: "basalt_sequencer_l1_head_slot_number",
  help: "Slot of the devnet-l1 head block ((timestamp - genesis) / seconds per slot)",
});
