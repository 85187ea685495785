/**
 * Chain specifications: the fork schedule and parameters of a chain, as an @ethereumjs
 * Common built from a geth-style genesis `config`.
 */
import { createCommonFromGethGenesis, type Common } from "@ethereumjs/common";
import { customCrypto } from "./crypto.js";
import type { GenesisJson } from "./genesis.js";
import { opConfigFromGenesisConfig, type OpChainConfig } from "./op/forks.js";

/** EIP-4844 gas per blob (2^17). */
const GAS_PER_BLOB = 131_072;

interface BlobScheduleEntry {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/**
 * Builds the Common of a genesis. `name` only labels the chain (e.g. "devnet").
 * The Common is mutable (its hardfork follows the block being processed): create one per
 * concurrent use with {@link Common.copy}.
 */
export function commonFromGenesis(g: GenesisJson, name = "custom"): Common {
  const op = opConfigFromGenesisConfig(g.config);
  const gg = op === undefined ? g : { ...g, config: ethereumConfigOfOpChain(g.config, op) };
  const common = createCommonFromGethGenesis(gg as never, { chain: name, customCrypto: customCrypto() });
  patchBlobSchedule(common, gg.config.blobSchedule as Record<string, BlobScheduleEntry> | undefined);
  return common;
}

/**
 * @ethereumjs 10.1.3 reads the per-fork `target` and `max` blob counts for BPO forks but its
 * geth-genesis parser only stores the derived per-block gas values; add the counts so BPO
 * schedules from a genesis file work.
 */
function patchBlobSchedule(common: Common, schedule: Record<string, BlobScheduleEntry> | undefined): void {
  if (schedule === undefined) return;
  const internal = common as unknown as {
    _chainParams: { customHardforks?: Record<string, { params?: Record<string, unknown> }> };
    _buildParamsCache(): void;
  };
  const custom = internal._chainParams.customHardforks;
  if (custom === undefined) return;
  for (const [fork, entry] of Object.entries(schedule)) {
    const hf = custom[fork];
    if (hf === undefined) continue;
    hf.params = { ...hf.params, target: entry.target, max: entry.max, blobGasPerBlob: GAS_PER_BLOB };
  }
  internal._buildParamsCache();
}

/**
 * Ethereum forks at block 0 on every Bedrock-genesis OP chain: op-geth's chain config for a
 * superchain chain activates Homestead through Gray Glacier and the merge at genesis.
 */
export const ETHEREUM_GENESIS_BLOCK_KEYS = [
  "homesteadBlock",
  "eip150Block",
  "eip155Block",
  "eip158Block",
  "byzantiumBlock",
  "constantinopleBlock",
  "petersburgBlock",
  "istanbulBlock",
  "muirGlacierBlock",
  "berlinBlock",
  "londonBlock",
  "arrowGlacierBlock",
  "grayGlacierBlock",
  "mergeNetsplitBlock",
] as const;

/**
 * The Ethereum fork schedule an OP chain executes with (op-geth's mapping): Bedrock is
 * London + the merge at genesis, Canyon = Shanghai, Ecotone = Cancun (without blob
 * transactions), Isthmus = Prague (without the EIP-7002/7251 request contracts), Azul =
 * Osaka. Ethereum fork keys already present in the config win.
 */
export function ethereumConfigOfOpChain(config: Record<string, unknown>, op: OpChainConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of ETHEREUM_GENESIS_BLOCK_KEYS) {
    if (typeof out[key] !== "number") out[key] = Number(out[key] ?? 0);
  }
  delete out.daoForkBlock;
  out.terminalTotalDifficulty = 0;
  out.terminalTotalDifficultyPassed = true;
  const map: [string, bigint | undefined][] = [
    ["shanghaiTime", op.forkTimes.canyon],
    ["cancunTime", op.forkTimes.ecotone],
    ["pragueTime", op.forkTimes.isthmus],
    ["osakaTime", op.forkTimes.azul],
  ];
  for (const [key, t] of map) {
    if (out[key] !== undefined && out[key] !== null) out[key] = Number(out[key]);
    else if (t !== undefined) out[key] = Number(t);
    else delete out[key];
  }
  // OP chains carry no blobs (excessBlobGas stays 0, so BLOBBASEFEE is 1), but the Cancun+
  // rules still need blob parameters: Ethereum's, as op-geth's default schedule.
  out.blobSchedule ??= OP_DEFAULT_BLOB_SCHEDULE;
  return out;
}

/** The OP configuration of a genesis, or undefined for a plain Ethereum chain. */
export function opConfigOf(g: GenesisJson): OpChainConfig | undefined {
  return opConfigFromGenesisConfig(g.config);
}

/** Ethereum's blob schedule (EIP-4844 Cancun, EIP-7691 Prague), used by OP chains for the fork parameters. */
const OP_DEFAULT_BLOB_SCHEDULE: Record<string, BlobScheduleEntry> = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
};

/** Chain id of a genesis. */
export function chainIdOf(g: GenesisJson): bigint {
  return BigInt(g.config.chainId);
}
