/**
 * The rollup configuration derivation, the sequencer and the batcher run on: what op-node reads
 * from `rollup.json` (op-node `rollup/types.go` `Config`; base/base
 * `crates/consensus/genesis/src/rollup.rs`). Built-in networks (Base mainnet / Sepolia) have theirs
 * in {@link ./networks.ts}; a custom chain (the local rollup of `basalt devnet rollup`) gives one
 * with `--rollup.config <rollup.json>`, read by {@link parseRollupConfig} and written by
 * {@link rollupConfigJson} in op-node's format, so op-node tooling reads the same file.
 */
import { toChecksumAddress } from "@ethereumjs/util";
import { readFileSync } from "node:fs";
import { TypedError } from "../../util/errors.js";
import { OP_FORK_NAMES, type OpChainConfig, type OpEip1559Config, type OpForkName } from "./forks.js";
import { opNetworkByChainId, type OpNetwork, type RollupGenesis } from "./networks.js";

/** Everything derivation needs to know of a rollup (a built-in {@link OpNetwork} has all of it). */
export interface RollupConfig {
  /** L2 chain id. */
  chainId: bigint;
  /** Chain id of the L1 the rollup settles on (selects the L1 blob fee schedule). */
  l1ChainId: bigint;
  /** Seconds between L2 blocks. */
  blockTime: bigint;
  /** L1 blocks within which a batch must be included after its epoch. */
  seqWindowSize: bigint;
  /** Most seconds an L2 block may run ahead of its L1 origin before Fjord (1800 from Fjord). */
  maxSequencerDrift: bigint;
  /** L1 blocks a channel stays open before Granite. */
  channelTimeout: bigint;
  /** L1 blocks a channel stays open from Granite. */
  channelTimeoutGranite: bigint;
  /** L1 address batches are sent to (0x-hex). */
  batchInboxAddress: string;
  /** OptimismPortal on L1: emits `TransactionDeposited` (0x-hex). */
  depositContractAddress: string;
  /** SystemConfig on L1: emits `ConfigUpdate` (0x-hex). */
  l1SystemConfigAddress: string;
  /** OP fork activation times (L2 timestamps). */
  forkTimes: OpChainConfig["forkTimes"];
  /** Sepolia-era chains only: when the L1-info blob base fee switched to Prague's update fraction. */
  pectraBlobScheduleTime?: bigint;
  /** EIP-1559 parameters (`chain_op_config`). */
  eip1559: OpEip1559Config;
  /** The L1 and L2 blocks the rollup starts from, and the system config at genesis. */
  genesis: RollupGenesis;
}

/** Stable code of {@link RollupConfigError}. */
const RollupConfigErrorCode = { CONFIG_INVALID: "ROLLUP_CONFIG_INVALID" } as const;
/** A {@link RollupConfigError}'s code with its metadata. */
type RollupConfigErrorType = { code: typeof RollupConfigErrorCode.CONFIG_INVALID; field: string };

/** A rollup configuration that could not be read. */
export class RollupConfigError extends TypedError<RollupConfigErrorType> {
  constructor(field: string, message: string) {
    super({ code: RollupConfigErrorCode.CONFIG_INVALID, field }, message);
  }
}

/** The rollup configuration of a built-in network. */
export function rollupConfigOfNetwork(n: OpNetwork): RollupConfig {
  const cfg: RollupConfig = {
    chainId: n.chainId,
    l1ChainId: n.l1ChainId,
    blockTime: n.blockTime,
    seqWindowSize: n.seqWindowSize,
    maxSequencerDrift: n.maxSequencerDrift,
    channelTimeout: n.channelTimeout,
    channelTimeoutGranite: n.channelTimeoutGranite,
    batchInboxAddress: n.batchInboxAddress,
    depositContractAddress: n.addresses.optimismPortalProxy,
    l1SystemConfigAddress: n.addresses.systemConfigProxy,
    forkTimes: { ...n.forkTimes },
    eip1559: { ...n.eip1559 },
    genesis: n.genesis,
  };
  if (n.pectraBlobScheduleTime !== undefined) cfg.pectraBlobScheduleTime = n.pectraBlobScheduleTime;
  return cfg;
}

type Json = Record<string, unknown>;

function field(obj: Json, key: string, path: string): unknown {
  const v = obj[key];
  if (v === undefined || v === null) throw new RollupConfigError(path, `rollup config: ${path} is missing`);
  return v;
}

function uint(obj: Json, key: string, path: string): bigint {
  const v = field(obj, key, path);
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) return BigInt(v);
  throw new RollupConfigError(path, `rollup config: ${path} is ${JSON.stringify(v)}, expected a non-negative integer`);
}

function hexOf(obj: Json, key: string, path: string, bytes: number): string {
  const v = field(obj, key, path);
  if (typeof v !== "string" || !new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`).test(v)) {
    throw new RollupConfigError(path, `rollup config: ${path} is ${JSON.stringify(v)}, expected 0x and ${bytes * 2} hex digits`);
  }
  return v.toLowerCase();
}

function object(obj: Json, key: string, path: string): Json {
  const v = field(obj, key, path);
  if (typeof v !== "object" || Array.isArray(v)) throw new RollupConfigError(path, `rollup config: ${path} is not an object`);
  return v as Json;
}

/** The `*_time` key of a fork in rollup.json. */
function forkKey(fork: Exclude<OpForkName, "bedrock">): string {
  return `${fork}_time`;
}

/**
 * Reads an op-node `rollup.json` (snake_case; `genesis.system_config` camelCase as op-node writes
 * it). Throws {@link RollupConfigError} naming the first missing or malformed field.
 */
export function parseRollupConfig(json: unknown): RollupConfig {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new RollupConfigError("", "rollup config: expected a JSON object");
  const j = json as Json;
  const g = object(j, "genesis", "genesis");
  const l1 = object(g, "l1", "genesis.l1");
  const l2 = object(g, "l2", "genesis.l2");
  const sc = object(g, "system_config", "genesis.system_config");
  const forkTimes: OpChainConfig["forkTimes"] = {};
  for (const fork of OP_FORK_NAMES) {
    if (fork === "bedrock") continue;
    if (j[forkKey(fork)] !== undefined && j[forkKey(fork)] !== null) forkTimes[fork] = uint(j, forkKey(fork), forkKey(fork));
  }
  const op = (j.chain_op_config ?? {}) as Json;
  const eip1559: OpEip1559Config = {
    eip1559Elasticity: Number(op.eip1559Elasticity ?? 6),
    eip1559Denominator: Number(op.eip1559Denominator ?? 50),
    eip1559DenominatorCanyon: Number(op.eip1559DenominatorCanyon ?? 250),
  };
  const channelTimeout = uint(j, "channel_timeout", "channel_timeout");
  const cfg: RollupConfig = {
    chainId: uint(j, "l2_chain_id", "l2_chain_id"),
    l1ChainId: uint(j, "l1_chain_id", "l1_chain_id"),
    blockTime: uint(j, "block_time", "block_time"),
    seqWindowSize: uint(j, "seq_window_size", "seq_window_size"),
    maxSequencerDrift: uint(j, "max_sequencer_drift", "max_sequencer_drift"),
    channelTimeout,
    // op-node: granite_channel_timeout defaults to 50 when absent.
    channelTimeoutGranite: j.granite_channel_timeout === undefined ? 50n : uint(j, "granite_channel_timeout", "granite_channel_timeout"),
    batchInboxAddress: hexOf(j, "batch_inbox_address", "batch_inbox_address", 20),
    depositContractAddress: hexOf(j, "deposit_contract_address", "deposit_contract_address", 20),
    l1SystemConfigAddress: hexOf(j, "l1_system_config_address", "l1_system_config_address", 20),
    forkTimes,
    eip1559,
    genesis: {
      l1: { hash: hexOf(l1, "hash", "genesis.l1.hash", 32), number: uint(l1, "number", "genesis.l1.number") },
      l2: { hash: hexOf(l2, "hash", "genesis.l2.hash", 32), number: uint(l2, "number", "genesis.l2.number") },
      l2Time: uint(g, "l2_time", "genesis.l2_time"),
      systemConfig: {
        batcherAddress: hexOf(sc, "batcherAddr", "genesis.system_config.batcherAddr", 20),
        overhead: hexOf(sc, "overhead", "genesis.system_config.overhead", 32),
        scalar: hexOf(sc, "scalar", "genesis.system_config.scalar", 32),
        gasLimit: uint(sc, "gasLimit", "genesis.system_config.gasLimit"),
      },
    },
  };
  if (j.pectra_blob_schedule_time !== undefined && j.pectra_blob_schedule_time !== null) cfg.pectraBlobScheduleTime = uint(j, "pectra_blob_schedule_time", "pectra_blob_schedule_time");
  if (cfg.blockTime === 0n) throw new RollupConfigError("block_time", "rollup config: block_time is 0, expected at least 1 second");
  return cfg;
}

const checksum = (a: string): string => toChecksumAddress(a.toLowerCase());

/** The op-node `rollup.json` of a rollup configuration (the keys {@link parseRollupConfig} reads, in op-node's order). */
export function rollupConfigJson(cfg: RollupConfig): Json {
  const g = cfg.genesis;
  const out: Json = {
    genesis: {
      l1: { hash: g.l1.hash.toLowerCase(), number: Number(g.l1.number) },
      l2: { hash: g.l2.hash.toLowerCase(), number: Number(g.l2.number) },
      l2_time: Number(g.l2Time),
      system_config: {
        batcherAddr: checksum(g.systemConfig.batcherAddress),
        overhead: g.systemConfig.overhead.toLowerCase(),
        scalar: g.systemConfig.scalar.toLowerCase(),
        gasLimit: Number(g.systemConfig.gasLimit),
      },
    },
    block_time: Number(cfg.blockTime),
    max_sequencer_drift: Number(cfg.maxSequencerDrift),
    seq_window_size: Number(cfg.seqWindowSize),
    channel_timeout: Number(cfg.channelTimeout),
    granite_channel_timeout: Number(cfg.channelTimeoutGranite),
    l1_chain_id: Number(cfg.l1ChainId),
    l2_chain_id: Number(cfg.chainId),
  };
  for (const fork of OP_FORK_NAMES) {
    if (fork === "bedrock") continue;
    const t = cfg.forkTimes[fork];
    if (t !== undefined) out[forkKey(fork)] = Number(t);
    if (fork === "holocene" && cfg.pectraBlobScheduleTime !== undefined) out.pectra_blob_schedule_time = Number(cfg.pectraBlobScheduleTime);
  }
  out.batch_inbox_address = checksum(cfg.batchInboxAddress);
  out.deposit_contract_address = checksum(cfg.depositContractAddress);
  out.l1_system_config_address = checksum(cfg.l1SystemConfigAddress);
  out.chain_op_config = { ...cfg.eip1559 };
  return out;
}

/** Reads and parses a rollup.json file (`--rollup.config`). */
function loadRollupConfigFile(path: string): RollupConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new RollupConfigError("", `rollup config ${path} cannot be read: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RollupConfigError("", `rollup config ${path} is not JSON: ${(e as Error).message}`);
  }
  return parseRollupConfig(json);
}

/**
 * The rollup configuration of the chain with `chainId` and genesis `genesisHash`: the file's when
 * one is given (it must name that chain and genesis), else the built-in network's with that chain
 * id and genesis, else undefined (a chain basalt cannot derive or sequence from an L1).
 */
export function rollupConfigForChain(chainId: bigint, genesisHash: string, file?: string): RollupConfig | undefined {
  if (file !== undefined) {
    const cfg = loadRollupConfigFile(file);
    if (cfg.chainId !== chainId) throw new RollupConfigError("l2_chain_id", `rollup config ${file} is for chain ${cfg.chainId}, but this datadir holds chain ${chainId}`);
    if (cfg.genesis.l2.hash.toLowerCase() !== genesisHash.toLowerCase()) {
      throw new RollupConfigError("genesis.l2.hash", `rollup config ${file} names L2 genesis ${cfg.genesis.l2.hash}, but this datadir's genesis is ${genesisHash}`);
    }
    return cfg;
  }
  const n = opNetworkByChainId(chainId);
  return n !== undefined && n.genesisHash.toLowerCase() === genesisHash.toLowerCase() ? rollupConfigOfNetwork(n) : undefined;
}
