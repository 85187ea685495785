/**
 * Constants of `src/rollup/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

// ---- rollup RPC ---------------------------------------------------------------------------
/**
 * `GET /health`: lag allowed when the query names none: 30 s is 15 Base blocks — a replica that far behind
 * answers `latest` with visibly stale data, while a brief import hiccup stays in service.
 */
export const DEFAULT_HEALTH_MAX_LAG_S = 30;
