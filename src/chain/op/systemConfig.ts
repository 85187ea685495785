/**
 * The rollup's SystemConfig as derivation tracks it: the values the L1 SystemConfig contract
 * controls and L2 blocks depend on (batcher, fee scalars, gas limit, EIP-1559 parameters, operator
 * fee, minimum base fee, DA footprint gas scalar). It starts from the rollup genesis, changes with
 * each `ConfigUpdate` log on L1 (`configUpdate.ts`), and can be rebuilt from any L2 block.
 *
 * Sources: specs system-config.md and the Holocene/Isthmus/Jovian system-config pages; kona
 * crates/protocol/genesis/src/system/config.rs (`SystemConfig`, `eip_1559_params`),
 * crates/protocol/genesis/src/updates/*.rs (`apply`), crates/protocol/protocol/src/utils.rs
 * (`to_system_config`).
 */
import { bytesToHex } from "@ethereumjs/util";
import { bytesEqual, fromHex } from "../../util/bytes.js";
import { TypedError } from "../../util/errors.js";
import type { ConfigUpdate, ConfigUpdateDecoding } from "./configUpdate.js";
import { DEPOSIT_TX_TYPE } from "./depositTx.js";
import { decodeOpExtraData, EIP1559_PARAMS_LENGTH } from "./eip1559.js";
import { OpFork, opForkAt, type OpForkSchedule } from "./forks.js";
import { decodeL1InfoCalldata, ECOTONE_SCALAR_VERSION } from "./l1InfoTx.js";
import type { RollupGenesis } from "./networks.js";

/** The SystemConfig values derivation uses. Optional fields are unset until an update (or an L2 block) sets them. */
export interface SystemConfig {
  /** The address allowed to post batches (20 bytes). */
  batcherAddress: Uint8Array;
  /** Pre-Ecotone L1 fee overhead; 0 once Ecotone rules apply. */
  overhead: bigint;
  /** L1 fee scalar: a plain number before Ecotone, a versioned encoding after (specs system-config.md "Post-Ecotone Scalar Encoding"). */
  scalar: bigint;
  /** L2 block gas limit. */
  gasLimit: bigint;
  /** Holocene: EIP-1559 denominator (u32). */
  eip1559Denominator?: number;
  /** Holocene: EIP-1559 elasticity (u32). */
  eip1559Elasticity?: number;
  /** Isthmus: operator fee scalar (u32). */
  operatorFeeScalar?: bigint;
  /** Isthmus: operator fee constant (u64). */
  operatorFeeConstant?: bigint;
  /** Jovian: minimum base fee (u64). */
  minBaseFee?: bigint;
  /** Jovian: DA footprint gas scalar (u16) as set on L1; 0 or unset means 400 in the L1-info deposit. */
  daFootprintGasScalar?: bigint;
}

/** Stable codes of {@link SystemConfigError}. */
export const SystemConfigErrorCode = {
  /** A block at the genesis number whose hash is not the rollup's genesis hash. */
  GENESIS_HASH_MISMATCH: "SYSTEM_CONFIG_GENESIS_HASH_MISMATCH",
  /** An L2 block (after genesis) without transactions: it has no L1-info deposit. */
  NO_L1_INFO_TX: "SYSTEM_CONFIG_NO_L1_INFO_TX",
  /** An L2 block whose first transaction is not a deposit. */
  FIRST_TX_NOT_DEPOSIT: "SYSTEM_CONFIG_FIRST_TX_NOT_DEPOSIT",
  /** A genesis system config whose values do not parse (hex of the wrong size). */
  INVALID_GENESIS: "SYSTEM_CONFIG_INVALID_GENESIS",
} as const;
/** One of the {@link SystemConfigErrorCode} values. */
export type SystemConfigErrorCode = (typeof SystemConfigErrorCode)[keyof typeof SystemConfigErrorCode];

/** A {@link SystemConfigError}'s code with its metadata (block numbers decimal, hashes 0x hex). */
type SystemConfigErrorType =
  | { code: typeof SystemConfigErrorCode.GENESIS_HASH_MISMATCH; number: string; hash: string; genesisHash: string }
  | { code: typeof SystemConfigErrorCode.NO_L1_INFO_TX; number: string }
  | { code: typeof SystemConfigErrorCode.FIRST_TX_NOT_DEPOSIT; number: string; type: number }
  | { code: typeof SystemConfigErrorCode.INVALID_GENESIS; field: string; value: string };

/** An L2 block or genesis config the SystemConfig cannot be rebuilt from. */
export class SystemConfigError extends TypedError<SystemConfigErrorType> {}

/** A copy of `cfg` with `update` applied (kona updates/*.rs `apply`). The unsafe block signer is not part of the derivation config. */
export function applyConfigUpdate(cfg: SystemConfig, update: ConfigUpdate): SystemConfig {
  switch (update.type) {
    case "batcher":
      return { ...cfg, batcherAddress: update.batcherAddress };
    case "feeScalars":
      return { ...cfg, overhead: update.overhead, scalar: update.scalar };
    case "gasLimit":
      return { ...cfg, gasLimit: update.gasLimit };
    case "unsafeBlockSigner":
      return { ...cfg };
    case "eip1559Params":
      return { ...cfg, eip1559Denominator: update.denominator, eip1559Elasticity: update.elasticity };
    case "operatorFee":
      return { ...cfg, operatorFeeScalar: update.operatorFeeScalar, operatorFeeConstant: update.operatorFeeConstant };
    case "minBaseFee":
      return { ...cfg, minBaseFee: update.minBaseFee };
    case "daFootprintGasScalar":
      return { ...cfg, daFootprintGasScalar: update.daFootprintGasScalar };
  }
}

/** `cfg` with every decoded update applied in order; skipped logs change nothing. */
export function applyConfigUpdates(cfg: SystemConfig, decodings: readonly ConfigUpdateDecoding[]): SystemConfig {
  let out = cfg;
  for (const d of decodings) if (d.kind === "update") out = applyConfigUpdate(out, d.update);
  return out;
}

function genesisHex(field: string, value: string, bytes: number): Uint8Array {
  const b = /^0x[0-9a-fA-F]*$/.test(value) ? fromHex(value) : undefined;
  if (b === undefined || b.length !== bytes) {
    throw new SystemConfigError({ code: SystemConfigErrorCode.INVALID_GENESIS, field, value }, `genesis system config ${field} ${value} is not ${bytes} bytes of hex`);
  }
  return b;
}

function toBigInt(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytesToHex(b));
}

/** The SystemConfig at rollup genesis (a network's `genesis.systemConfig`: pre-Ecotone overhead and scalar). */
export function genesisSystemConfig(genesis: RollupGenesis["systemConfig"]): SystemConfig {
  return {
    batcherAddress: genesisHex("batcherAddress", genesis.batcherAddress, 20),
    overhead: toBigInt(genesisHex("overhead", genesis.overhead, 32)),
    scalar: toBigInt(genesisHex("scalar", genesis.scalar, 32)),
    gasLimit: genesis.gasLimit,
  };
}

/** What {@link systemConfigFromL2Block} reads of an L2 block (an @ethereumjs `Block` of the chain fits). */
export interface L2BlockForSystemConfig {
  header: { number: bigint; timestamp: bigint; gasLimit: bigint; extraData: Uint8Array; hash(): Uint8Array };
  /** The block's transactions; only the first (the L1-info deposit) is read. */
  transactions: readonly { type: number; data: Uint8Array }[];
}

/** What {@link systemConfigFromL2Block} reads of the rollup config (a built-in `OpNetwork` fits). */
export interface SystemConfigRollupConfig extends OpForkSchedule {
  genesis: Pick<RollupGenesis, "l2" | "systemConfig">;
}

/**
 * The SystemConfig in force for the L2 block after `block`, rebuilt from `block` itself (kona
 * utils.rs `to_system_config`): the genesis config for the genesis block (whose hash must match);
 * otherwise batcher, scalars, operator fee and DA footprint scalar from its L1-info deposit, the
 * gas limit from its header, and EIP-1559 parameters (Holocene+) and the minimum base fee (Jovian+)
 * from its `extraData`. Ecotone-or-later L1-info scalars are re-encoded as a version-1 scalar
 * (equivalent to version 0 when the blob scalar is 0); operator fee fields are set from Isthmus on
 * (0 on the Isthmus activation block, whose deposit still has the Ecotone layout) and the DA
 * footprint scalar only from a Jovian-layout deposit.
 * @throws SystemConfigError for a genesis hash mismatch or a block without an L1-info deposit first;
 *   L1InfoCalldataError / Eip1559ParamsError when its deposit calldata or `extraData` is malformed.
 */
export function systemConfigFromL2Block(block: L2BlockForSystemConfig, cfg: SystemConfigRollupConfig): SystemConfig {
  const h = block.header;
  if (h.number === cfg.genesis.l2.number) {
    const hash = h.hash();
    const genesisHash = genesisHex("genesis.l2.hash", cfg.genesis.l2.hash, 32);
    if (!bytesEqual(hash, genesisHash)) {
      const type = { code: SystemConfigErrorCode.GENESIS_HASH_MISMATCH, number: h.number.toString(), hash: bytesToHex(hash), genesisHash: bytesToHex(genesisHash) } as const;
      throw new SystemConfigError(type, `block ${h.number} is at the genesis number but its hash ${type.hash} is not the genesis hash ${type.genesisHash}`);
    }
    return genesisSystemConfig(cfg.genesis.systemConfig);
  }
  const first = block.transactions[0];
  if (first === undefined) {
    throw new SystemConfigError({ code: SystemConfigErrorCode.NO_L1_INFO_TX, number: h.number.toString() }, `L2 block ${h.number} has no transactions, so no L1-info deposit`);
  }
  if (first.type !== DEPOSIT_TX_TYPE) {
    const message = `the first transaction of L2 block ${h.number} has type ${first.type}, an L1-info deposit (0x7e) expected`;
    throw new SystemConfigError({ code: SystemConfigErrorCode.FIRST_TX_NOT_DEPOSIT, number: h.number.toString(), type: first.type }, message);
  }
  const { variant, values } = decodeL1InfoCalldata(first.data);
  const out: SystemConfig = {
    batcherAddress: values.batcherHash.slice(12),
    overhead: variant === "bedrock" ? (values.l1FeeOverhead ?? 0n) : 0n,
    scalar:
      variant === "bedrock"
        ? (values.l1FeeScalar ?? 0n)
        : (BigInt(ECOTONE_SCALAR_VERSION) << 248n) | ((values.blobBaseFeeScalar ?? 0n) << 32n) | (values.baseFeeScalar ?? 0n),
    gasLimit: h.gasLimit,
  };
  const fork = opForkAt(cfg, h.timestamp);
  if (fork >= OpFork.holocene) {
    const params = decodeOpExtraData(h.extraData, fork);
    out.eip1559Denominator = params.denominator;
    out.eip1559Elasticity = params.elasticity;
    if (params.minBaseFee !== undefined) out.minBaseFee = params.minBaseFee;
  }
  if (fork >= OpFork.isthmus) {
    out.operatorFeeScalar = values.operatorFeeScalar ?? 0n;
    out.operatorFeeConstant = values.operatorFeeConstant ?? 0n;
  }
  if (variant === "jovian") out.daFootprintGasScalar = values.daFootprintGasScalar;
  return out;
}

/** The payload-attribute fields the SystemConfig sets for an L2 block. */
interface SystemConfigAttributes {
  gasLimit: bigint;
  /** Holocene+: denominator u32 ++ elasticity u32; all zero on the first Holocene block. Absent before Holocene. */
  eip1559Params?: Uint8Array;
  /** Jovian+: the minimum base fee (0 when never set). Absent before Jovian. */
  minBaseFee?: bigint;
}

/**
 * The payload-attribute fields `cfg` sets for the L2 block at `timestamp` whose parent is at
 * `parentTimestamp` (kona system/config.rs `eip_1559_params`, attributes/stateful.rs): the gas
 * limit; from Holocene `eip1559Params` — all zero on the first Holocene block (the engine then
 * uses the chain's Canyon constants), else the configured values (unset reads 0); from Jovian
 * `minBaseFee` (unset reads 0).
 */
export function systemConfigAttributes(cfg: SystemConfig, forks: OpForkSchedule, parentTimestamp: bigint, timestamp: bigint): SystemConfigAttributes {
  const out: SystemConfigAttributes = { gasLimit: cfg.gasLimit };
  const fork = opForkAt(forks, timestamp);
  if (fork >= OpFork.holocene) {
    const params = new Uint8Array(EIP1559_PARAMS_LENGTH);
    if (opForkAt(forks, parentTimestamp) >= OpFork.holocene) {
      const view = new DataView(params.buffer);
      view.setUint32(0, cfg.eip1559Denominator ?? 0, false);
      view.setUint32(4, cfg.eip1559Elasticity ?? 0, false);
    }
    out.eip1559Params = params;
  }
  if (fork >= OpFork.jovian) out.minBaseFee = cfg.minBaseFee ?? 0n;
  return out;
}
