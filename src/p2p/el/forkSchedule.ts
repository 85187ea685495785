/**
 * Which activations of basalt's chain configuration count as EIP-2124 forks: the Ethereum forks
 * of the chain's Common (block- and time-based; on OP chains Shanghai = Canyon, Cancun = Ecotone,
 * Prague = Isthmus, Osaka = Azul) and, on OP chains, the OP upgrades that change execution as
 * op-reth's hardfork list has them (Regolith through Jovian and Base's Azul). Delta is a
 * consensus-layer upgrade only (span batches): op-reth has no such hardfork, so it is no fork here.
 */
import type { Common } from "@ethereumjs/common";
import type { OpChainConfig, OpForkName } from "../../chain/op/forks.js";
import { ForkFilter } from "./forkId.js";

/** OP upgrades that are not execution forks (no op-reth hardfork of that name). */
const NOT_EL_FORKS: ReadonlySet<OpForkName> = new Set<OpForkName>(["delta"]);

/** What the fork schedule needs of the chain: its Common, OP configuration and genesis. */
export interface ForkScheduleSource {
  common: Common;
  op: OpChainConfig | undefined;
  genesisHash: Uint8Array;
  genesisTime: bigint;
}

/** The block- and time-based activations of a chain (before EIP-2124's filtering of genesis forks). */
export function chainForkActivations(src: Pick<ForkScheduleSource, "common" | "op">): { blocks: bigint[]; times: bigint[] } {
  const blocks: bigint[] = [];
  const times: bigint[] = [];
  for (const hf of src.common.hardforks()) {
    if (hf.timestamp !== undefined && hf.timestamp !== null) times.push(BigInt(hf.timestamp));
    else if (hf.block !== null && hf.block !== undefined) blocks.push(BigInt(hf.block));
  }
  if (src.op !== undefined) {
    for (const [name, t] of Object.entries(src.op.forkTimes) as [OpForkName, bigint | undefined][]) {
      if (t !== undefined && !NOT_EL_FORKS.has(name)) times.push(t);
    }
  }
  return { blocks, times };
}

/** The EIP-2124 filter of a chain. */
export function forkFilterOf(src: ForkScheduleSource): ForkFilter {
  const { blocks, times } = chainForkActivations(src);
  return ForkFilter.create(src.genesisHash, src.genesisTime, blocks, times);
}
