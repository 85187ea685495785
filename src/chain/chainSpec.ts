/**
 * Chain specifications: the fork schedule and parameters of a chain, as an @ethereumjs
 * Common built from a geth-style genesis `config`.
 */
import { Common, parseGethGenesis, type ChainConfig } from "@ethereumjs/common";
import { customCrypto } from "./crypto.js";
import { ChainConfigError } from "./errors.js";
import type { GenesisJson } from "./genesis.js";
import { opConfigFromGenesisConfig, type OpChainConfig } from "./op/forks.js";

/** EIP-4844 gas per blob (2^17). */
const GAS_PER_BLOB = 131_072;

/** One fork's blob parameters (genesis `config.blobSchedule.<fork>`, EIP-7840). */
interface BlobScheduleEntry {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/**
 * The block-numbered Ethereum forks a genesis `config` may schedule (geth's keys; `mergeForkBlock`
 * is @ethereumjs's name of the merge block), Frontier excepted (always at block 0).
 */
const ETHEREUM_BLOCK_FORK_KEYS = [
  "homesteadBlock",
  "daoForkBlock",
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
  "mergeForkBlock",
] as const;

/**
 * The timestamp-activated Ethereum forks basalt runs, in activation order, with their genesis
 * `config` key. BPO1–BPO5 are the blob-parameter-only forks (EIP-7892): they change nothing but
 * the blob target, maximum and base-fee update fraction, which come from `config.blobSchedule`.
 */
const ETHEREUM_TIME_FORKS = [
  { fork: "shanghai", key: "shanghaiTime" },
  { fork: "cancun", key: "cancunTime" },
  { fork: "prague", key: "pragueTime" },
  { fork: "osaka", key: "osakaTime" },
  { fork: "bpo1", key: "bpo1Time" },
  { fork: "bpo2", key: "bpo2Time" },
  { fork: "bpo3", key: "bpo3Time" },
  { fork: "bpo4", key: "bpo4Time" },
  { fork: "bpo5", key: "bpo5Time" },
] as const;

/** The blob-parameter-only forks (EIP-7892). */
const BPO_FORKS: ReadonlySet<string> = new Set(["bpo1", "bpo2", "bpo3", "bpo4", "bpo5"]);
/** Forks a `config.blobSchedule` may name: every fork from Cancun on. */
const BLOB_SCHEDULE_FORKS: readonly string[] = ETHEREUM_TIME_FORKS.map((f) => f.fork).filter((f) => f !== "shanghai");
/** A config key naming a fork (`…Block` / `…Time`). */
const FORK_KEY = /^[a-z][A-Za-z0-9]*(Block|Time)$/;

const knownForksText = (): string => `known: ${ETHEREUM_BLOCK_FORK_KEYS.join(", ")}, ${ETHEREUM_TIME_FORKS.map((f) => f.key).join(", ")}`;

/** The value of a fork key as a number, or undefined when unscheduled; refuses anything else. */
function forkValue(config: Record<string, unknown>, key: string, unit: string): number | undefined {
  const v = config[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key }, `genesis config.${key} is ${JSON.stringify(v)}; expected a non-negative integer (${unit}) or no entry`);
  }
  return v;
}

/**
 * Checks `config.blobSchedule`: every entry names a fork from Cancun on and has integer
 * `target`, `max` and `baseFeeUpdateFraction`. Returns the schedule (undefined when absent).
 */
function checkedBlobSchedule(config: Record<string, unknown>): Record<string, BlobScheduleEntry> | undefined {
  const schedule = config.blobSchedule;
  if (schedule === undefined || schedule === null) return undefined;
  if (typeof schedule !== "object" || Array.isArray(schedule)) {
    throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key: "blobSchedule" }, `genesis config.blobSchedule is ${JSON.stringify(schedule)}; expected an object of per-fork blob parameters`);
  }
  for (const [fork, entry] of Object.entries(schedule as Record<string, unknown>)) {
    const key = `blobSchedule.${fork}`;
    if (!BLOB_SCHEDULE_FORKS.includes(fork)) {
      throw new ChainConfigError({ code: "CHAIN_CONFIG_UNKNOWN_FORK", key }, `genesis config.${key}: unknown fork ${JSON.stringify(fork)}; expected one of ${BLOB_SCHEDULE_FORKS.join(", ")}`);
    }
    const e = entry as Record<string, unknown> | null;
    for (const field of ["target", "max", "baseFeeUpdateFraction"]) {
      const v = typeof e === "object" && e !== null ? e[field] : undefined;
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
        throw new ChainConfigError(
          { code: "CHAIN_CONFIG_INVALID", key: `${key}.${field}` },
          `genesis config.${key}.${field} is ${JSON.stringify(v)}; expected a non-negative integer (each entry has target, max and baseFeeUpdateFraction)`,
        );
      }
    }
  }
  return schedule as Record<string, BlobScheduleEntry>;
}

/**
 * Checks the fork schedule of a plain Ethereum chain: every `…Block` / `…Time` key is a fork basalt
 * knows, with an integer value; the timestamp forks are scheduled in order, each after its
 * predecessor (Shanghai → Cancun → Prague → Osaka; BPO forks after Osaka and after each other); a
 * scheduled BPO fork has its `blobSchedule` entry (its only parameters). geth refuses the same
 * configurations (`CheckConfigForkOrder`, the blob schedule check); @ethereumjs would silently
 * ignore an unknown or non-numeric key and reorder forks.
 */
function checkEthereumForks(config: Record<string, unknown>, schedule: Record<string, BlobScheduleEntry> | undefined): void {
  const known = new Set<string>([...ETHEREUM_BLOCK_FORK_KEYS, ...ETHEREUM_TIME_FORKS.map((f) => f.key)]);
  for (const key of Object.keys(config)) {
    if (FORK_KEY.test(key) && !known.has(key) && config[key] !== null && config[key] !== undefined) {
      throw new ChainConfigError({ code: "CHAIN_CONFIG_UNKNOWN_FORK", key }, `genesis config.${key}: unknown fork; basalt runs the Ethereum forks up to Osaka and BPO1–BPO5 (${knownForksText()})`);
    }
  }
  for (const key of ETHEREUM_BLOCK_FORK_KEYS) forkValue(config, key, "block number");
  let previous: { key: string; time: number } | undefined;
  let osaka: number | undefined;
  for (const [i, { fork, key }] of ETHEREUM_TIME_FORKS.entries()) {
    const time = forkValue(config, key, "seconds");
    if (time === undefined) continue;
    const before = ETHEREUM_TIME_FORKS[i - 1];
    if (!BPO_FORKS.has(fork) && before !== undefined && forkValue(config, before.key, "seconds") === undefined) {
      throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key }, `genesis config.${key} is set but config.${before.key} is not; expected every fork before ${fork} to be scheduled`);
    }
    if (BPO_FORKS.has(fork)) {
      if (osaka === undefined) throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key }, `genesis config.${key} is set but config.osakaTime is not; expected BPO forks after Osaka`);
      if (schedule?.[fork] === undefined) {
        throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key: `blobSchedule.${fork}` }, `genesis config.${key} is set but config.blobSchedule has no ${fork} entry; expected its target, max and baseFeeUpdateFraction`);
      }
    }
    if (previous !== undefined && time < previous.time) {
      throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key }, `genesis config.${key} (${time}) is before config.${previous.key} (${previous.time}); expected forks scheduled in order`);
    }
    if (fork === "osaka") osaka = time;
    previous = { key, time };
  }
}

/**
 * Builds the Common of a genesis. `name` only labels the chain (e.g. "devnet").
 * The Common is mutable (its hardfork follows the block being processed): create one per
 * concurrent use with {@link Common.copy}.
 *
 * A `config` basalt cannot run is refused with a {@link ChainConfigError} (one line: the key, what
 * was wrong, what was expected): an unknown fork, a non-numeric or out-of-order schedule, a bad
 * blob schedule (plain Ethereum chains; an OP chain's Ethereum forks are derived from its OP forks).
 */
export function commonFromGenesis(g: GenesisJson, name = "custom"): Common {
  const op = opConfigFromGenesisConfig(g.config);
  const schedule = checkedBlobSchedule(g.config);
  if (op === undefined) checkEthereumForks(g.config, schedule);
  const config = op === undefined ? g.config : ethereumConfigOfOpChain(g.config, op);
  // @ethereumjs's geth-genesis parser knows the blob parameters of Cancun, Prague and Osaka (and
  // only some BPO forks): the BPO forks are given to it as custom hardforks below instead.
  const blobSchedule = config.blobSchedule as Record<string, BlobScheduleEntry> | undefined;
  const parsedSchedule = blobSchedule === undefined ? undefined : Object.fromEntries(Object.entries(blobSchedule).filter(([fork]) => !BPO_FORKS.has(fork)));
  let params: ChainConfig;
  try {
    // geth (and basalt's genesis block) read an absent nonce, difficulty or timestamp as 0; @ethereumjs requires them.
    const header = { nonce: g.nonce ?? "0x0", difficulty: g.difficulty ?? "0x0", timestamp: g.timestamp ?? "0x0" };
    params = parseGethGenesis({ ...g, ...header, config: { ...config, blobSchedule: parsedSchedule } } as never, name) as unknown as ChainConfig;
  } catch (e) {
    throw new ChainConfigError({ code: "CHAIN_CONFIG_INVALID", key: "config" }, `genesis config is not usable: ${(e as Error).message.replace(/\s+/g, " ")}`, { cause: e });
  }
  const custom = (params.customHardforks ??= {}) as Record<string, { eips?: number[]; params?: Record<string, unknown> }>;
  const scheduled = new Set(params.hardforks.map((h) => h.name));
  for (const [fork, entry] of Object.entries(blobSchedule ?? {})) {
    if (BPO_FORKS.has(fork)) {
      // A BPO fork activates no EIP; only scheduled ones are added (an unscheduled custom fork would join the fork list).
      if (!scheduled.has(fork)) continue;
      custom[fork] = { eips: [], params: { targetBlobGasPerBlock: GAS_PER_BLOB * entry.target, maxBlobGasPerBlock: GAS_PER_BLOB * entry.max, blobGasPriceUpdateFraction: entry.baseFeeUpdateFraction } };
    }
    const hf = custom[fork];
    // @ethereumjs reads the per-fork blob counts (`target`, `max`) from BPO1 on; its parser stores only the gas values.
    if (hf !== undefined) hf.params = { ...hf.params, target: entry.target, max: entry.max, blobGasPerBlob: GAS_PER_BLOB };
  }
  return new Common({ chain: { ...params, name: params.name ?? name }, hardfork: (params as unknown as { hardfork?: string }).hardfork, customCrypto: customCrypto() });
}

/**
 * Ethereum forks at block 0 on every Bedrock-genesis OP chain: op-geth's chain config for a
 * superchain chain activates Homestead through Gray Glacier and the merge at genesis (every
 * block fork but the DAO fork and @ethereumjs's own merge-block key).
 */
export const ETHEREUM_GENESIS_BLOCK_KEYS: readonly string[] = ETHEREUM_BLOCK_FORK_KEYS.filter((k) => k !== "daoForkBlock" && k !== "mergeForkBlock");

/**
 * The Ethereum fork schedule an OP chain executes with (op-geth's mapping): Bedrock is
 * London + the merge at genesis, Canyon = Shanghai, Ecotone = Cancun (without blob
 * transactions), Isthmus = Prague (without the EIP-7002/7251 request contracts), Azul =
 * Osaka. Ethereum fork keys already present in the config win.
 */
function ethereumConfigOfOpChain(config: Record<string, unknown>, op: OpChainConfig): Record<string, unknown> {
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
