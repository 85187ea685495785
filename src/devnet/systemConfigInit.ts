/**
 * The values the local rollup's SystemConfig contract starts with (its constructor argument), and
 * the same values in the forms the rollup needs them: the genesis system config of `rollup.json`
 * (`RollupGenesis.systemConfig`) and derivation's `SystemConfig`. The contract stores exactly these
 * values, so the rollup's genesis system config equals the contract's state from its deployment on.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import type { RollupGenesis } from "../chain/op/networks.js";
import type { SystemConfig } from "../chain/op/systemConfig.js";
import { ECOTONE_SCALAR_VERSION } from "../chain/op/l1InfoTx.js";
import { checkAddress, checkUint, invalidArgument } from "./args.js";

/**
 * The initial SystemConfig values (addresses 0x hex). The Holocene, Isthmus and Jovian values are
 * derivation's {@link SystemConfig} fields; optional values default to 0, and the EIP-1559 pair is
 * both set (each ≥ 1) or both 0/absent (unset: the chain's defaults apply).
 */
export interface SystemConfigInit
  extends Pick<SystemConfig, "eip1559Denominator" | "eip1559Elasticity" | "operatorFeeScalar" | "operatorFeeConstant" | "minBaseFee" | "daFootprintGasScalar"> {
  /** The batcher's address (stored as its left-padded `batcherHash`). */
  batcher: string;
  /** Ecotone base fee scalar (u32). */
  basefeeScalar: number;
  /** Ecotone blob base fee scalar (u32). */
  blobbasefeeScalar: number;
  /** L2 block gas limit (the contract accepts 21,000,000 to 500,000,000). */
  gasLimit: bigint;
  /** Signer of unsafe L2 blocks. */
  unsafeBlockSigner: string;
}

/** The batcher hash of an address: the address left-padded to 32 bytes (specs system-config.md `batcherHash`). */
export function batcherHashOf(address: string): Uint8Array {
  const out = new Uint8Array(32);
  out.set(hexToBytes(checkAddress("batcher", address) as `0x${string}`), 12);
  return out;
}

/** The versioned fee scalar the contract stores for Ecotone scalars: version byte 1, blob scalar in bytes [24,28), base scalar in [28,32). */
export function ecotoneSystemConfigScalar(basefeeScalar: number, blobbasefeeScalar: number): bigint {
  const base = checkUint("basefeeScalar", basefeeScalar, 32);
  const blob = checkUint("blobbasefeeScalar", blobbasefeeScalar, 32);
  return (BigInt(ECOTONE_SCALAR_VERSION) << 248n) | (blob << 32n) | base;
}

/** The EIP-1559 pair of `init` checked as the contract checks it: both ≥ 1, or both unset. */
function eip1559Of(init: SystemConfigInit): { denominator: number; elasticity: number } | undefined {
  const denominator = Number(checkUint("eip1559Denominator", init.eip1559Denominator ?? 0, 32));
  const elasticity = Number(checkUint("eip1559Elasticity", init.eip1559Elasticity ?? 0, 32));
  if (denominator === 0 && elasticity === 0) return undefined;
  if (denominator === 0 || elasticity === 0) invalidArgument("eip1559Params", `${denominator}/${elasticity}`, "a denominator and an elasticity both at least 1, or both unset");
  return { denominator, elasticity };
}

/** The constructor's `InitialConfig` tuple (field names as in SystemConfig.sol), every value range-checked. */
export function systemConfigConstructorConfig(init: SystemConfigInit): {
  batcherHash: Uint8Array;
  basefeeScalar: bigint;
  blobbasefeeScalar: bigint;
  gasLimit: bigint;
  unsafeBlockSigner: string;
  eip1559Denominator: bigint;
  eip1559Elasticity: bigint;
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
  minBaseFee: bigint;
  daFootprintGasScalar: bigint;
} {
  const eip1559 = eip1559Of(init);
  return {
    batcherHash: batcherHashOf(init.batcher),
    basefeeScalar: checkUint("basefeeScalar", init.basefeeScalar, 32),
    blobbasefeeScalar: checkUint("blobbasefeeScalar", init.blobbasefeeScalar, 32),
    gasLimit: checkUint("gasLimit", init.gasLimit, 64),
    unsafeBlockSigner: checkAddress("unsafeBlockSigner", init.unsafeBlockSigner),
    eip1559Denominator: BigInt(eip1559?.denominator ?? 0),
    eip1559Elasticity: BigInt(eip1559?.elasticity ?? 0),
    operatorFeeScalar: checkUint("operatorFeeScalar", init.operatorFeeScalar ?? 0n, 32),
    operatorFeeConstant: checkUint("operatorFeeConstant", init.operatorFeeConstant ?? 0n, 64),
    minBaseFee: checkUint("minBaseFee", init.minBaseFee ?? 0n, 64),
    daFootprintGasScalar: checkUint("daFootprintGasScalar", init.daFootprintGasScalar ?? 0n, 16),
  };
}

/**
 * The genesis system config of the rollup (`rollup.json` `genesis.system_config`) for a SystemConfig
 * deployed with `init`: the batcher, overhead 0 and the versioned Ecotone scalar the contract stores,
 * and the gas limit.
 */
export function rollupGenesisSystemConfig(init: SystemConfigInit): RollupGenesis["systemConfig"] {
  return {
    batcherAddress: checkAddress("batcher", init.batcher),
    overhead: bytesToHex(new Uint8Array(32)),
    scalar: `0x${ecotoneSystemConfigScalar(init.basefeeScalar, init.blobbasefeeScalar).toString(16).padStart(64, "0")}`,
    gasLimit: checkUint("gasLimit", init.gasLimit, 64),
  };
}

/** Derivation's {@link SystemConfig} for a SystemConfig contract in its `init` state (every field the contract holds). */
export function derivationSystemConfig(init: SystemConfigInit): SystemConfig {
  const eip1559 = eip1559Of(init);
  return {
    batcherAddress: batcherHashOf(init.batcher).slice(12),
    overhead: 0n,
    scalar: ecotoneSystemConfigScalar(init.basefeeScalar, init.blobbasefeeScalar),
    gasLimit: checkUint("gasLimit", init.gasLimit, 64),
    ...(eip1559 !== undefined ? { eip1559Denominator: eip1559.denominator, eip1559Elasticity: eip1559.elasticity } : {}),
    operatorFeeScalar: checkUint("operatorFeeScalar", init.operatorFeeScalar ?? 0n, 32),
    operatorFeeConstant: checkUint("operatorFeeConstant", init.operatorFeeConstant ?? 0n, 64),
    minBaseFee: checkUint("minBaseFee", init.minBaseFee ?? 0n, 64),
    daFootprintGasScalar: checkUint("daFootprintGasScalar", init.daFootprintGasScalar ?? 0n, 16),
  };
}
