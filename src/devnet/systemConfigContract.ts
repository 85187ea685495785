/**
 * Changing and reading the local rollup's L1 SystemConfig (src/devnet/contracts/SystemConfig.sol):
 * one setter per `ConfigUpdate` kind (types 0–7), sent by the owner, and the getters. Each setter
 * makes the contract emit the `ConfigUpdate` log derivation applies (chain/op/configUpdate.ts
 * `decodeConfigUpdateLog`, derivation/attributesL1.ts `configUpdatesOf`).
 */
import { bytesToHex, hexToBytes, isHexString } from "@ethereumjs/util";
import { createContract } from "micro-eth-signer/abi.js";
import type { ConfigUpdate } from "../chain/op/configUpdate.js";
import type { JsonRpcClient } from "../util/rpcClient.js";
import { checkAddress, checkUint, invalidArgument } from "./args.js";
import { DevnetError, DevnetErrorCode } from "./errors.js";
import { SYSTEM_CONFIG_ARTIFACT } from "./contracts/artifacts.js";
import type { L1TxReceipt } from "./l1Receipt.js";
import { withL1Client, type L1Target } from "./l1Client.js";
import { sendL1Transaction, type L1Key, type L1SendOptions } from "./l1Tx.js";
import { batcherHashOf, ecotoneSystemConfigScalar, type SystemConfigInit } from "./systemConfigInit.js";

/**
 * One SystemConfig change: a {@link ConfigUpdate} as derivation reads it, except the fee scalars,
 * which the contract takes as the two Ecotone scalars (`setGasConfigEcotone`) and emits as the
 * versioned scalar.
 */
export type SystemConfigSetting =
  | Exclude<ConfigUpdate, { type: "feeScalars" }>
  | { type: "feeScalars"; basefeeScalar: number; blobbasefeeScalar: number };

/** The SystemConfig's state as its getters give it (addresses 0x lowercase hex). */
interface SystemConfigState extends Required<SystemConfigInit> {
  owner: string;
  /** The stored batcher hash (0x hex, 32 bytes); `batcher` is its low 20 bytes. */
  batcherHash: string;
  /** Pre-Ecotone overhead (0 in this contract). */
  overhead: bigint;
  /** The versioned Ecotone scalar. */
  scalar: bigint;
}

const systemConfig = createContract(SYSTEM_CONFIG_ARTIFACT.abi);

function addressHex(field: string, address: Uint8Array): string {
  if (!(address instanceof Uint8Array) || address.length !== 20) invalidArgument(field, address, "a 20-byte address");
  return bytesToHex(address);
}

/**
 * The calldata of the setter for `setting`, values checked against the setter's Solidity types
 * (the contract's own checks — gas limit bounds, EIP-1559 values ≥ 1 — are left to it).
 * @throws DevnetError `DEVNET_INVALID_ARGUMENT` for a value that does not fit its type.
 */
function systemConfigSetterCalldata(setting: SystemConfigSetting): Uint8Array {
  switch (setting.type) {
    case "batcher":
      return systemConfig.setBatcherHash.encodeInput(batcherHashOf(addressHex("batcherAddress", setting.batcherAddress)));
    case "feeScalars":
      return systemConfig.setGasConfigEcotone.encodeInput({
        _basefeeScalar: checkUint("basefeeScalar", setting.basefeeScalar, 32),
        _blobbasefeeScalar: checkUint("blobbasefeeScalar", setting.blobbasefeeScalar, 32),
      });
    case "gasLimit":
      return systemConfig.setGasLimit.encodeInput(checkUint("gasLimit", setting.gasLimit, 64));
    case "unsafeBlockSigner":
      return systemConfig.setUnsafeBlockSigner.encodeInput(addressHex("unsafeBlockSigner", setting.unsafeBlockSigner));
    case "eip1559Params":
      return systemConfig.setEIP1559Params.encodeInput({
        _denominator: checkUint("denominator", setting.denominator, 32),
        _elasticity: checkUint("elasticity", setting.elasticity, 32),
      });
    case "operatorFee":
      return systemConfig.setOperatorFeeScalars.encodeInput({
        _operatorFeeScalar: checkUint("operatorFeeScalar", setting.operatorFeeScalar, 32),
        _operatorFeeConstant: checkUint("operatorFeeConstant", setting.operatorFeeConstant, 64),
      });
    case "minBaseFee":
      return systemConfig.setMinBaseFee.encodeInput(checkUint("minBaseFee", setting.minBaseFee, 64));
    case "daFootprintGasScalar":
      return systemConfig.setDAFootprintGasScalar.encodeInput(checkUint("daFootprintGasScalar", setting.daFootprintGasScalar, 16));
  }
}

/** The update derivation reads (under Ecotone rules) from the log the setter for `setting` emits. */
export function configUpdateOfSetting(setting: SystemConfigSetting): ConfigUpdate {
  if (setting.type !== "feeScalars") return setting;
  return { type: "feeScalars", overhead: 0n, scalar: ecotoneSystemConfigScalar(setting.basefeeScalar, setting.blobbasefeeScalar) };
}

/**
 * Changes one value of the SystemConfig at `systemConfigAddress`: sends its setter signed with
 * `ownerKey` and returns the successful L1 receipt, whose `ConfigUpdate` log derivation applies.
 * @throws DevnetError `DEVNET_L1_CALL_REVERTED` when the contract refuses (not the owner, a value out
 *   of its bounds), `DEVNET_L1_TX_REVERTED` (with `l1GasLimit`), `DEVNET_L1_RECEIPT_TIMEOUT`,
 *   `DEVNET_INVALID_ARGUMENT`.
 */
export async function setSystemConfig(
  l1: L1Target,
  ownerKey: L1Key,
  systemConfigAddress: string,
  setting: SystemConfigSetting,
  opts: L1SendOptions = {},
): Promise<L1TxReceipt> {
  const data = systemConfigSetterCalldata(setting);
  const to = checkAddress("systemConfig", systemConfigAddress);
  return withL1Client(l1, (rpc) =>
    sendL1Transaction(rpc, ownerKey, { to, data, errorAbi: SYSTEM_CONFIG_ARTIFACT.abi, ...(opts.l1GasLimit !== undefined ? { gasLimit: opts.l1GasLimit } : {}) }, opts),
  );
}

type Getter = keyof typeof systemConfig & keyof SystemConfigState;

/** The getters {@link readSystemConfig} calls, in the order it reads their answers. */
const GETTERS: readonly Getter[] = [
  "owner",
  "batcherHash",
  "overhead",
  "scalar",
  "basefeeScalar",
  "blobbasefeeScalar",
  "gasLimit",
  "unsafeBlockSigner",
  "eip1559Denominator",
  "eip1559Elasticity",
  "operatorFeeScalar",
  "operatorFeeConstant",
  "minBaseFee",
  "daFootprintGasScalar",
];

async function get(rpc: JsonRpcClient, to: string, name: Getter, blockTag: string): Promise<unknown> {
  const method = systemConfig[name] as unknown as { encodeInput(): Uint8Array; decodeOutput(b: Uint8Array): unknown };
  const out = await rpc.call<string>("eth_call", [{ to, data: bytesToHex(method.encodeInput()) }, blockTag]);
  if (typeof out !== "string" || !isHexString(out)) {
    throw new DevnetError({ code: DevnetErrorCode.BAD_RPC_ANSWER, method: "eth_call", value: String(out) }, `eth_call ${name}() on ${to}: 0x-hex return data expected, got ${JSON.stringify(out)}`);
  }
  return method.decodeOutput(hexToBytes(out));
}

/** The SystemConfig's state at `blockTag` (default latest), read through its getters (`eth_call`). */
export async function readSystemConfig(l1: L1Target, systemConfigAddress: string, blockTag = "latest"): Promise<SystemConfigState> {
  const to = checkAddress("systemConfig", systemConfigAddress);
  return withL1Client(l1, async (rpc) => {
    const read = (name: Getter): Promise<unknown> => get(rpc, to, name, blockTag);
    const [owner, batcherHash, overhead, scalar, basefeeScalar, blobbasefeeScalar, gasLimit, unsafeBlockSigner, eip1559Denominator, eip1559Elasticity, operatorFeeScalar, operatorFeeConstant, minBaseFee, daFootprintGasScalar] =
      await Promise.all(GETTERS.map(read));
    const hash = bytesToHex(batcherHash as Uint8Array);
    return {
      owner: String(owner).toLowerCase(),
      batcherHash: hash,
      batcher: `0x${hash.slice(26)}`,
      overhead: overhead as bigint,
      scalar: scalar as bigint,
      basefeeScalar: Number(basefeeScalar),
      blobbasefeeScalar: Number(blobbasefeeScalar),
      gasLimit: gasLimit as bigint,
      unsafeBlockSigner: String(unsafeBlockSigner).toLowerCase(),
      eip1559Denominator: Number(eip1559Denominator),
      eip1559Elasticity: Number(eip1559Elasticity),
      operatorFeeScalar: operatorFeeScalar as bigint,
      operatorFeeConstant: operatorFeeConstant as bigint,
      minBaseFee: minBaseFee as bigint,
      daFootprintGasScalar: daFootprintGasScalar as bigint,
    };
  });
}
