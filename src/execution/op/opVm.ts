/**
 * A VM for OP blocks: @ethereumjs/vm with the OP precompile rules of the block's fork
 * (Fjord P256VERIFY, Granite/Isthmus/Jovian input limits) and, from Base's Beryl, Base's native
 * precompiles (basePrecompiles.ts).
 */
import type { Common } from "@ethereumjs/common";
import type { EVM } from "@ethereumjs/evm";
import { createVM, type VM } from "@ethereumjs/vm";
import type { OpFork } from "../../chain/op/forks.js";
import { opPrecompiles } from "./precompiles.js";
import { basePrecompilesFor } from "../base/chainPrecompiles.js";
import { baseWarmPrecompiles, installBasePrecompiles } from "./basePrecompiles.js";
import { installEvmCaches } from "../evmSpeedups.js";

/** Creates a VM over `stateManager` for a block at OP fork `fork` (common already set to the block). */
export async function createOpVM(common: Common, stateManager: unknown, blockchain: unknown, fork: OpFork): Promise<VM> {
  await installEvmCaches();
  const base = basePrecompilesFor(fork, common.chainId());
  const vm = await createVM({
    common,
    stateManager: stateManager as never,
    blockchain: blockchain as never,
    evmOpts: { customPrecompiles: [...opPrecompiles(fork, common), ...baseWarmPrecompiles(base)] },
  });
  if (base !== undefined) installBasePrecompiles(vm.evm as EVM, base);
  return vm;
}

/**
 * The VM of one OP block, created when first needed: blocks the fast engine runs whole never
 * build one. Creating a VM (opcode tables, precompiles, the EVM object) cost 0.7–7 ms per block
 * in the flashblocks worker, where every block's first frame waited for it. The fields the
 * executor reads directly are the ones the VM would be created with.
 */
export class LazyOpVm {
  private vm: Promise<VM> | undefined;

  constructor(
    readonly common: Common,
    readonly stateManager: unknown,
    readonly blockchain: unknown,
    private readonly fork: OpFork,
  ) {}

  /** The VM, created on the first call. */
  get(): Promise<VM> {
    return (this.vm ??= createOpVM(this.common, this.stateManager, this.blockchain, this.fork));
  }
}
