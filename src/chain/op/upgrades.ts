/**
 * Network-upgrade deposit transactions: the deposits an OP node inserts, after the L1-info deposit and
 * the user deposits, into the activation block of Ecotone (6 txs), Fjord (3), Isthmus (8) and Jovian (5).
 *
 * Sources (fields, order, gas, calldata, intents):
 * - specs `specs/protocol/{ecotone,fjord,isthmus}/derivation.md` "Network upgrade automation transactions"
 *   (ethereum-optimism/specs@fd72cf79);
 * - kona `crates/protocol/hardforks/src/{ecotone,fjord,isthmus,jovian}.rs` (op-rs/kona@cdb9be24), whose
 *   `bytecode/{ecotone,fjord,isthmus}_tx_N.hex` hold the fully encoded transactions;
 * - Jovian: op-node `op-node/rollup/derive/jovian_upgrade_transactions.go` (ethereum-optimism/optimism@6411f627)
 *   and base/base `crates/consensus/upgrades/src/jovian.rs` (@98a8db8d), which agree with each other and with
 *   kona@cdb9be24. NOTE: specs `jovian/derivation.md` @fd72cf79 lists different intents for four of the five
 *   Jovian deposits ("Jovian: L1Block Deployment", "…GasPriceOracle…"); the node implementations, which
 *   produced the Jovian blocks of Base and OP Mainnet, use "Jovian: L1 Block …" / "Jovian: Gas Price Oracle …",
 *   and so does this module.
 *
 * Encoding (specs deposits.md, implemented by `depositTx.ts`): `0x7E ++ rlp([sourceHash, from, to, mint, value, gas,
 * isSystemTx, data])`, with `to` the empty string for a contract creation, zero integers and `false` as the empty
 * string (0x80). Upgrade deposits use source-hash domain 2: `keccak256(uint256(2) ++ keccak256(utf8(intent)))`
 * (`sourceHash.ts` `upgradeSourceHash`).
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes, createAddressFromString, toChecksumAddress } from "@ethereumjs/util";
import { keccak256 } from "../../util/keccak.js";
import { fromHex } from "../../util/bytes.js";
import { TypedError } from "../../util/errors.js";
import { GAS_PRICE_ORACLE_ECOTONE_CREATION_CODE } from "./bytecode/gasPriceOracleEcotone.js";
import { GAS_PRICE_ORACLE_FJORD_CREATION_CODE } from "./bytecode/gasPriceOracleFjord.js";
import { GAS_PRICE_ORACLE_ISTHMUS_CREATION_CODE } from "./bytecode/gasPriceOracleIsthmus.js";
import { GAS_PRICE_ORACLE_JOVIAN_CREATION_CODE } from "./bytecode/gasPriceOracleJovian.js";
import { L1_BLOCK_ECOTONE_CREATION_CODE } from "./bytecode/l1BlockEcotone.js";
import { L1_BLOCK_ISTHMUS_CREATION_CODE } from "./bytecode/l1BlockIsthmus.js";
import { L1_BLOCK_JOVIAN_CREATION_CODE } from "./bytecode/l1BlockJovian.js";
import { OPERATOR_FEE_VAULT_ISTHMUS_CREATION_CODE } from "./bytecode/operatorFeeVaultIsthmus.js";
import { EIP2935_CREATION_CODE, EIP4788_CREATION_CODE } from "./bytecode/systemContracts.js";
import { DepositTransaction } from "./depositTx.js";
import { isActivationBlock, type OpForkSchedule } from "./forks.js";
import { GAS_PRICE_ORACLE_ADDRESS, L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR_ADDRESS, OPERATOR_FEE_VAULT_ADDRESS } from "./predeploys.js";
import { upgradeSourceHash } from "./sourceHash.js";

/** The OP forks whose activation block carries network-upgrade deposits, in activation order. */
export const UPGRADE_FORKS = ["ecotone", "fjord", "isthmus", "jovian"] as const;
/** A fork with network-upgrade deposits. */
export type UpgradeFork = (typeof UPGRADE_FORKS)[number];

/** `from` of Ecotone's L1Block deployment (specs ecotone/derivation.md "L1Block Deployment"). */
const ECOTONE_L1_BLOCK_DEPLOYER = "0x4210000000000000000000000000000000000000";
/** `from` of Ecotone's GasPriceOracle deployment (specs ecotone/derivation.md "GasPriceOracle Deployment"). */
const ECOTONE_GAS_PRICE_ORACLE_DEPLOYER = "0x4210000000000000000000000000000000000001";
/** `from` of Fjord's GasPriceOracle deployment (specs fjord/derivation.md "GasPriceOracle Deployment"). */
const FJORD_GAS_PRICE_ORACLE_DEPLOYER = "0x4210000000000000000000000000000000000002";
/** `from` of Isthmus's L1Block deployment (specs isthmus/derivation.md "L1Block deployment"). */
const ISTHMUS_L1_BLOCK_DEPLOYER = "0x4210000000000000000000000000000000000003";
/** `from` of Isthmus's GasPriceOracle deployment (specs isthmus/derivation.md "GasPriceOracle deployment"). */
const ISTHMUS_GAS_PRICE_ORACLE_DEPLOYER = "0x4210000000000000000000000000000000000004";
/** `from` of Isthmus's OperatorFeeVault deployment (specs isthmus/derivation.md "Operator fee vault deployment"). */
const ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYER = "0x4210000000000000000000000000000000000005";
/** `from` of Jovian's L1Block deployment (op-node `L1BlockJovianDeployerAddress`; specs jovian/derivation.md). */
const JOVIAN_L1_BLOCK_DEPLOYER = "0x4210000000000000000000000000000000000006";
/** `from` of Jovian's GasPriceOracle deployment (op-node `GasPriceOracleJovianDeployerAddress`). */
const JOVIAN_GAS_PRICE_ORACLE_DEPLOYER = "0x4210000000000000000000000000000000000007";
/** `from` of the EIP-4788 deployment: the sender of the EIP's keyless deployment transaction. */
const EIP4788_DEPLOYER = "0x0B799C86a49DEeb90402691F1041aa3AF2d3C875";
/** `from` of the EIP-2935 deployment: the sender of the EIP's keyless deployment transaction. */
const EIP2935_DEPLOYER = "0x3462413Af4609098e1E27A490f554f260213D685";
/**
 * `from` of the proxy-update deposits: the zero address, which the predeploy `Proxy` contract treats like its
 * admin (`proxyCallIfNotAdmin` accepts `msg.sender == address(0)`, so `eth_call`/deposits can upgrade).
 */
const PROXY_UPGRADE_CALLER = "0x0000000000000000000000000000000000000000";

/** Gas limits of the upgrade deposits (specs {fork}/derivation.md; Jovian: op-node and base/base). */
const GAS = {
  ecotoneL1BlockDeploy: 375_000n,
  ecotoneGasPriceOracleDeploy: 1_000_000n,
  /** Every ERC-1967 `upgradeTo` proxy update. */
  proxyUpdate: 50_000n,
  ecotoneEnable: 80_000n,
  /** EIP-4788 and EIP-2935 deployments: 0x3d090, "as specified in the EIP". */
  systemContractDeploy: 250_000n,
  fjordGasPriceOracleDeploy: 1_450_000n,
  /** Fjord, Isthmus and Jovian "GasPriceOracle enable" calls. */
  enable: 90_000n,
  isthmusL1BlockDeploy: 425_000n,
  isthmusGasPriceOracleDeploy: 1_625_000n,
  isthmusOperatorFeeVaultDeploy: 500_000n,
  jovianL1BlockDeploy: 447_315n,
  jovianGasPriceOracleDeploy: 1_750_714n,
} as const;

/** One network-upgrade deposit transaction, in structured form. */
interface UpgradeDeposit {
  /** The intent string the source hash is derived from. */
  intent: string;
  /** `keccak256(uint256(2) ++ keccak256(intent))`, 32 bytes. */
  sourceHash: Uint8Array;
  /** Sender (EIP-55 checksummed). */
  from: string;
  /** Recipient (EIP-55 checksummed); absent for a contract creation. */
  to?: string;
  /** ETH minted on L2 (always 0 for upgrades). */
  mint: bigint;
  /** ETH transferred (always 0 for upgrades). */
  value: bigint;
  /** Gas limit. */
  gas: bigint;
  /** Always false post-Regolith. */
  isSystemTx: boolean;
  /** Calldata, or init code for a creation. */
  data: Uint8Array;
}

/** Stable codes of {@link OpUpgradeError}. */
const OpUpgradeErrorCode = {
  /** An address that is not 0x and 40 hex digits. */
  BAD_ADDRESS: "OP_UPGRADE_BAD_ADDRESS",
  /** A negative account nonce. */
  BAD_NONCE: "OP_UPGRADE_BAD_NONCE",
  /** A fork that has no network-upgrade transactions. */
  UNKNOWN_FORK: "OP_UPGRADE_UNKNOWN_FORK",
} as const;

/** An {@link OpUpgradeError}'s code with its metadata (`nonce` decimal). */
type OpUpgradeErrorType =
  | { code: typeof OpUpgradeErrorCode.BAD_ADDRESS; address: string }
  | { code: typeof OpUpgradeErrorCode.BAD_NONCE; nonce: string }
  | { code: typeof OpUpgradeErrorCode.UNKNOWN_FORK; fork: string };

/** Raised for malformed input to the upgrade-transaction helpers. */
export class OpUpgradeError extends TypedError<OpUpgradeErrorType> {}

/** 20 address bytes of a 0x-prefixed hex address; throws {@link OpUpgradeError} if it is not 20 bytes of hex. */
function addressBytes(address: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw new OpUpgradeError({ code: OpUpgradeErrorCode.BAD_ADDRESS, address }, `expected a 0x-prefixed 20-byte hex address, got "${address}"`);
  }
  return fromHex(address);
}

/** First 4 bytes of keccak256 of a Solidity function signature. */
function selector(signature: string): Uint8Array {
  return keccak256(new TextEncoder().encode(signature)).slice(0, 4);
}

/**
 * Address of the contract created by `from` with account nonce `nonce` (CREATE):
 * the last 20 bytes of `keccak256(rlp([from, nonce]))` (Yellow Paper §7 "Contract Creation"; go-ethereum `crypto.CreateAddress`),
 * EIP-55 checksummed.
 */
export function contractCreationAddress(from: string, nonce: bigint): string {
  if (nonce < 0n) throw new OpUpgradeError({ code: OpUpgradeErrorCode.BAD_NONCE, nonce: nonce.toString() }, `nonce must be >= 0, got ${nonce}`);
  const hash = keccak256(RLP.encode([addressBytes(from), bigIntToUnpaddedBytes(nonce)]));
  return toChecksumAddress(`0x${Buffer.from(hash.slice(12)).toString("hex")}`);
}

/** Calldata of ERC-1967 `upgradeTo(address implementation)`: selector 0x3659cfe6 ++ the address left-padded to 32 bytes. */
export function upgradeToCalldata(implementation: string): Uint8Array {
  const out = new Uint8Array(36);
  out.set(selector("upgradeTo(address)"), 0);
  out.set(addressBytes(implementation), 16);
  return out;
}

/** One deposit of an upgrade, before the source hash is computed. */
interface DepositSpec {
  intent: string;
  from: string;
  to?: string;
  gas: bigint;
  data: Uint8Array;
}

/** A contract deployment by a fresh deployer account (nonce 0). */
function deploy(intent: string, from: string, gas: bigint, creationCode: string): DepositSpec {
  return { intent, from, gas, data: fromHex(creationCode) };
}

/** An `upgradeTo` call on predeploy proxy `proxy`, pointing it at what `deployer` created with nonce 0. */
function proxyUpdate(intent: string, proxy: string, deployer: string): DepositSpec {
  return { intent, from: PROXY_UPGRADE_CALLER, to: proxy, gas: GAS.proxyUpdate, data: upgradeToCalldata(contractCreationAddress(deployer, 0n)) };
}

/** A `GasPriceOracle.set<Fork>()` call from the L1-info depositor. */
function enable(intent: string, signature: string, gas: bigint): DepositSpec {
  return { intent, from: L1_INFO_DEPOSITOR_ADDRESS, to: GAS_PRICE_ORACLE_ADDRESS, gas, data: selector(signature) };
}

/** The deposits of each fork, in block order. */
function depositSpecs(fork: UpgradeFork): DepositSpec[] {
  switch (fork) {
    case "ecotone":
      return [
        deploy("Ecotone: L1 Block Deployment", ECOTONE_L1_BLOCK_DEPLOYER, GAS.ecotoneL1BlockDeploy, L1_BLOCK_ECOTONE_CREATION_CODE),
        deploy(
          "Ecotone: Gas Price Oracle Deployment",
          ECOTONE_GAS_PRICE_ORACLE_DEPLOYER,
          GAS.ecotoneGasPriceOracleDeploy,
          GAS_PRICE_ORACLE_ECOTONE_CREATION_CODE,
        ),
        proxyUpdate("Ecotone: L1 Block Proxy Update", L1_BLOCK_ADDRESS, ECOTONE_L1_BLOCK_DEPLOYER),
        proxyUpdate("Ecotone: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, ECOTONE_GAS_PRICE_ORACLE_DEPLOYER),
        enable("Ecotone: Gas Price Oracle Set Ecotone", "setEcotone()", GAS.ecotoneEnable),
        deploy("Ecotone: beacon block roots contract deployment", EIP4788_DEPLOYER, GAS.systemContractDeploy, EIP4788_CREATION_CODE),
      ];
    case "fjord":
      return [
        deploy(
          "Fjord: Gas Price Oracle Deployment",
          FJORD_GAS_PRICE_ORACLE_DEPLOYER,
          GAS.fjordGasPriceOracleDeploy,
          GAS_PRICE_ORACLE_FJORD_CREATION_CODE,
        ),
        proxyUpdate("Fjord: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, FJORD_GAS_PRICE_ORACLE_DEPLOYER),
        enable("Fjord: Gas Price Oracle Set Fjord", "setFjord()", GAS.enable),
      ];
    case "isthmus":
      return [
        deploy("Isthmus: L1 Block Deployment", ISTHMUS_L1_BLOCK_DEPLOYER, GAS.isthmusL1BlockDeploy, L1_BLOCK_ISTHMUS_CREATION_CODE),
        deploy(
          "Isthmus: Gas Price Oracle Deployment",
          ISTHMUS_GAS_PRICE_ORACLE_DEPLOYER,
          GAS.isthmusGasPriceOracleDeploy,
          GAS_PRICE_ORACLE_ISTHMUS_CREATION_CODE,
        ),
        deploy(
          "Isthmus: Operator Fee Vault Deployment",
          ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYER,
          GAS.isthmusOperatorFeeVaultDeploy,
          OPERATOR_FEE_VAULT_ISTHMUS_CREATION_CODE,
        ),
        proxyUpdate("Isthmus: L1 Block Proxy Update", L1_BLOCK_ADDRESS, ISTHMUS_L1_BLOCK_DEPLOYER),
        proxyUpdate("Isthmus: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, ISTHMUS_GAS_PRICE_ORACLE_DEPLOYER),
        proxyUpdate("Isthmus: Operator Fee Vault Proxy Update", OPERATOR_FEE_VAULT_ADDRESS, ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYER),
        enable("Isthmus: Gas Price Oracle Set Isthmus", "setIsthmus()", GAS.enable),
        deploy("Isthmus: EIP-2935 Contract Deployment", EIP2935_DEPLOYER, GAS.systemContractDeploy, EIP2935_CREATION_CODE),
      ];
    case "jovian":
      return [
        deploy("Jovian: L1 Block Deployment", JOVIAN_L1_BLOCK_DEPLOYER, GAS.jovianL1BlockDeploy, L1_BLOCK_JOVIAN_CREATION_CODE),
        proxyUpdate("Jovian: L1 Block Proxy Update", L1_BLOCK_ADDRESS, JOVIAN_L1_BLOCK_DEPLOYER),
        deploy(
          "Jovian: Gas Price Oracle Deployment",
          JOVIAN_GAS_PRICE_ORACLE_DEPLOYER,
          GAS.jovianGasPriceOracleDeploy,
          GAS_PRICE_ORACLE_JOVIAN_CREATION_CODE,
        ),
        proxyUpdate("Jovian: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, JOVIAN_GAS_PRICE_ORACLE_DEPLOYER),
        enable("Jovian: Gas Price Oracle Set Jovian", "setJovian()", GAS.enable),
      ];
    default:
      throw new OpUpgradeError(
        { code: OpUpgradeErrorCode.UNKNOWN_FORK, fork: String(fork) },
        `no network-upgrade transactions for fork "${String(fork)}"; expected one of ${UPGRADE_FORKS.join(", ")}`,
      );
  }
}

/** Memoized structured deposits per fork (built on first use; callers receive copies). */
const depositCache = new Map<UpgradeFork, readonly UpgradeDeposit[]>();
/** Memoized encodings per fork. */
const encodedCache = new Map<UpgradeFork, readonly Uint8Array[]>();

/** The deposit as a {@link DepositTransaction} (the block-level transaction type). */
function toDepositTransaction(d: UpgradeDeposit): DepositTransaction {
  return new DepositTransaction({
    sourceHash: d.sourceHash.slice(),
    from: createAddressFromString(d.from.toLowerCase()),
    ...(d.to === undefined ? {} : { to: createAddressFromString(d.to.toLowerCase()) }),
    mint: d.mint,
    value: d.value,
    gasLimit: d.gas,
    isSystemTx: d.isSystemTx,
    data: d.data.slice(),
  });
}

function cachedDeposits(fork: UpgradeFork): readonly UpgradeDeposit[] {
  let list = depositCache.get(fork);
  if (list === undefined) {
    list = depositSpecs(fork).map((s) => ({
      intent: s.intent,
      sourceHash: upgradeSourceHash(s.intent),
      from: toChecksumAddress(s.from),
      ...(s.to === undefined ? {} : { to: toChecksumAddress(s.to) }),
      mint: 0n,
      value: 0n,
      gas: s.gas,
      isSystemTx: false,
      data: s.data,
    }));
    depositCache.set(fork, list);
  }
  return list;
}

/**
 * The network-upgrade deposits of `fork`'s activation block, in block order (they follow the L1-info deposit and
 * the user deposits). Ecotone 6, Fjord 3, Isthmus 8, Jovian 5. Returns fresh copies on every call.
 * Throws {@link OpUpgradeError} (`OP_UPGRADE_UNKNOWN_FORK`) for any other fork name.
 */
export function upgradeDeposits(fork: UpgradeFork): UpgradeDeposit[] {
  return cachedDeposits(fork).map((d) => ({ ...d, sourceHash: d.sourceHash.slice(), data: d.data.slice() }));
}

/**
 * The fully encoded (EIP-2718, type 0x7E) network-upgrade transactions of `fork`'s activation block, in block order.
 * Returns fresh copies on every call.
 */
export function upgradeTransactions(fork: UpgradeFork): Uint8Array[] {
  let list = encodedCache.get(fork);
  if (list === undefined) {
    list = cachedDeposits(fork).map((d) => toDepositTransaction(d).serialize());
    encodedCache.set(fork, list);
  }
  return list.map((b) => b.slice());
}

/**
 * The network-upgrade deposits of `fork` as {@link DepositTransaction} objects (fresh instances), in block order:
 * the form a derived or locally built block carries.
 */
export function upgradeDepositTransactions(fork: UpgradeFork): DepositTransaction[] {
  return cachedDeposits(fork).map(toDepositTransaction);
}

/**
 * All network-upgrade transactions of the L2 block at `timestamp` whose parent is at `parentTimestamp`: for each
 * of Ecotone, Fjord, Isthmus, Jovian (in that order) whose activation block this is ({@link isActivationBlock}),
 * that fork's transactions. Mirrors kona `StatefulAttributesBuilder::prepare_payload_attributes`. Empty for
 * blocks that activate nothing, and for genesis (forks active at genesis have no activation block).
 */
export function upgradeTransactionsForBlock(cfg: OpForkSchedule, timestamp: bigint, parentTimestamp: bigint | undefined): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const fork of UPGRADE_FORKS) {
    if (isActivationBlock(cfg, fork, timestamp, parentTimestamp)) out.push(...upgradeTransactions(fork));
  }
  return out;
}
