/**
 * The fast EVM engine's entry point: the rules, precompiles and interpreter for one fork,
 * built once and reused for every transaction and call of that fork on this thread.
 *
 * The engine is chosen with `--evm fast|reference` (env `BASALT_EVM`); the reference engine
 * (@ethereumjs/vm) runs whatever the fast one does not support — forks before London,
 * unimplemented EIPs, a precompile without a synchronous implementation — and re-executes a
 * block whose state root the fast engine got wrong (see execution/op/opPayload.ts).
 */
import type { BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { OpFork } from "../../chain/op/forks.js";
import type { EvmEngineName } from "../../config/options.js";
import { FastEvmUnsupported, FastEvmUnsupportedCode } from "./errors.js";
import { Interpreter, type BlockEnv } from "./interpreter.js";
import { precompilesFor, type PrecompileSet } from "./precompiles/index.js";
import { rulesOf, unsupportedReason, type EvmRules } from "./rules.js";
import type { EvmState } from "./state.js";
import type { TxContext } from "./transaction.js";

export type { EvmEngineName } from "../../config/options.js";

let defaultEngine: EvmEngineName | undefined;

/** The engine used where none is passed: `setDefaultEvmEngine`, else `BASALT_EVM`, else fast. */
export function defaultEvmEngine(): EvmEngineName {
  if (defaultEngine !== undefined) return defaultEngine;
  const env = process.env.BASALT_EVM;
  return env === "reference" ? "reference" : "fast";
}

/** Sets this thread's default engine (`--evm`; worker threads get it in their start data). */
export function setDefaultEvmEngine(engine: EvmEngineName): void {
  defaultEngine = engine;
}

/** One fork's fast engine. */
export class FastEvm {
  readonly interpreter = new Interpreter();
  private constructor(
    readonly rules: EvmRules,
    readonly precompiles: PrecompileSet,
  ) {}

  private static readonly instances = new Map<string, FastEvm>();

  /**
   * The engine for `common`'s hardfork (and OP fork): cached per thread.
   * @throws FastEvmUnsupported when the fork is not supported.
   */
  static of(common: Common, opFork?: OpFork): FastEvm {
    const key = `${common.chainId()}:${common.hardfork()}:${common.eips().join(",")}:${opFork ?? ""}`;
    const hit = FastEvm.instances.get(key);
    if (hit !== undefined) return hit;
    const why = unsupportedReason(common);
    if (why !== undefined) throw new FastEvmUnsupported(FastEvmUnsupportedCode.FORK, why);
    const evm = new FastEvm(rulesOf(common), precompilesFor(common, opFork));
    FastEvm.instances.set(key, evm);
    return evm;
  }

  /** What {@link runTransaction} needs to run on `state` in `block`. */
  context(state: EvmState, block: BlockEnv): TxContext {
    return { rules: this.rules, precompiles: this.precompiles, interpreter: this.interpreter, state, block };
  }
}

/** PREVRANDAO after the merge (EIP-4399), DIFFICULTY before. */
function randaoOf(header: BlockHeader): Uint8Array {
  if (header.common.isActivatedEIP(4399)) return header.mixHash;
  const out = new Uint8Array(32);
  let d = header.difficulty;
  for (let i = 31; i >= 0 && d > 0n; i--) {
    out[i] = Number(d & 0xffn);
    d >>= 8n;
  }
  return out;
}

/**
 * The block environment of `header` for the fast engine. `blockHash(n)` answers BLOCKHASH;
 * `zeroFees` gives geth's environment for calls that pay nothing (base fee and blob base fee 0).
 */
export function blockEnvOf(header: BlockHeader, blockHash: (n: bigint) => Uint8Array, zeroFees = false): BlockEnv {
  return {
    number: header.number,
    timestamp: header.timestamp,
    coinbase: header.coinbase.bytes,
    gasLimit: header.gasLimit,
    baseFee: zeroFees ? 0n : (header.baseFeePerGas ?? 0n),
    prevRandao: randaoOf(header),
    blobBaseFee: zeroFees || header.excessBlobGas === undefined ? 0n : header.getBlobGasPrice(),
    blockHash,
  };
}
