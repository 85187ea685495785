/**
 * Constants of `src/devnet/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

// ---- devnet rollup ----------------------------------------------------------------------------
// The local rollup's L1 side (`basalt devnet rollup`, src/devnet/): who deploys and owns its L1
// contracts, who posts batches and where, and how long its L1 transactions are waited for.
/**
 * Dev account (index into `devAccounts()`) that deploys the L1 contracts: 8, outside 0–7, the
 * accounts users and tests send with, so a deploy never takes a nonce a user's transaction expects.
 */
export const DEVNET_ROLLUP_DEPLOYER_ACCOUNT = 8;
/** Dev account that owns the SystemConfig: the deployer's (8), for the same reason; it sends every SystemConfig setter. */
export const DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT = 8;
/**
 * Dev account of the batcher: 9, its own account, so the batcher's back-to-back batch transactions
 * never race a deploy, a SystemConfig change or a user for a nonce.
 */
export const DEVNET_ROLLUP_BATCHER_ACCOUNT = 9;
/**
 * Batch inbox of the local rollup: OP's convention, `0xff` then zeros then the L2 chain id in
 * decimal digits (Base mainnet's is 0xff…008453), here the devnet's 845337. An address nobody
 * holds a key for, so only batches land there.
 */
export const DEVNET_ROLLUP_BATCH_INBOX = "0xff00000000000000000000000000000000845337";
/**
 * Interval between `eth_getTransactionReceipt` polls while waiting for an L1 transaction: 100 ms.
 * Local L1s mine within a block time of 1–12 s (anvil at once), and a poll on loopback costs
 * nothing, so a deploy waits at most a tenth of a second past its block.
 */
export const DEVNET_L1_RECEIPT_POLL_MS = 100;
/**
 * How long an L1 transaction is waited for before giving up: 60 s, five 12-second L1 slots. A local
 * L1 includes a transaction with enough fee in the next block; beyond that it is not mining.
 */
export const DEVNET_L1_RECEIPT_TIMEOUT_MS = 60_000;
/**
 * Tip of the devnet's L1 transactions: 1 gwei (geth's default suggested tip). The max fee is twice
 * the latest base fee plus the tip, so a transaction stays includable through six full blocks of
 * base-fee rise (1.125^6 ≈ 2).
 */
export const DEVNET_L1_PRIORITY_FEE_WEI = 1_000_000_000n;
/**
 * Gas added to an L1 transaction's estimate, in percent: 20. The estimate is taken on the latest
 * state; when other transactions land first in the same block (two SystemConfig setters writing a
 * slot that was zero), the transaction may need more (a cold or zero-to-nonzero SSTORE, 20,000 gas).
 */
export const DEVNET_L1_GAS_MARGIN_PERCENT = 20n;

// ---- basalt devnet rollup (orchestration) ----------------------------------------------------
/** Longest wait for a process of the local rollup to answer JSON-RPC (a first start initializes its datadir). */
export const DEVNET_ROLLUP_READY_TIMEOUT_MS = 60_000;
/** A process of the local rollup still running this long after SIGTERM is killed. */
export const DEVNET_ROLLUP_STOP_TIMEOUT_MS = 15_000;
