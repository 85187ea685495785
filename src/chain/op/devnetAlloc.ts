/**
 * The OP predeploy part of basalt's OP devnet genesis alloc.
 *
 * The OP devnet activates every OP fork through Jovian at genesis, so no network-upgrade transaction ever runs
 * (a fork active at genesis has no activation block) and the Canyon create2Deployer hook never fires: the genesis
 * state itself must already look like a chain that went through all of those upgrades. This module provides that
 * state for the contracts the execution layer and fee tooling rely on.
 *
 * No proxies: on a real OP chain each `0x4200…` predeploy is an ERC-1967 proxy whose implementation lives
 * elsewhere. The devnet puts the implementation's runtime code directly at the predeploy address. This is
 * behaviour-preserving for everything here because none of these implementations relies on an initializer or on
 * proxy-only storage; where an upgrade transaction (or constructor) would have written storage, that storage is
 * written explicitly below (GasPriceOracle fork flags, WETH9 metadata). Fee-vault constructor arguments are baked
 * into their runtime code as immutables (recipients documented per entry).
 */
import {
  FEE_VAULT_BASE_GENESIS_CODE,
  L2_TO_L1_MESSAGE_PASSER_BASE_GENESIS_CODE,
  SEQUENCER_FEE_VAULT_BASE_GENESIS_CODE,
  WETH9_BASE_GENESIS_CODE,
  WETH9_BASE_GENESIS_STORAGE,
} from "./bytecode/baseGenesis.js";
import { GAS_PRICE_ORACLE_JOVIAN_RUNTIME_CODE } from "./bytecode/gasPriceOracleJovian.js";
import { L1_BLOCK_JOVIAN_RUNTIME_CODE } from "./bytecode/l1BlockJovian.js";
import { OPERATOR_FEE_VAULT_ISTHMUS_RUNTIME_CODE } from "./bytecode/operatorFeeVaultIsthmus.js";
import { EIP2935_RUNTIME_CODE, EIP4788_RUNTIME_CODE } from "./bytecode/systemContracts.js";
import {
  BASE_FEE_VAULT_ADDRESS,
  BEACON_ROOTS_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  CREATE2_DEPLOYER_ADDRESS,
  GAS_PRICE_ORACLE_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  L1_BLOCK_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
  WETH9_ADDRESS,
} from "./predeploys.js";

/** One account of a geth-style genesis alloc (quantities and bytes as 0x hex). */
export interface OpGenesisAllocAccount {
  code?: string;
  storage?: Record<string, string>;
  balance?: string;
  nonce?: string;
}

/**
 * Storage slot of the GasPriceOracle fork flags: `isEcotone`, `isFjord`, `isIsthmus`, `isJovian` are `bool`s
 * packed into slot 0, one byte each from the low-order end (read by the Jovian GasPriceOracle as
 * `sload(0) >> (8 * i) & 0xff`; set by `setEcotone`/`setFjord`/`setIsthmus`/`setJovian`).
 */
const GAS_PRICE_ORACLE_FLAGS_SLOT = 0n;

/** Byte index of each flag inside {@link GAS_PRICE_ORACLE_FLAGS_SLOT}, in declaration order of the contract. */
const GAS_PRICE_ORACLE_FLAG_BYTES = { isEcotone: 0, isFjord: 1, isIsthmus: 2, isJovian: 3 } as const;

/**
 * Value of {@link GAS_PRICE_ORACLE_FLAGS_SLOT} after the Ecotone, Fjord, Isthmus and Jovian upgrade deposits
 * ran `setEcotone()`, `setFjord()`, `setIsthmus()`, `setJovian()`: all four flags true, i.e. 0x01010101.
 */
export const GAS_PRICE_ORACLE_ALL_FORKS_FLAGS = Object.values(GAS_PRICE_ORACLE_FLAG_BYTES).reduce((acc, i) => acc | (1n << BigInt(8 * i)), 0n);

/** Account nonce of a contract created by CREATE (EIP-161), as the EIP-4788/EIP-2935 upgrade deployments leave it. */
const CREATED_CONTRACT_NONCE = "0x1";

/** 32-byte 0x hex of a storage slot or word. */
function word(n: bigint): string {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

/** Lowercase alloc key of a checksummed address. */
function key(address: string): string {
  return address.toLowerCase();
}

/** Lowercase copy of a code hex string. */
function code(hex: string): string {
  return hex.toLowerCase();
}

let cached: Readonly<Record<string, Readonly<OpGenesisAllocAccount>>> | undefined;

function build(): Record<string, OpGenesisAllocAccount> {
  return {
    // L1Block, Jovian version (1.7.0; code hash 0x5f885ca8…): setL1BlockValuesJovian (0x3db6be2b) plus the older
    // setters; storage layout read by op-revm (slots 1, 3, 5, 6, 7, 8). No initializer; the first L1-info deposit
    // of block 1 fills it.
    [key(L1_BLOCK_ADDRESS)]: { balance: "0x0", code: code(L1_BLOCK_JOVIAN_RUNTIME_CODE) },
    // GasPriceOracle, Jovian version (1.6.0; code hash 0xe9fc7c96…) with every fork flag set, as the four
    // "GasPriceOracle Set <Fork>" upgrade deposits would have left it.
    [key(GAS_PRICE_ORACLE_ADDRESS)]: {
      balance: "0x0",
      code: code(GAS_PRICE_ORACLE_JOVIAN_RUNTIME_CODE),
      storage: { [word(GAS_PRICE_ORACLE_FLAGS_SLOT)]: word(GAS_PRICE_ORACLE_ALL_FORKS_FLAGS) },
    },
    // L2ToL1MessagePasser 1.0.0 from the Base mainnet genesis; msgNonce (slot 1) starts at 0, so no storage.
    [key(L2_TO_L1_MESSAGE_PASSER_ADDRESS)]: { balance: "0x0", code: code(L2_TO_L1_MESSAGE_PASSER_BASE_GENESIS_CODE) },
    // Fee vaults 1.2.0 from the Base mainnet genesis. Immutables baked in: recipient
    // 0x09C7bAD99688a55a2e83644BFAed09e62bDcCcBA (as on Base mainnet), min withdrawal 2 ETH, network L2.
    [key(SEQUENCER_FEE_VAULT_ADDRESS)]: { balance: "0x0", code: code(SEQUENCER_FEE_VAULT_BASE_GENESIS_CODE) },
    [key(BASE_FEE_VAULT_ADDRESS)]: { balance: "0x0", code: code(FEE_VAULT_BASE_GENESIS_CODE) },
    [key(L1_FEE_VAULT_ADDRESS)]: { balance: "0x0", code: code(FEE_VAULT_BASE_GENESIS_CODE) },
    // OperatorFeeVault 1.0.0 as deployed by the Isthmus upgrade (code hash 0x57dc55c9…): recipient BaseFeeVault,
    // min withdrawal 0, network L2.
    [key(OPERATOR_FEE_VAULT_ADDRESS)]: { balance: "0x0", code: code(OPERATOR_FEE_VAULT_ISTHMUS_RUNTIME_CODE) },
    // WETH9 (not proxied on real chains either) with its name/symbol/decimals storage.
    [key(WETH9_ADDRESS)]: { balance: "0x0", code: code(WETH9_BASE_GENESIS_CODE), storage: { ...WETH9_BASE_GENESIS_STORAGE } },
    // Canyon create2Deployer: code only, nonce 0 (op-geth installs it with SetCode).
    [key(CREATE2_DEPLOYER_ADDRESS)]: { balance: "0x0", code: code(CREATE2_DEPLOYER_CODE) },
    // EIP-4788 / EIP-2935 system contracts as the Ecotone / Isthmus deployment deposits create them.
    [key(BEACON_ROOTS_ADDRESS)]: { balance: "0x0", nonce: CREATED_CONTRACT_NONCE, code: code(EIP4788_RUNTIME_CODE) },
    [key(HISTORY_STORAGE_ADDRESS)]: { balance: "0x0", nonce: CREATED_CONTRACT_NONCE, code: code(EIP2935_RUNTIME_CODE) },
  };
}

/**
 * The OP predeploy accounts of the OP devnet genesis (every fork through Jovian active at genesis), in geth
 * genesis `alloc` format: lowercase 0x address keys; code, balance, nonce and 32-byte storage keys/values as
 * 0x hex. Contains L1Block and GasPriceOracle (Jovian versions, flags set), L2ToL1MessagePasser, the four fee
 * vaults, WETH9, the create2Deployer, and the EIP-4788 / EIP-2935 contracts. Deterministic; built once and
 * returned as a fresh deep copy on every call.
 */
export function opDevnetPredeployAlloc(): Record<string, OpGenesisAllocAccount> {
  if (cached === undefined) cached = build();
  const out: Record<string, OpGenesisAllocAccount> = {};
  for (const [addr, acct] of Object.entries(cached)) {
    out[addr] = { ...acct, ...(acct.storage === undefined ? {} : { storage: { ...acct.storage } }) };
  }
  return out;
}
