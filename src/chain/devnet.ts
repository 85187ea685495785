/**
 * The built-in development network (`--network devnet`): an OP Stack chain with a
 * deterministic genesis (the same bytes on every machine, hence the same genesis hash) with
 * every OP fork through Jovian active at block 0, the ten prefunded accounts of the
 * anvil/hardhat test mnemonic, and the OP predeploys.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak256 } from "../util/keccak.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT, DEVNET_MIN_BASE_FEE_WEI, DEV_ACCOUNT_BALANCE_WEI, DEV_ACCOUNT_COUNT, DEV_MNEMONIC } from "./constants.js";

/** Devnet EIP-1559 elasticity: Base mainnet's (6). */
export const DEVNET_EIP1559_ELASTICITY = 6;
/** Devnet EIP-1559 denominator before Canyon (OP default 50; unused, Canyon is active at genesis). */
export const DEVNET_EIP1559_DENOMINATOR = 50;
/** Devnet EIP-1559 denominator from Canyon (OP/Base 250). */
export const DEVNET_EIP1559_DENOMINATOR_CANYON = 250;
import { TypedError } from "../util/errors.js";
import type { GenesisAccount, GenesisJson } from "./genesis.js";
import { encodeJovianExtraData } from "./op/eip1559.js";
import { opDevnetPredeployAlloc } from "./op/devnetAlloc.js";
import { preinstallAlloc } from "./op/preinstalls.js";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "./op/predeploys.js";

/**
 * Timestamp of the devnet genesis: 0x6710cc00 = 1729154048 = 2024-10-17T08:34:08Z. Fixed (not
 * "now") so the genesis hash is the same everywhere; any value in the past works, since the
 * first block produced simply takes the current time.
 */
export const DEVNET_GENESIS_TIMESTAMP = "0x6710cc00";

/** Base fee of the genesis block: 1 gwei (geth's `params.InitialBaseFee`). */
const GENESIS_BASE_FEE = "0x3b9aca00";

/** BIP-44 path prefix of Ethereum accounts; account i is `${DEV_HD_PATH}/i`. */
export const DEV_HD_PATH = "m/44'/60'/0'/0";

/** A prefunded devnet account. */
export interface DevAccount {
  /** EIP-55 checksummed address. */
  address: string;
  /** 0x-prefixed lowercase 32-byte private key. */
  privateKey: string;
}

/** EIP-55 checksum of a 20-byte address given as lowercase hex without 0x. */
function checksum(lowerHex: string): string {
  const hash = bytesToHex(keccak256(utf8ToBytes(lowerHex)));
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
      const address = bytesToHex(keccak256(pub.subarray(1)).subarray(12));
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
 * When Base's own upgrades activate on the devnet (L2 timestamps, seconds): each at genesis
 * unless given, so the devnet runs what Base mainnet runs; tests and developers set them to
 * activate an upgrade mid-chain (`--dev.beryl-time`, `--dev.cobalt-time`).
 */
export interface DevnetForkTimes {
  beryl?: bigint;
  cobalt?: bigint;
  /**
   * Include the OP Stack preinstalls (Multicall3, the CREATE2 proxies, Safe, Permit2, the 4337
   * entry points, CreateX); default true. False gives the genesis of devnet datadirs created
   * before basalt had them, which a node still opens (blockchain/genesisSource.ts).
   */
  preinstalls?: boolean;
}

/** Stable code of {@link DevnetForkTimesError}. */
const DevnetForkTimesErrorCode = { FORK_ORDER: "DEVNET_FORK_ORDER" } as const;
/** A {@link DevnetForkTimesError}'s code with its metadata. */
type DevnetForkTimesErrorType = { code: typeof DevnetForkTimesErrorCode.FORK_ORDER; beryl: string; cobalt: string };

/** A devnet fork schedule that cannot be: an upgrade before the one it builds on. */
export class DevnetForkTimesError extends TypedError<DevnetForkTimesErrorType> {
  constructor(beryl: bigint, cobalt: bigint) {
    super({ code: DevnetForkTimesErrorCode.FORK_ORDER, beryl: beryl.toString(), cobalt: cobalt.toString() }, `devnet fork times: Cobalt at ${cobalt} is before Beryl at ${beryl}; expected --dev.cobalt-time at or after --dev.beryl-time`);
  }
}

/**
 * The devnet genesis (op-geth format): an OP Stack chain with chain id `DEVNET_CHAIN_ID`, every
 * OP fork from Regolith through Base's Azul active at genesis (so no upgrade transactions ever
 * run), Base's Beryl and Cobalt at genesis or at the times `forks` gives, Base's EIP-1559 parameters (elasticity 6, denominators 50/250), gas limit
 * `DEVNET_GAS_LIMIT`, base fee 1 gwei, and an alloc of the {@link devAccounts}
 * (`DEV_ACCOUNT_BALANCE_WEI` each) plus the OP predeploys (L1Block, GasPriceOracle, fee vaults,
 * L2ToL1MessagePasser, WETH9, create2 deployer, EIP-4788 and EIP-2935 contracts) and the OP Stack
 * preinstalls at their canonical addresses (chain/op/preinstalls.ts). The genesis
 * `extraData` is the Jovian encoding of those parameters (with the devnet's minimum base fee),
 * which the first block's base fee is computed from. The L2ToL1MessagePasser starts with empty
 * storage, so the Isthmus `withdrawalsRoot` of genesis is the empty-trie root. Deterministic;
 * returns a fresh object on every call.
 */
export function devnetGenesis(forks: DevnetForkTimes = {}): GenesisJson {
  const beryl = forks.beryl ?? 0n;
  const cobalt = forks.cobalt ?? (forks.beryl ?? 0n);
  if (cobalt < beryl) throw new DevnetForkTimesError(beryl, cobalt);
  const alloc: Record<string, GenesisAccount> = {};
  for (const a of devAccounts()) alloc[a.address.toLowerCase()] = { balance: hex(DEV_ACCOUNT_BALANCE_WEI) };
  for (const [address, acct] of Object.entries(opDevnetPredeployAlloc())) alloc[address.toLowerCase()] = acct;
  if (forks.preinstalls !== false) Object.assign(alloc, preinstallAlloc(DEVNET_CHAIN_ID));
  return {
    config: {
      chainId: Number(DEVNET_CHAIN_ID),
      bedrockBlock: 0,
      regolithTime: 0,
      canyonTime: 0,
      deltaTime: 0,
      ecotoneTime: 0,
      fjordTime: 0,
      graniteTime: 0,
      holoceneTime: 0,
      isthmusTime: 0,
      jovianTime: 0,
      azulTime: 0,
      berylTime: Number(beryl),
      cobaltTime: Number(cobalt),
      optimism: {
        eip1559Elasticity: DEVNET_EIP1559_ELASTICITY,
        eip1559Denominator: DEVNET_EIP1559_DENOMINATOR,
        eip1559DenominatorCanyon: DEVNET_EIP1559_DENOMINATOR_CANYON,
      },
    },
    nonce: "0x0",
    timestamp: DEVNET_GENESIS_TIMESTAMP,
    extraData: bytesToHex0x(encodeJovianExtraData(DEVNET_EIP1559_DENOMINATOR_CANYON, DEVNET_EIP1559_ELASTICITY, DEVNET_MIN_BASE_FEE_WEI)),
    gasLimit: hex(DEVNET_GAS_LIMIT),
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: SEQUENCER_FEE_VAULT_ADDRESS.toLowerCase(),
    number: "0x0",
    gasUsed: "0x0",
    parentHash: `0x${"00".repeat(32)}`,
    baseFeePerGas: GENESIS_BASE_FEE,
    excessBlobGas: "0x0",
    blobGasUsed: "0x0",
    alloc,
  };
}

function bytesToHex0x(b: Uint8Array): string {
  return `0x${bytesToHex(b)}`;
}
