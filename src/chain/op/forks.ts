/**
 * OP Stack fork schedule: which OP upgrade is active at an L2 block timestamp, and the
 * chain-level OP parameters of a genesis `config` (op-geth layout: `regolithTime`,
 * `canyonTime`, …, `optimism: {eip1559Elasticity, eip1559Denominator, eip1559DenominatorCanyon}`).
 *
 * Every OP fork is keyed on the L2 block timestamp (specs superchain-upgrades.md); Bedrock is
 * the genesis of every chain basalt runs (Base and OP Sepolia start at Bedrock).
 */

/** OP Stack upgrades in activation order. Values are ordinals, so `fork >= OpFork.ecotone` works. */
export const OpFork = {
  bedrock: 0,
  regolith: 1,
  canyon: 2,
  delta: 3,
  ecotone: 4,
  fjord: 5,
  granite: 6,
  holocene: 7,
  isthmus: 8,
  jovian: 9,
  /** Base's first own upgrade ("Base V1"): the Osaka EIPs, incl. the 2^24 per-transaction gas cap. */
  azul: 10,
  /**
   * Base's second upgrade ("Base V2"): the native, stateful precompiles — ActivationRegistry,
   * PolicyRegistry, B20Factory and the B-20 tokens — in their V1 behaviour (src/execution/base).
   */
  beryl: 11,
  /** Base's third upgrade ("Base V3"): the B-20 precompiles' V2 behaviour and the state-backed activation admin. */
  cobalt: 12,
} as const;
export type OpFork = (typeof OpFork)[keyof typeof OpFork];

/** Names of the OP forks, indexed by {@link OpFork}. */
export const OP_FORK_NAMES = ["bedrock", "regolith", "canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus", "jovian", "azul", "beryl", "cobalt"] as const;
export type OpForkName = (typeof OP_FORK_NAMES)[number];

/** The genesis `config` key of each timestamp-activated OP fork (op-geth naming). */
export const OP_FORK_TIME_KEYS: Readonly<Record<Exclude<OpForkName, "bedrock">, string>> = {
  regolith: "regolithTime",
  canyon: "canyonTime",
  delta: "deltaTime",
  ecotone: "ecotoneTime",
  fjord: "fjordTime",
  granite: "graniteTime",
  holocene: "holoceneTime",
  isthmus: "isthmusTime",
  jovian: "jovianTime",
  azul: "azulTime",
  beryl: "berylTime",
  cobalt: "cobaltTime",
};

/** EIP-1559 parameters of an OP chain (genesis `config.optimism`). */
export interface OpEip1559Config {
  /** Elasticity multiplier (Base mainnet 6, Base Sepolia 10). */
  eip1559Elasticity: number;
  /** Base-fee change denominator before Canyon (50). */
  eip1559Denominator: number;
  /** Base-fee change denominator from Canyon on (250). */
  eip1559DenominatorCanyon: number;
}

/** The OP part of a chain's configuration: fork times (seconds) and EIP-1559 parameters. */
export interface OpChainConfig extends OpEip1559Config {
  /** Activation timestamp of each fork after Bedrock; absent = not scheduled. */
  forkTimes: Partial<Record<Exclude<OpForkName, "bedrock">, bigint>>;
}

/** What fork lookups read of an OP config: only the fork times (an {@link OpChainConfig} or a built-in network both fit). */
export type OpForkSchedule = Pick<OpChainConfig, "forkTimes">;

/** Raised-free lookup: the OP config of a genesis `config`, or undefined for a plain Ethereum chain. */
export function opConfigFromGenesisConfig(config: Record<string, unknown>): OpChainConfig | undefined {
  const op = config.optimism as Record<string, unknown> | undefined;
  if (op === undefined || op === null || typeof op !== "object") return undefined;
  const forkTimes: OpChainConfig["forkTimes"] = {};
  for (const [name, key] of Object.entries(OP_FORK_TIME_KEYS) as [Exclude<OpForkName, "bedrock">, string][]) {
    const v = config[key];
    if (v !== undefined && v !== null) forkTimes[name] = BigInt(v as number | string);
  }
  return {
    forkTimes,
    eip1559Elasticity: Number(op.eip1559Elasticity ?? 6),
    eip1559Denominator: Number(op.eip1559Denominator ?? 50),
    eip1559DenominatorCanyon: Number(op.eip1559DenominatorCanyon ?? op.eip1559Denominator ?? 250),
  };
}

/** The latest OP fork active at L2 timestamp `timestamp`. */
export function opForkAt(cfg: OpForkSchedule, timestamp: bigint): OpFork {
  let fork: OpFork = OpFork.bedrock;
  for (let i = 1; i < OP_FORK_NAMES.length; i++) {
    const t = cfg.forkTimes[OP_FORK_NAMES[i] as Exclude<OpForkName, "bedrock">];
    if (t !== undefined && timestamp >= t) fork = i as OpFork;
  }
  return fork;
}

/**
 * Whether the block at `timestamp` (with parent at `parentTimestamp`) is the activation block
 * of `fork`: the first block whose timestamp reaches the fork time. A fork active at genesis
 * has no activation block.
 */
export function isActivationBlock(cfg: OpForkSchedule, fork: Exclude<OpForkName, "bedrock">, timestamp: bigint, parentTimestamp: bigint | undefined): boolean {
  const t = cfg.forkTimes[fork];
  if (t === undefined || parentTimestamp === undefined) return false;
  return timestamp >= t && parentTimestamp < t;
}
