/**
 * Constants of `src/ops/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/**
 * Snapshot export: attempts at the read-only open of a proofs store a running node writes. The
 * open reads the list of the store's files, then opens them; a flush or compaction of the writer
 * in between deletes one, and the next attempt reads the new list.
 */
export const PROOFS_SNAPSHOT_OPEN_ATTEMPTS = 3;

// ---- commands: node, import, doctor -------------------------------------------------------
/**
 * `basalt doctor`: round-trip time of one L1 request above which the check warns: derivation reads every L1 block
 * (12 s slots) with several requests; at more than 1 s each, catching up after downtime crawls.
 */
export const DOCTOR_L1_LATENCY_WARN_MS = 1_000;
/**
 * `basalt doctor`: how long to wait for the first flashblocks frame after the upgrade: Base publishes a flashblock every
 * 200 ms (docs.base.org "Flashblocks"), so 3 s is 15 intervals, more than a whole 2 s block.
 */
export const DOCTOR_FLASHBLOCKS_FIRST_FRAME_TIMEOUT_MS = 3_000;
/** `basalt doctor`: largest frame accepted while probing the flashblocks stream; a compressed flashblock is tens of KB; 16 MiB bounds a hostile server. */
export const DOCTOR_MAX_PROBE_FRAME_BYTES = 16 * 1024 * 1024;
/** `basalt doctor`: largest answer body read from a probed service; a JSON-RPC answer to these calls is a few hundred bytes. */
export const DOCTOR_MAX_PROBE_BODY_BYTES = 1024 * 1024;
/**
 * `basalt doctor`: lag up to which the node counts as in sync: 30 s is 15 Base blocks (2 s each), room for a
 * slow L1 or a short stall, and the `max_lag` the load balancer example (deploy/haproxy.cfg) uses.
 */
export const DOCTOR_SYNC_LAG_OK_S = 30;
/**
 * `basalt doctor`: on a Base network, an unsafe head this far ahead of the local clock means the clock is wrong
 * (block timestamps come from the sequencer's clock): 60 s is far beyond any propagation delay.
 */
export const DOCTOR_CLOCK_AHEAD_FAIL_S = 60;

// ---- basalt doctor: P2P probes (src/ops/doctor/p2pProbe.ts) ----
/**
 * `basalt doctor`: how much longer than the probe's own time limit the discovery libraries' request timeouts are
 * set, so that a silent port is always reported by the probe ("no PONG within N ms") rather than by a library error.
 */
export const DOCTOR_P2P_LIBRARY_GRACE_MS = 1_000;
/**
 * `basalt doctor`: interval of the discovery libraries' background work (discv5 pings of table entries, DPT table
 * refresh) in the throw-away probe nodes: an hour, far beyond a probe's life, so none runs while it is open.
 */
export const DOCTOR_P2P_BACKGROUND_INTERVAL_MS = 3_600_000;

// ---- upgrades basalt does not know (src/ops/upgrades, blockchain/upgradeGuard.ts) ----
/**
 * L1 upgrade signal: milliseconds between reads of Base's `ProtocolVersions` schedule, by the L1
 * block tag read at. As base/base (#4244, `UpgradeSignalBlockTag::poll_interval`): how often the
 * tag moves — `finalized` every ~2 epochs (15 min), `safe` every epoch (6 min 24 s), `latest`
 * every slot (12 s). Upgrades are scheduled days ahead, so even the slowest learns of one long
 * before it activates; the first read is at start.
 */
export const UPGRADE_SIGNAL_POLL_MS: Readonly<Record<"finalized" | "safe" | "latest", number>> = {
  finalized: 15 * 60_000,
  safe: 384_000,
  latest: 12_000,
};
/** L1 upgrade signal: first retry delay after a failed read (base/base `READ_BACKOFF`, 2 s), doubling up to the poll interval. */
export const UPGRADE_SIGNAL_BACKOFF_INITIAL_MS = 2_000;
/** L1 upgrade signal: time one JSON-RPC request may take (base/base `UpgradeSignalDefaults::REQUEST_TIMEOUT`, 15 s). */
export const UPGRADE_SIGNAL_REQUEST_TIMEOUT_MS = 15_000;
/**
 * Follow mode: milliseconds between reads of the trusted RPC's eth_config. One small request a
 * minute: the source announces an upgrade as soon as its operator installs a release that
 * schedules it (days ahead), and a minute is a small part of any notice period.
 */
export const FOLLOW_ETH_CONFIG_POLL_MS = 60_000;
/** Follow mode: first retry delay after a failed eth_config read, doubling up to {@link FOLLOW_ETH_CONFIG_POLL_MS}. */
export const FOLLOW_ETH_CONFIG_BACKOFF_INITIAL_MS = 2_000;
