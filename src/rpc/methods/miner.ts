/**
 * The block builder's operator limits (op-geth's and base/base's `miner` API; base/base
 * v0.6.0-rc.19 `crates/execution/rpc/src/miner.rs`):
 * - miner_setGasLimit(gasLimit): pool transactions get at most `min(gasLimit, header gasLimit)`
 *   gas per block; 0 restores the header's gas limit. Answers `true`.
 * - miner_setMaxDASize(maxTxSize, maxBlockSize): pool transactions whose estimated DA size
 *   (Fjord FastLZ estimate) exceeds `maxTxSize`, or that would bring the block's total over
 *   `maxBlockSize`, are held back; 0 = no limit. Answers `true`.
 * Both take effect at the next pool candidate any builder of this node considers (the devnet
 * sequencer, the Engine API's payload building): see src/execution/op/builderLimits.ts.
 * The `miner` namespace is off on `--public` endpoints (rpc/publicPolicy.ts).
 */
import { gauge } from "../../util/metrics.js";
import type { RpcBackend } from "../backend.js";
import { InvalidParamsError } from "../errors.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";

/** The gas limit set with miner_setGasLimit (Base's `base_rpc.miner.gas_limit` gauge); 0 = the header's. */
const minerGasLimit = gauge({
  name: "basalt_rpc_miner_gas_limit_gas",
  help: "gas limit of pool transactions per block set with miner_setGasLimit; 0 = the header's",
});
/** The DA limits set with miner_setMaxDASize, by scope `tx` / `block` (Base's `max_da_tx_size` / `max_da_block_size`); 0 = none. */
const minerMaxDaSize = gauge({
  name: "basalt_rpc_miner_max_da_size_bytes",
  help: "max DA size set with miner_setMaxDASize, by scope (tx, block); 0 = no limit",
  labelNames: ["scope"],
});

const U64_MAX = (1n << 64n) - 1n;

/**
 * A `U64` parameter as alloy's `U64` deserializes it: a JSON integer, or a string in hex (`0x`),
 * octal (`0o`), binary (`0b`) or decimal.
 * @throws InvalidParamsError naming the argument and what was expected.
 */
function parseU64(value: unknown, index: number): bigint {
  let n: bigint | undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) n = BigInt(value);
  else if (typeof value === "string" && /^(0x[0-9a-f]+|0o[0-7]+|0b[01]+|[0-9]+)$/i.test(value)) n = BigInt(value.toLowerCase());
  if (n === undefined || n > U64_MAX) throw new InvalidParamsError(`invalid argument ${index}: expected a 64-bit unsigned integer (a JSON number or a 0x-hex/decimal string), got ${JSON.stringify(value)?.slice(0, 40)}`);
  return n;
}

/** Handlers of miner_setGasLimit and miner_setMaxDASize. */
export function minerMethods(b: Pick<RpcBackend, "pool">): MethodTable {
  const limits = b.pool.builderLimits;
  return {
    /** miner_setGasLimit(gasLimit): the gas pool transactions may use per block (0: the header's); `true`. */
    miner_setGasLimit: (params) => {
      maxParams(params, 1);
      const gas = parseU64(required(params, 0), 0);
      limits.setGasLimit(gas);
      minerGasLimit.set(Number(gas));
      return true;
    },
    /** miner_setMaxDASize(maxTxSize, maxBlockSize): DA limits of pool transactions, bytes (0: none); `true`. */
    miner_setMaxDASize: (params) => {
      maxParams(params, 2);
      const tx = parseU64(required(params, 0), 0);
      const block = parseU64(required(params, 1), 1);
      limits.setMaxDaSize(tx, block);
      minerMaxDaSize.set({ scope: "tx" }, Number(tx));
      minerMaxDaSize.set({ scope: "block" }, Number(block));
      return true;
    },
  };
}
