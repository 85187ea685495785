/**
 * The built-in development network (`--network devnet`): a deterministic genesis (the same
 * bytes on every machine, hence the same genesis hash) with every fork through Prague active
 * at block 0, the ten prefunded accounts of the anvil/hardhat test mnemonic, and the system
 * contracts a post-merge Prague chain needs.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT, DEV_ACCOUNT_BALANCE_WEI, DEV_ACCOUNT_COUNT, DEV_MNEMONIC } from "../config/constants.js";
import type { GenesisAccount, GenesisJson } from "./genesis.js";

/**
 * Timestamp of the devnet genesis: 0x6710cc00 = 1729154048 = 2024-10-17T08:34:08Z. Fixed (not
 * "now") so the genesis hash is the same everywhere; any value in the past works, since the
 * first block produced simply takes the current time.
 */
export const DEVNET_GENESIS_TIMESTAMP = "0x6710cc00";

/** `extraData` of the devnet genesis: the UTF-8 bytes of "basalt devnet". */
export const DEVNET_EXTRA_DATA = `0x${bytesToHex(utf8ToBytes("basalt devnet"))}`;

/** Base fee of the genesis block: 1 gwei (geth's `params.InitialBaseFee`). */
const GENESIS_BASE_FEE = "0x3b9aca00";

/** BIP-44 path prefix of Ethereum accounts; account i is `${DEV_HD_PATH}/i`. */
export const DEV_HD_PATH = "m/44'/60'/0'/0";

/** EIP-4788 beacon block root contract (Cancun). */
export const BEACON_ROOTS_ADDRESS = "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02";
/** EIP-2935 historical block hashes contract (Prague). */
export const HISTORY_STORAGE_ADDRESS = "0x0000F90827F1C53a10cb7A02335B175320002935";
/** EIP-7002 execution-layer withdrawal requests contract (Prague). */
export const WITHDRAWAL_REQUEST_ADDRESS = "0x00000961Ef480Eb55e80D19ad83579A64c007002";
/** EIP-7251 consolidation requests contract (Prague). */
export const CONSOLIDATION_REQUEST_ADDRESS = "0x0000BBdDc7CE488642fb579F8B00f3a590007251";

/**
 * Runtime bytecode of the system contracts, exactly as deployed on mainnet (copied from the
 * execution-apis Prague test genesis).
 */
export const SYSTEM_CONTRACT_CODE: Readonly<Record<string, string>> = {
  [BEACON_ROOTS_ADDRESS]:
    "0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500",
  [HISTORY_STORAGE_ADDRESS]:
    "0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500",
  [WITHDRAWAL_REQUEST_ADDRESS]:
    "0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd",
  [CONSOLIDATION_REQUEST_ADDRESS]:
    "0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd",
};

/** A prefunded devnet account. */
export interface DevAccount {
  /** EIP-55 checksummed address. */
  address: string;
  /** 0x-prefixed lowercase 32-byte private key. */
  privateKey: string;
}

/** EIP-55 checksum of a 20-byte address given as lowercase hex without 0x. */
function checksum(lowerHex: string): string {
  const hash = bytesToHex(keccak_256(utf8ToBytes(lowerHex)));
  let out = "0x";
  for (let i = 0; i < lowerHex.length; i++) {
    const c = lowerHex[i] as string;
    out += parseInt(hash[i] as string, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

let accounts: readonly DevAccount[] | undefined;

/**
 * The devnet's prefunded accounts: keys derived from `DEV_MNEMONIC` at BIP-44 path
 * `m/44'/60'/0'/0/i` for i in 0..DEV_ACCOUNT_COUNT-1 (the anvil/hardhat accounts; the first is
 * 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266). Addresses are EIP-55 checksummed, private keys
 * lowercase hex. Derived once (memoized); each call returns fresh copies.
 */
export function devAccounts(): DevAccount[] {
  if (accounts === undefined) {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC));
    const list: DevAccount[] = [];
    for (let i = 0; i < DEV_ACCOUNT_COUNT; i++) {
      const key = root.derive(`${DEV_HD_PATH}/${i}`).privateKey;
      if (key === null) throw new Error(`dev account ${i}: no private key derived`);
      const pub = secp256k1.getPublicKey(key, false);
      const address = bytesToHex(keccak_256(pub.subarray(1)).subarray(12));
      list.push({ address: checksum(address), privateKey: `0x${bytesToHex(key)}` });
    }
    accounts = list;
  }
  return accounts.map((a) => ({ ...a }));
}

/** Quantity hex of a bigint. */
function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

/**
 * The devnet genesis (geth format): chain id `DEVNET_CHAIN_ID`, every fork through Prague at
 * genesis (post-merge from block 0), gas limit `DEVNET_GAS_LIMIT`, base fee 1 gwei, and an
 * alloc of the {@link devAccounts} (`DEV_ACCOUNT_BALANCE_WEI` each) plus the EIP-4788, EIP-2935,
 * EIP-7002 and EIP-7251 system contracts (mainnet code, nonce 1). Alloc keys are lowercase
 * 0x-prefixed addresses. Deterministic; returns a fresh object on every call.
 */
export function devnetGenesis(): GenesisJson {
  const alloc: Record<string, GenesisAccount> = {};
  for (const a of devAccounts()) alloc[a.address.toLowerCase()] = { balance: hex(DEV_ACCOUNT_BALANCE_WEI) };
  for (const [address, code] of Object.entries(SYSTEM_CONTRACT_CODE)) {
    alloc[address.toLowerCase()] = { balance: "0x0", nonce: "0x1", code };
  }
  return {
    config: {
      chainId: Number(DEVNET_CHAIN_ID),
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      arrowGlacierBlock: 0,
      grayGlacierBlock: 0,
      mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0,
      terminalTotalDifficultyPassed: true,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      depositContractAddress: "0x0000000000000000000000000000000000000000",
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
        prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      },
    },
    nonce: "0x0",
    timestamp: DEVNET_GENESIS_TIMESTAMP,
    extraData: DEVNET_EXTRA_DATA,
    gasLimit: hex(DEVNET_GAS_LIMIT),
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    number: "0x0",
    gasUsed: "0x0",
    parentHash: `0x${"00".repeat(32)}`,
    baseFeePerGas: GENESIS_BASE_FEE,
    excessBlobGas: "0x0",
    blobGasUsed: "0x0",
    alloc,
  };
}
