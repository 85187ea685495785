/**
 * Deploys the local rollup's L1 contracts — the OptimismPortal (deposits) and the SystemConfig
 * (rollup parameters, owned by `systemConfigOwner`, starting from the given values) — to any L1
 * JSON-RPC (anvil, basalt's own L1) with two signed creation transactions from the deployer, and
 * reports where they are and from which L1 block both exist (the rollup's L1 starting point can be
 * no earlier: derivation reads deposits and config updates from the contracts' logs).
 */
import { deployContract } from "micro-eth-signer/abi.js";
import { hexToBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import { checkAddress } from "./args.js";
import { OPTIMISM_PORTAL_ARTIFACT, SYSTEM_CONFIG_ARTIFACT } from "./contracts/artifacts.js";
import { DevnetError, DevnetErrorCode } from "./errors.js";
import type { L1TxReceipt } from "./l1Receipt.js";
import { withL1Client, type L1Target } from "./l1Client.js";
import { l1AddressOf, submitL1Transaction, successfulL1Receipt, type L1Key, type L1WaitOptions } from "./l1Tx.js";
import { systemConfigConstructorConfig, type SystemConfigInit } from "./systemConfigInit.js";

/** What {@link deployRollupContracts} deploys and how. */
interface DeployRollupContractsOptions extends L1WaitOptions {
  /** Key of the account that sends (and pays for) both creations. */
  deployerKey: L1Key;
  /** Owner of the SystemConfig (0x hex): the only account that may change it. Default: the deployer. */
  systemConfigOwner?: string;
  /** The SystemConfig's initial values (the rollup's genesis system config). */
  systemConfig: SystemConfigInit;
}

/** Where the rollup's L1 contracts are. */
export interface RollupContracts {
  /** OptimismPortal (the rollup config's `deposit_contract_address`), 0x lowercase hex. */
  optimismPortal: string;
  /** SystemConfig (the rollup config's `l1_system_config_address`), 0x lowercase hex. */
  systemConfig: string;
  /** The first L1 block in which both contracts exist (the later of the two creation blocks). */
  deployedAt: { number: bigint; hash: string };
}

/** The creation code of the SystemConfig with its constructor arguments (owner, initial values). */
function systemConfigCreationCode(owner: string, init: SystemConfigInit): Uint8Array {
  const code = deployContract(SYSTEM_CONFIG_ARTIFACT.abi, SYSTEM_CONFIG_ARTIFACT.bytecode, {
    _owner: checkAddress("systemConfigOwner", owner),
    _config: systemConfigConstructorConfig(init),
  });
  return hexToBytes(code as `0x${string}`);
}

/** The created contract's address of a creation receipt. */
function createdAddress(receipt: L1TxReceipt): string {
  if (receipt.contractAddress === undefined) {
    const message = `L1 creation ${receipt.transactionHash} has a receipt without contractAddress: expected the created contract's address`;
    throw new DevnetError({ code: DevnetErrorCode.NO_CONTRACT_ADDRESS, txHash: receipt.transactionHash }, message);
  }
  return receipt.contractAddress;
}

/**
 * Deploys the OptimismPortal and the SystemConfig to the L1 at `l1` (a JSON-RPC URL or client):
 * two EIP-1559 creation transactions from the deployer with consecutive nonces (its pending count),
 * sent together and waited for (`eth_getTransactionReceipt` polled every `pollIntervalMs` until
 * `receiptTimeoutMs`). The SystemConfig's constructor stores `systemConfig` and emits one
 * `ConfigUpdate` per value, so its state is the rollup's genesis system config.
 * @throws DevnetError `DEVNET_L1_CALL_REVERTED` (a constructor check failed: gas limit out of bounds,
 *   half-set EIP-1559 parameters), `DEVNET_L1_RECEIPT_TIMEOUT` (the L1 is not mining),
 *   `DEVNET_INVALID_ARGUMENT`; `UpstreamRpcError` when the L1 rejects a transaction (no funds).
 */
export async function deployRollupContracts(l1: L1Target, opts: DeployRollupContractsOptions): Promise<RollupContracts> {
  const deployer = l1AddressOf(opts.deployerKey);
  const owner = opts.systemConfigOwner ?? deployer;
  const systemConfigCode = systemConfigCreationCode(owner, opts.systemConfig);
  const log: Logger | undefined = opts.logger?.child({ subsystem: "devnet" });
  return withL1Client(l1, async (rpc) => {
    const portalTx = await submitL1Transaction(rpc, opts.deployerKey, { data: hexToBytes(OPTIMISM_PORTAL_ARTIFACT.bytecode), errorAbi: OPTIMISM_PORTAL_ARTIFACT.abi }, log);
    const configTx = await submitL1Transaction(
      rpc,
      opts.deployerKey,
      { data: systemConfigCode, nonce: portalTx.nonce + 1n, errorAbi: SYSTEM_CONFIG_ARTIFACT.abi },
      log,
    );
    const [portalReceipt, configReceipt] = await Promise.all([successfulL1Receipt(rpc, portalTx.hash, opts), successfulL1Receipt(rpc, configTx.hash, opts)]);
    const last = configReceipt.blockNumber >= portalReceipt.blockNumber ? configReceipt : portalReceipt;
    const contracts: RollupContracts = {
      optimismPortal: createdAddress(portalReceipt),
      systemConfig: createdAddress(configReceipt),
      deployedAt: { number: last.blockNumber, hash: last.blockHash },
    };
    log?.info(
      { optimismPortal: contracts.optimismPortal, systemConfig: contracts.systemConfig, l1Block: contracts.deployedAt.number.toString(), deployer, owner },
      "rollup L1 contracts deployed",
    );
    return contracts;
  });
}
