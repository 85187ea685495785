/**
 * Constants of `src/txpool/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/** Transaction fee cap for eth_sendRawTransaction: geth's and reth's 1 ether. */
export const RPC_TX_FEE_CAP_WEI = 10n ** 18n;

/** Mempool: most transactions held in total (geth's GlobalSlots 5120 + GlobalQueue 1024). */
export const TXPOOL_MAX_TRANSACTIONS = 6144;
/** Mempool: most transactions per sender (geth's AccountSlots + AccountQueue = 16 + 64). */
export const TXPOOL_MAX_PER_SENDER = 80;

// ---- transaction pool ---------------------------------------------------------------------
/** Mempool: a replacement must pay 10 % more (geth `txpool.PriceBump`). */
export const TXPOOL_PRICE_BUMP_PERCENT = 10n;
