/**
 * A VM for OP blocks: @ethereumjs/vm with the OP precompile rules of the block's fork
 * (Fjord P256VERIFY, Granite/Isthmus/Jovian input limits).
 */
import type { Common } from "@ethereumjs/common";
import { createVM, type VM } from "@ethereumjs/vm";
import type { OpFork } from "../../chain/op/forks.js";
import { opPrecompiles } from "./precompiles.js";
import { installEvmCaches } from "../evmSpeedups.js";

/** Creates a VM over `stateManager` for a block at OP fork `fork` (common already set to the block). */
export async function createOpVM(common: Common, stateManager: unknown, blockchain: unknown, fork: OpFork): Promise<VM> {
  await installEvmCaches();
  return createVM({
    common,
    stateManager: stateManager as never,
    blockchain: blockchain as never,
    evmOpts: { customPrecompiles: opPrecompiles(fork, common) },
  });
}
