/**
 * Devnet-only methods (served only while basalt sequences its built-in devnet):
 * `dev_sendDeposit` injects an L1→L2 user deposit as if the L1 OptimismPortal had emitted
 * it, so tests and applications can exercise deposits without an L1; `evm_mine` seals a block
 * now (anvil/hardhat's method), so tools drive a `--dev.block-time 0` devnet block by block.
 */
import type { OpDevSequencer } from "../../sequencer/opDevSequencer.js";
import { InvalidParamsError } from "../errors.js";
import { toData } from "../../chain/json/quantity.js";
import { parseAddress, parseData, parseQuantity } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { DEV_DEPOSIT_DEFAULT_GAS } from "../constants.js";

/** What anvil answers to `evm_mine`: "0x0" (hardhat answers the same). */
export const EVM_MINE_RESULT = "0x0";

/**
 * Refuses `evm_mine` parameters other than none or `null`: anvil's optional timestamp (or
 * `{timestamp, blocks}`) is not supported, blocks take the producer's time.
 * @throws InvalidParamsError (-32602).
 */
export function checkEvmMineParams(params: unknown[]): void {
  maxParams(params, 1);
  if (params.length === 1 && params[0] !== null) {
    const what = "evm_mine takes no timestamp or options here (blocks take the current time); call it without parameters";
    throw new InvalidParamsError(`invalid argument 0: ${what}`);
  }
}

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
        gasLimit: o.gas == null ? DEV_DEPOSIT_DEFAULT_GAS : parseQuantity(o.gas, 0),
        data: o.data == null ? (o.input == null ? new Uint8Array(0) : parseData(o.input, 0)) : parseData(o.data, 0),
      });
      return toData(tx.hash());
    },

    /**
     * evm_mine(): seals one block now through the devnet sequencer (`sealOne`: the L1-attributes
     * deposit, waiting deposits, then the pooled transactions that fit) and answers "0x0" like
     * anvil. anvil's optional parameter (a timestamp, or `{timestamp, blocks}`) is not supported:
     * any non-null parameter is rejected with -32602 — blocks take the current time.
     */
    evm_mine: async (params) => {
      checkEvmMineParams(params);
      await sequencer.sealOne();
      return EVM_MINE_RESULT;
    },
  };
}
