/**
 * Reading the two sources of what the network schedules (see `chain/op/upgradeSchedule.ts`) and
 * comparing their answers with basalt's own schedule. Shared by the node's watchers
 * (`watcher.ts`) and `basalt doctor` (`ops/doctor/upgrades.ts`): both pass a JSON-RPC `call`
 * function, so the same reads and comparisons run over either client.
 */
import type { Common } from "@ethereumjs/common";
import type { GenesisJson } from "../../chain/genesis.js";
import { opConfigFromGenesisConfig } from "../../chain/op/forks.js";
import { opGenesisConfig, type OpNetwork } from "../../chain/op/networks.js";
import { commonFromGenesis } from "../../chain/chainSpec.js";
import { validateGenesis } from "../../chain/genesis.js";
import { fromHex } from "../../util/bytes.js";
import {
  compareEthConfig,
  compareL1Schedule,
  decodeSchedule,
  decodeUint256,
  GET_SCHEDULE_CALLDATA,
  MINIMUM_PROTOCOL_VERSION_CALLDATA,
  type KnownUpgradeSchedule,
  type L1ScheduleComparison,
  type LocalForkView,
  type UpgradeFinding,
} from "../../chain/op/upgradeSchedule.js";
import { chainForkActivations, forkFilterOf, type ForkScheduleSource } from "../../p2p/el/forkSchedule.js";
import type { UpgradeSignalBlockTag } from "../../config/options.js";
import { TypedError } from "../../util/errors.js";

/** One JSON-RPC call: resolves with `result`, rejects with the transport's or the remote's error. */
export type RpcCall = (method: string, params: unknown[]) => Promise<unknown>;

/** Stable code of {@link UpgradeSourceError}. */
const UpgradeSourceErrorCode = { SOURCE_BAD_ANSWER: "UPGRADE_SOURCE_BAD_ANSWER" } as const;
/** A {@link UpgradeSourceError}'s code with its metadata. */
type UpgradeSourceErrorType = { code: typeof UpgradeSourceErrorCode.SOURCE_BAD_ANSWER; source: string };


/** An L1 answer that does not fit (no block at the tag, a malformed block). */
export class UpgradeSourceError extends TypedError<UpgradeSourceErrorType> {
  constructor(source: string, message: string) {
    super({ code: UpgradeSourceErrorCode.SOURCE_BAD_ANSWER, source }, message);
  }
}

/** One read of the L1 upgrade signal. */
interface L1ScheduleRead extends L1ScheduleComparison {
  /** The L1 block read at. */
  l1Block: { number: bigint; hash: string };
  /** The contract's schedule, by registration id (0 = not scheduled). */
  timestamps: bigint[];
  /** The contract's minimum node protocol version (packed semver). */
  minimumProtocolVersion: bigint;
}

/**
 * Reads Base's upgrade-signal contract as base/base does: takes the L1 block at `tag`, then calls
 * `getSchedule()` and `minimumProtocolVersion()` at that block's hash (EIP-1898), so both reads see
 * the same L1 state; and compares the schedule with `known`.
 * @throws UpgradeSourceError / UpgradeSignalDecodeError for an answer that does not fit; the call's own errors.
 */
export async function readL1Schedule(call: RpcCall, contract: string, tag: UpgradeSignalBlockTag, known: KnownUpgradeSchedule): Promise<L1ScheduleRead> {
  const block = (await call("eth_getBlockByNumber", [tag, false])) as { number?: unknown; hash?: unknown } | null;
  if (block === null || typeof block !== "object" || typeof block.number !== "string" || typeof block.hash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(block.hash)) {
    throw new UpgradeSourceError("l1", `the L1 RPC has no ${tag} block (eth_getBlockByNumber("${tag}") answered ${JSON.stringify(block)?.slice(0, 80)})`);
  }
  const at = { blockHash: block.hash };
  const [schedule, version] = await Promise.all([
    call("eth_call", [{ to: contract, data: GET_SCHEDULE_CALLDATA }, at]),
    call("eth_call", [{ to: contract, data: MINIMUM_PROTOCOL_VERSION_CALLDATA }, at]),
  ]);
  if (typeof schedule !== "string" || typeof version !== "string") {
    throw new UpgradeSourceError("l1", `eth_call on ${contract}: expected hex return data`);
  }
  const timestamps = decodeSchedule(schedule);
  const minimumProtocolVersion = decodeUint256(version, "minimumProtocolVersion()");
  return { l1Block: { number: BigInt(block.number), hash: block.hash }, timestamps, minimumProtocolVersion, ...compareL1Schedule(known, timestamps, contract) };
}

/** Reads the trusted RPC's eth_config and compares it with basalt's forks. */
export async function readEthConfigFindings(call: RpcCall, local: LocalForkView, endpoint: string): Promise<UpgradeFinding[]> {
  return compareEthConfig(await call("eth_config", []), local, endpoint);
}

/** What basalt knows of a chain's schedule: from its genesis (as the chain opens it) and its Common. */
export interface ChainSchedule {
  genesis: GenesisJson;
  common: Common;
  genesisHash: Uint8Array;
}

/**
 * A built-in network's schedule from basalt's table alone (no datadir, no genesis download): its
 * genesis `config` and time, without the alloc — fork times and fork ids need nothing else.
 */
export function networkSchedule(n: OpNetwork): ChainSchedule {
  const hex = (v: bigint): string => `0x${v.toString(16)}`;
  const genesis = validateGenesis({ config: opGenesisConfig(n), timestamp: hex(n.genesis.l2Time), gasLimit: hex(n.genesis.systemConfig.gasLimit), difficulty: "0x0", nonce: "0x0", alloc: {} });
  return { genesis, common: commonFromGenesis(genesis), genesisHash: fromHex(n.genesisHash) };
}

/** The part of `chain`'s schedule the L1 signal is compared with; undefined for a chain that is not an OP chain. */
export function knownUpgradeSchedule(chain: Pick<ChainSchedule, "genesis">): KnownUpgradeSchedule | undefined {
  const config = chain.genesis.config as Record<string, unknown>;
  const op = opConfigFromGenesisConfig(config);
  if (op === undefined) return undefined;
  const known: KnownUpgradeSchedule = { forkTimes: op.forkTimes, genesisTime: BigInt(chain.genesis.timestamp ?? 0) };
  const pectra = config.pectraBlobScheduleTime;
  if (typeof pectra === "number" || typeof pectra === "string") known.pectraBlobScheduleTime = BigInt(pectra);
  return known;
}

/**
 * basalt's forks as eth_config shows them: the same activations and EIP-2124 fork ids eth_config
 * and the execution-layer P2P use (`p2p/el/forkSchedule.ts`, as `rpc/methods/ethConfig.ts`).
 */
export function localForkView(chain: ChainSchedule): LocalForkView {
  const src: ForkScheduleSource = {
    common: chain.common,
    op: opConfigFromGenesisConfig(chain.genesis.config as Record<string, unknown>),
    genesisHash: chain.genesisHash,
    genesisTime: BigInt(chain.genesis.timestamp ?? 0),
  };
  const filter = forkFilterOf(src);
  return {
    genesisTime: src.genesisTime,
    times: chainForkActivations(src).times,
    forkIdAt: (t) => `0x${Buffer.from(filter.forkId({ number: BigInt(Number.MAX_SAFE_INTEGER), timestamp: t }).hash).toString("hex")}`,
  };
}
