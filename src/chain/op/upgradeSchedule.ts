/**
 * What the network schedules against what basalt implements: the two sources a node can ask
 * ahead of time, and how their answers compare with basalt's own fork schedule.
 *
 * - **Base's L1 upgrade signal** ("dynamic node upgrades", introduced with Cobalt). A
 *   `ProtocolVersions` proxy on L1 answers `getSchedule() returns (uint64[])` — one L2 activation
 *   timestamp per registered upgrade, indexed by an append-only registration id, `0` = not
 *   scheduled — and `minimumProtocolVersion() returns (uint256)` (packed semver
 *   `major << 96 | minor << 64 | patch << 32`). Names are kept off-chain: id i is the i-th entry of
 *   base/base's `BaseUpgrade::CONTRACT_VARIANTS` (Regolith = 0 … Azul = 10, Beryl = 11, Cobalt =
 *   12, Denim = 13). Sources: base/base `crates/utilities/upgrade-signal/src/contract.rs`
 *   (`IProtocolVersions`, PR #3963 of 2026-07-14 which replaced the earlier
 *   `getTimestamp(string)`/`getProtocolVersion(string)` interface), `…/genesis/src/…`
 *   `CONTRACT_VARIANTS`, base/contract-deployments `2026-09-21-deploy-protocol-versions` (the
 *   mainnet schedule with its ids) and `2026-10-07-denim-upgrade` ("Denim (upgrade id 13)").
 * - **A trusted L2 RPC's `eth_config`** (EIP-7910 as base-reth answers it): its `current`, `next`
 *   and `last` forks each carry an `activationTime` and an EIP-2124 `forkId`.
 *
 * A finding is either an **unknown** upgrade (one basalt does not implement: Denim and later, or a
 * fork at a time basalt's schedule has no fork at) or a **conflict** (an upgrade basalt implements,
 * scheduled by the source at another time than basalt's table). Either way basalt cannot execute
 * blocks from the finding's activation time on without risking a silent divergence.
 */
import { TypedError } from "../../util/errors.js";
import { keccak256 } from "../../util/keccak.js";
import type { OpChainConfig, OpForkName } from "./forks.js";

/**
 * Where a finding came from: Base's L1 upgrade-signal contract, the followed RPC's eth_config, or
 * basalt's own network table of upgrades Base announced that basalt does not implement
 * (`announced`: it holds with no source configured — a node driven by P2P or the Engine API only).
 */
export type UpgradeSourceName = "l1" | "follow-rpc" | "announced";

/** The sources, for iteration and metric labels. */
export const UPGRADE_SOURCES: readonly UpgradeSourceName[] = ["l1", "follow-rpc", "announced"];

/** An upgrade Base announced for a network, which basalt does not implement, with the evidence for its time. */
export interface AnnouncedUpgrade {
  upgrade: string;
  /** L2 activation timestamp (seconds). */
  activation: bigint;
  /** Where the time was read. */
  evidence: string;
}

/** The findings of a network's announced upgrades (source `announced`, kind unknown). */
export function announcedFindings(announced: readonly AnnouncedUpgrade[]): UpgradeFinding[] {
  return announced.map((a) => ({
    source: "announced",
    upgrade: a.upgrade,
    activation: a.activation,
    kind: "unknown",
    detail: `Base announced ${a.upgrade} at ${a.activation} (${a.evidence}); this basalt does not implement it`,
  }));
}

/** An upgrade basalt cannot run past: one it does not implement, or one scheduled at another time than basalt's. */
export interface UpgradeFinding {
  source: UpgradeSourceName;
  /** The upgrade's name (`denim`), or what identifies it (`upgrade id 15`, `fork 0x1a2b3c4d`). */
  upgrade: string;
  /** L2 timestamp (seconds) from which basalt cannot execute blocks. */
  activation: bigint;
  kind: "unknown" | "conflict";
  /** One line: what the source said, and for a conflict what basalt has. */
  detail: string;
}

/**
 * base/base `BaseUpgrade::CONTRACT_VARIANTS`, in registration-id order (the order is load-bearing
 * and append-only). Ids 0–12 are upgrades basalt implements; `pectraBlobSchedule` (7) is the
 * Sepolia-only L1 blob-fee change derivation applies (`pectraBlobScheduleTime`).
 */
export const CONTRACT_UPGRADE_NAMES = [
  "regolith",
  "canyon",
  "delta",
  "ecotone",
  "fjord",
  "granite",
  "holocene",
  "pectraBlobSchedule",
  "isthmus",
  "jovian",
  "azul",
  "beryl",
  "cobalt",
  // Not implemented by basalt. Denim is id 13 in CONTRACT_VARIANTS and in Base's Denim task;
  // "everest" is the next name of base/base's snapshot tool's UPGRADES list (ids by position).
  "denim",
  "everest",
] as const;

/** How many of {@link CONTRACT_UPGRADE_NAMES} basalt implements (ids 0 through Cobalt = 12). */
export const IMPLEMENTED_CONTRACT_UPGRADES = 13;

/**
 * Most schedule entries accepted from the contract before decoding (base/base
 * `AlloyUpgradeSignalReader::MAX_SCHEDULE_LENGTH`): room for many future upgrades, while a broken
 * or hostile answer cannot make the decoder allocate without bound.
 */
export const MAX_SCHEDULE_ENTRIES = 256;

/** First four bytes of keccak256 of a function signature. */
function selectorOf(signature: string): string {
  return Buffer.from(keccak256(new TextEncoder().encode(signature)).subarray(0, 4)).toString("hex");
}

/** `getSchedule()` calldata (0x-hex). */
export const GET_SCHEDULE_CALLDATA = `0x${selectorOf("getSchedule()")}`;
/** `minimumProtocolVersion()` calldata (0x-hex). */
export const MINIMUM_PROTOCOL_VERSION_CALLDATA = `0x${selectorOf("minimumProtocolVersion()")}`;

/** Stable code of {@link UpgradeSignalDecodeError}. */
const UpgradeSignalDecodeErrorCode = { SIGNAL_DECODE: "UPGRADE_SIGNAL_DECODE" } as const;
/** A {@link UpgradeSignalDecodeError}'s code with its metadata. */
type UpgradeSignalDecodeErrorType = { code: typeof UpgradeSignalDecodeErrorCode.SIGNAL_DECODE };

/** An answer of the upgrade-signal contract that is not the ABI encoding expected. */
export class UpgradeSignalDecodeError extends TypedError<UpgradeSignalDecodeErrorType> {
  constructor(message: string) {
    super({ code: UpgradeSignalDecodeErrorCode.SIGNAL_DECODE }, message);
  }
}

const WORD = 32;
const U64_MAX = (1n << 64n) - 1n;

function bytesOfHex(hex: string, what: string): Buffer {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) throw new UpgradeSignalDecodeError(`${what}: expected 0x-prefixed hex bytes, got ${JSON.stringify(hex.slice(0, 20))}`);
  return Buffer.from(hex.slice(2), "hex");
}

function wordAt(b: Buffer, offset: number): bigint {
  return BigInt(`0x${b.subarray(offset, offset + WORD).toString("hex")}`);
}

/**
 * Decodes `getSchedule()`'s return data: a canonical ABI `uint64[]` (offset word 0x20, length,
 * one word per entry, each below 2^64), at most {@link MAX_SCHEDULE_ENTRIES} entries.
 * @throws UpgradeSignalDecodeError saying what is wrong.
 */
export function decodeSchedule(hex: string): bigint[] {
  const b = bytesOfHex(hex, "getSchedule()");
  if (b.length < 2 * WORD) throw new UpgradeSignalDecodeError(`getSchedule(): ${b.length} bytes of return data, expected at least ${2 * WORD} (offset and length)`);
  const offset = wordAt(b, 0);
  if (offset !== BigInt(WORD)) throw new UpgradeSignalDecodeError(`getSchedule(): array offset ${offset}, expected ${WORD}`);
  const length = wordAt(b, WORD);
  if (length > BigInt(MAX_SCHEDULE_ENTRIES)) throw new UpgradeSignalDecodeError(`getSchedule(): ${length} entries, more than the ${MAX_SCHEDULE_ENTRIES} accepted`);
  const n = Number(length);
  if (b.length < (2 + n) * WORD) throw new UpgradeSignalDecodeError(`getSchedule(): ${n} entries need ${(2 + n) * WORD} bytes, got ${b.length}`);
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const v = wordAt(b, (2 + i) * WORD);
    if (v > U64_MAX) throw new UpgradeSignalDecodeError(`getSchedule(): entry ${i} does not fit a uint64`);
    out.push(v);
  }
  return out;
}

/** ABI encoding of a `uint64[]` return value (what {@link decodeSchedule} reads). */
export function encodeSchedule(timestamps: readonly bigint[]): string {
  const words = [BigInt(WORD), BigInt(timestamps.length), ...timestamps];
  return `0x${words.map((w) => w.toString(16).padStart(2 * WORD, "0")).join("")}`;
}

/**
 * Decodes a `uint256` return value (`minimumProtocolVersion()`).
 * @throws UpgradeSignalDecodeError when it is not one 32-byte word.
 */
export function decodeUint256(hex: string, what: string): bigint {
  const b = bytesOfHex(hex, what);
  if (b.length !== WORD) throw new UpgradeSignalDecodeError(`${what}: ${b.length} bytes of return data, expected ${WORD}`);
  return wordAt(b, 0);
}

/** `v1.4.1`: a packed protocol version (`major << 96 | minor << 64 | patch << 32`). */
export function formatProtocolVersion(v: bigint): string {
  const part = (shift: bigint): bigint => (v >> shift) & 0xffff_ffffn;
  return `v${part(96n)}.${part(64n)}.${part(32n)}`;
}

/** The part of basalt's schedule the L1 signal is compared with. */
export interface KnownUpgradeSchedule {
  forkTimes: OpChainConfig["forkTimes"];
  /** Base Sepolia's L1 blob-fee schedule switch (contract id 7), when the chain has one. */
  pectraBlobScheduleTime?: bigint;
  /** L2 genesis timestamp: a fork at or before it is active from genesis, whatever time is written. */
  genesisTime: bigint;
}

/** basalt's time of contract upgrade `id` (< {@link IMPLEMENTED_CONTRACT_UPGRADES}), undefined when not scheduled. */
function knownTime(known: KnownUpgradeSchedule, id: number): bigint | undefined {
  const name = CONTRACT_UPGRADE_NAMES[id]!;
  if (name === "pectraBlobSchedule") return known.pectraBlobScheduleTime;
  return known.forkTimes[name as Exclude<OpForkName, "bedrock">];
}

/** `2026-11-05 18:00:00 UTC (1793901600)`. */
export function formatActivation(t: bigint): string {
  const iso = new Date(Number(t) * 1000).toISOString().replace("T", " ").replace(/\.\d{3}Z$/, " UTC");
  return `${iso} (${t})`;
}

/** What comparing one L1 schedule found. */
export interface L1ScheduleComparison {
  findings: UpgradeFinding[];
  /** Upgrades basalt schedules that the contract leaves at 0 (Base's metrics-only nodes keep their built-in time). */
  unsignalled: string[];
}

/**
 * Compares the contract's schedule with basalt's: a positive entry for an id basalt does not
 * implement is an unknown upgrade; a positive entry for an implemented id that basalt schedules
 * at another time (both at or before genesis count as equal), or does not schedule, is a
 * conflict, from the earlier of the two times. `0` entries schedule nothing (the contract's
 * "not scheduled"): they are listed in `unsignalled` when basalt schedules that upgrade.
 */
export function compareL1Schedule(known: KnownUpgradeSchedule, timestamps: readonly bigint[], contract: string): L1ScheduleComparison {
  const findings: UpgradeFinding[] = [];
  const unsignalled: string[] = [];
  const norm = (t: bigint): bigint => (t <= known.genesisTime ? known.genesisTime : t);
  for (const [id, t] of timestamps.entries()) {
    const name = CONTRACT_UPGRADE_NAMES[id] ?? `upgrade id ${id}`;
    if (id >= IMPLEMENTED_CONTRACT_UPGRADES) {
      if (t > 0n) {
        findings.push({ source: "l1", upgrade: name, activation: t, kind: "unknown", detail: `L1 ProtocolVersions ${contract} schedules ${name} (id ${id}) at ${formatActivation(t)}` });
      }
      continue;
    }
    const mine = knownTime(known, id);
    if (t === 0n) {
      if (mine !== undefined) unsignalled.push(name);
      continue;
    }
    if (mine !== undefined && norm(mine) === norm(t)) continue;
    const activation = mine === undefined || norm(t) < norm(mine) ? norm(t) : norm(mine);
    const basalt = mine === undefined ? "does not schedule it" : `schedules it at ${formatActivation(mine)}`;
    findings.push({ source: "l1", upgrade: name, activation, kind: "conflict", detail: `L1 ProtocolVersions ${contract} schedules ${name} (id ${id}) at ${formatActivation(t)}; basalt ${basalt}` });
  }
  return { findings, unsignalled };
}

/** basalt's own forks as an eth_config reader compares them: activation times, and the EIP-2124 fork id at a time. */
export interface LocalForkView {
  /** L2 genesis timestamp (times at or before it are genesis). */
  genesisTime: bigint;
  /** Every fork activation time of basalt's schedule. */
  times: readonly bigint[];
  /** The fork id (`0x` + 8 hex digits) of basalt's chain at time `t`. */
  forkIdAt(t: bigint): string;
}

/** Stable code of {@link EthConfigShapeError}. */
const EthConfigShapeErrorCode = { CONFIG_SHAPE: "ETH_CONFIG_SHAPE" } as const;
/** A {@link EthConfigShapeError}'s code with its metadata. */
type EthConfigShapeErrorType = { code: typeof EthConfigShapeErrorCode.CONFIG_SHAPE };

/** An eth_config answer that is not EIP-7910's shape. */
export class EthConfigShapeError extends TypedError<EthConfigShapeErrorType> {
  constructor(message: string) {
    super({ code: EthConfigShapeErrorCode.CONFIG_SHAPE }, message);
  }
}

/**
 * Compares a trusted RPC's eth_config (`current`, `next`, `last`; each null or
 * `{ activationTime, forkId, … }`) with basalt's forks: a fork at a time basalt has no fork at is
 * an unknown upgrade; one at a known time but with another fork id is a conflict (the forks up to
 * it differ). Both from that fork's activation time.
 * @throws EthConfigShapeError when the answer is not an eth_config object.
 */
export function compareEthConfig(answer: unknown, local: LocalForkView, endpoint: string): UpgradeFinding[] {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw new EthConfigShapeError(`${endpoint}: eth_config: expected an object`);
  const norm = (t: bigint): bigint => (t <= local.genesisTime ? local.genesisTime : t);
  const knownTimes = new Set(local.times.map(norm));
  knownTimes.add(local.genesisTime);
  const findings: UpgradeFinding[] = [];
  const seen = new Set<string>();
  for (const key of ["current", "next", "last"] as const) {
    const fork = (answer as Record<string, unknown>)[key];
    if (fork === null || fork === undefined) continue;
    if (typeof fork !== "object") throw new EthConfigShapeError(`${endpoint}: eth_config.${key}: expected an object or null`);
    const { activationTime, forkId } = fork as { activationTime?: unknown; forkId?: unknown };
    if (typeof activationTime !== "number" || !Number.isSafeInteger(activationTime) || activationTime < 0) {
      throw new EthConfigShapeError(`${endpoint}: eth_config.${key}.activationTime: expected a non-negative integer`);
    }
    if (typeof forkId !== "string" || !/^0x[0-9a-fA-F]{8}$/.test(forkId)) throw new EthConfigShapeError(`${endpoint}: eth_config.${key}.forkId: expected 0x and 8 hex digits`);
    const t = norm(BigInt(activationTime));
    const id = forkId.toLowerCase();
    if (seen.has(`${t}`)) continue;
    seen.add(`${t}`);
    if (!knownTimes.has(t)) {
      findings.push({ source: "follow-rpc", upgrade: `fork ${id}`, activation: t, kind: "unknown", detail: `${endpoint} eth_config.${key} is a fork at ${formatActivation(t)} (fork id ${id}); basalt has no fork at that time` });
      continue;
    }
    const mine = local.forkIdAt(t).toLowerCase();
    if (mine !== id) {
      findings.push({ source: "follow-rpc", upgrade: `fork ${id}`, activation: t, kind: "conflict", detail: `${endpoint} eth_config.${key} has fork id ${id} at ${formatActivation(t)}; basalt's fork id there is ${mine}` });
    }
  }
  return findings;
}
