/**
 * Devnet-only methods (served only while basalt sequences its built-in devnet):
 * `dev_sendDeposit` injects an L1→L2 user deposit as if the L1 OptimismPortal had emitted
 * it, so tests and applications can exercise deposits without an L1.
 */
import type { OpDevSequencer } from "../../sequencer/opDevSequencer.js";
import { InvalidParamsError } from "../errors.js";
import { parseAddress, parseData, parseQuantity, toData } from "../format/quantity.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";

/** Gas of a deposit when the request names none: enough for a transfer or a small call. */
const DEFAULT_DEPOSIT_GAS = 100_000n;

/** Handlers of the dev family. */
export function devMethods(sequencer: OpDevSequencer): MethodTable {
  return {
    /**
     * dev_sendDeposit({from, to?, mint?, value?, gas?, data?}): queues a user deposit for the
     * next block (a new simulated L1 origin) and returns its L2 transaction hash. `mint` is
     * ETH created on L2 for `from` (kept even if execution fails); omit `to` to create a
     * contract.
     */
    dev_sendDeposit: (params) => {
      maxParams(params, 1);
      const a = required(params, 0);
      if (typeof a !== "object" || a === null || Array.isArray(a)) throw new InvalidParamsError("invalid argument 0: deposit object expected");
      const o = a as Record<string, unknown>;
      if (o.from === undefined) throw new InvalidParamsError("invalid argument 0: `from` is required");
      const tx = sequencer.injectDeposit({
        from: parseAddress(o.from, 0),
        to: o.to == null ? undefined : parseAddress(o.to, 0),
        mint: o.mint == null ? 0n : parseQuantity(o.mint, 0),
        value: o.value == null ? 0n : parseQuantity(o.value, 0),
        gasLimit: o.gas == null ? DEFAULT_DEPOSIT_GAS : parseQuantity(o.gas, 0),
        data: o.data == null ? (o.input == null ? new Uint8Array(0) : parseData(o.input, 0)) : parseData(o.data, 0),
      });
      return toData(tx.hash());
    },
  };
}
