/**
 * Constants of `src/sequencer/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/** Devnet: seconds between simulated L1 blocks (Ethereum's 12 s slot). */
export const DEVNET_L1_BLOCK_TIME_S = 12;
/** Devnet: base fee of the simulated L1 (1 gwei, a typical quiet-mainnet value), the L1 data fee's price input. */
export const DEVNET_L1_BASE_FEE_WEI = 1_000_000_000n;
/**
 * Devnet: operator fee scalar (Jovian charges gas × scalar × 100 + constant). 1 → 100 wei per
 * gas: small, but nonzero so the OperatorFeeVault visibly receives fees.
 */
export const DEVNET_OPERATOR_FEE_SCALAR = 1n;
/** Devnet: operator fee constant per transaction (wei); nonzero for the same reason. */
export const DEVNET_OPERATOR_FEE_CONSTANT = 1_000n;
/** Devnet: DA footprint gas scalar; 0 selects the Jovian default 400 (specs jovian/l1-attributes.md). */
export const DEVNET_DA_FOOTPRINT_GAS_SCALAR = 0n;
/** Devnet: batcher address in the L1-attributes deposit (no batcher runs; any fixed address). */
export const DEVNET_BATCHER_ADDRESS = "0x000000000000000000000000000000000000ba7c";

// ---- devnet sequencer ---------------------------------------------------------------------
/**
 * Devnet sequencer: longest wait between retries after failed block production (e.g. a full disk or read-only
 * datadir: the commit fails). Retries back off from one block time, doubling up to this: a
 * few seconds, so production resumes soon after space is freed without spinning meanwhile.
 */
export const DEV_PRODUCTION_RETRY_MAX_MS = 5_000;

// ---- sequencer on a real L1 (local rollup) ------------------------------------------------
/**
 * Sequencer on a real L1: least milliseconds between two reads of the L1 head. 500: a local L1
 * mines every 1–2 s (Ethereum 12 s), so a new L1 block is seen within half a block, for at most
 * two requests a second; the origin's block and receipts are read only when the origin moves.
 */
export const SEQUENCER_L1_POLL_INTERVAL_MS = 500;
/**
 * Sequencer on a real L1: milliseconds before trying again to build a block that could not be
 * planned (the L1 reorganized under the origin, or the L1 RPC did not answer): one poll interval,
 * since nothing changes before the L1 head is read again.
 */
export const SEQUENCER_L1_WAIT_RETRY_MS = SEQUENCER_L1_POLL_INTERVAL_MS;

// ---- L1 devnet (--network devnet-l1: block producer, beacon API, blob archive) --------------
/**
 * devnet-l1: the `safe` block trails the head by this many blocks. A local L1 has no attestations
 * (on Ethereum "safe" is the justified checkpoint, about an epoch back); 2 keeps an unsafe tip that
 * derivation's confirmation depth sees, and lets a test reorganize the two newest blocks
 * (`debug_setHead`) without going below "safe".
 */
export const L1DEV_SAFE_DISTANCE = 2n;
/**
 * devnet-l1: the `finalized` block trails the head by this many blocks. Ethereum finalizes after two
 * epochs (64 slots, ~13 min); a local rollup should see its L2 blocks finalize within a minute: 8
 * slots are 16 s at 2 s slots (96 s at the default 12 s), and leave 6 blocks between safe and
 * finalized for reorg tests.
 */
export const L1DEV_FINALIZED_DISTANCE = 8n;
/**
 * devnet-l1: slots whose blobs the beacon API keeps (in memory, and under `<datadir>/l1-blobs` for
 * restarts). Ethereum keeps blobs for 4,096 epochs (MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS, ~18
 * days); a local L1 keeps 4,096 slots, 32× less, since nobody syncs it weeks later. It is more than
 * a sequencing window (Base's 3,600 L1 blocks), so a verifier restarting from a safe head whose L1
 * origin is still inside its sequencing window finds the blobs after it: 13.6 h at 12 s slots,
 * 2.3 h at 2 s.
 */
export const L1DEV_BLOB_RETENTION_SLOTS = 4_096;
/**
 * devnet-l1: most blobs the beacon API holds at once (128 KiB each, in memory and on disk). 2,048
 * blobs are 256 MiB; past it the oldest slots go first. A local batcher posts far below one blob
 * per slot, so {@link L1DEV_BLOB_RETENTION_SLOTS} is the bound in use; this one caps memory when a
 * test fills every slot with blobs.
 */
export const L1DEV_BLOB_RETENTION_MAX_BLOBS = 2_048;
