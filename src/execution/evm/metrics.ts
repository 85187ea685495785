/**
 * Prometheus metrics of the EVM engines (created with src/util/metrics.ts): transactions the
 * fast engine handed to the reference engine, and blocks the reference engine re-executed
 * because the fast engine's result did not match the header — each such block is a
 * fast-engine bug, logged once at warn.
 */
import { counter } from "../../util/metrics.js";

/** Transactions (`unsupported`) and blocks (`mismatch`) the reference engine ran instead of the fast one. */
export const evmFallbacksTotal = counter<"reason">({
  name: "basalt_execution_evm_fallbacks_total",
  help: "Work the reference EVM ran instead of the fast one: transactions it does not support (unsupported), blocks whose fast result did not match (mismatch)",
  labelNames: ["reason"],
});
