/**
 * The built-in local L1 (`--network devnet-l1`, the L1 of `basalt devnet rollup`): a plain
 * Ethereum chain (no `optimism` section, so basalt runs it with Ethereum's rules) with a
 * deterministic genesis — every fork through Prague active at genesis, the ten prefunded dev
 * accounts of the L2 devnet ({@link devAccounts}) and the system contracts of Cancun and Prague —
 * so its genesis hash is the same on every machine. Blocks are produced by basalt itself on a
 * slot clock (`sequencer/l1DevProducer.ts`).
 */
import { BLOB_UPDATE_FRACTION_CANCUN, BLOB_UPDATE_FRACTION_PRAGUE, DEVNET_L1_CHAIN_ID, DEV_ACCOUNT_BALANCE_WEI, L1DEV_GAS_LIMIT } from "./constants.js";
import { ETHEREUM_GENESIS_BLOCK_KEYS } from "./chainSpec.js";
import { devAccounts } from "./devnet.js";
import type { GenesisAccount, GenesisJson } from "./genesis.js";
import { EIP2935_RUNTIME_CODE, EIP4788_RUNTIME_CODE } from "./op/bytecode/systemContracts.js";
import { BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS } from "./op/predeploys.js";
import { CONSOLIDATION_REQUEST_CONTRACT, EIP7002_RUNTIME_CODE, EIP7251_RUNTIME_CODE, WITHDRAWAL_REQUEST_CONTRACT } from "./requestContracts.js";

/**
 * Timestamp of the devnet-l1 genesis: 0x67748580 = 1735689600 = 2025-01-01T00:00:00Z. Fixed (not
 * "now") so the genesis hash is the same everywhere. It is also the beacon genesis time: block
 * timestamps are `genesis + slot × seconds per slot`, so the first block produced takes the slot of
 * the current time.
 */
export const DEVNET_L1_GENESIS_TIMESTAMP = 0x67748580n;

/** Base fee of the genesis block: 1 gwei (geth's `params.InitialBaseFee`). */
const GENESIS_BASE_FEE_WEI = 1_000_000_000n;

/**
 * EIP-6110 deposit contract address of the chain config: Ethereum mainnet's. No code lives there on
 * devnet-l1, so no deposit request is ever produced; geth-style configs of a Prague chain name one.
 */
const DEVNET_L1_DEPOSIT_CONTRACT_ADDRESS = "0x00000000219ab540356cBB839Cbe05303d7705Fa";

/** Per-block blob target and maximum of EIP-4844 (Cancun) and EIP-7691 (Prague), with their base-fee update fractions. */
const BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: Number(BLOB_UPDATE_FRACTION_CANCUN) },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: Number(BLOB_UPDATE_FRACTION_PRAGUE) },
} as const;

/** Account nonce of a contract deployed by CREATE (EIP-161), as the system contracts' deployments leave it. */
const CREATED_CONTRACT_NONCE = "0x1";

/** Quantity hex of a bigint. */
function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

/**
 * The devnet-l1 genesis (geth format): chain id `DEVNET_L1_CHAIN_ID` (900); Frontier through Gray
 * Glacier and the merge at block 0, Shanghai, Cancun and Prague at timestamp 0 (no Osaka: blob
 * transactions carry EIP-4844 blob proofs, the "v0" sidecar); Ethereum's blob schedule for
 * Cancun and Prague; gas limit `L1DEV_GAS_LIMIT`; base fee 1 gwei; the {@link devAccounts}
 * with `DEV_ACCOUNT_BALANCE_WEI` each, and the EIP-4788 beacon-roots, EIP-2935 history, EIP-7002
 * withdrawal-request and EIP-7251 consolidation-request contracts at their EIP addresses (the
 * system calls of Cancun and Prague use them).
 *
 * The request contracts must be there (as on Ethereum mainnet and in geth's dev genesis): a Prague
 * block whose EIP-7002 / EIP-7251 contract has no code is invalid. With no validators nothing queues a request,
 * so their end-of-block calls return empty lists and every block's `requestsHash` is that of an
 * empty request list. Deterministic; returns a fresh object on every call.
 */
export function devnetL1Genesis(): GenesisJson {
  const alloc: Record<string, GenesisAccount> = {};
  for (const a of devAccounts()) alloc[a.address.toLowerCase()] = { balance: hex(DEV_ACCOUNT_BALANCE_WEI) };
  alloc[BEACON_ROOTS_ADDRESS.toLowerCase()] = { balance: "0x0", nonce: CREATED_CONTRACT_NONCE, code: EIP4788_RUNTIME_CODE.toLowerCase() };
  alloc[HISTORY_STORAGE_ADDRESS.toLowerCase()] = { balance: "0x0", nonce: CREATED_CONTRACT_NONCE, code: EIP2935_RUNTIME_CODE.toLowerCase() };
  alloc[WITHDRAWAL_REQUEST_CONTRACT.toLowerCase()] = { balance: "0x0", nonce: CREATED_CONTRACT_NONCE, code: EIP7002_RUNTIME_CODE };
  alloc[CONSOLIDATION_REQUEST_CONTRACT.toLowerCase()] = { balance: "0x0", nonce: CREATED_CONTRACT_NONCE, code: EIP7251_RUNTIME_CODE };
  const config: GenesisJson["config"] = { chainId: Number(DEVNET_L1_CHAIN_ID) };
  for (const key of ETHEREUM_GENESIS_BLOCK_KEYS) config[key] = 0;
  Object.assign(config, {
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    shanghaiTime: 0,
    cancunTime: 0,
    pragueTime: 0,
    depositContractAddress: DEVNET_L1_DEPOSIT_CONTRACT_ADDRESS,
    blobSchedule: { cancun: { ...BLOB_SCHEDULE.cancun }, prague: { ...BLOB_SCHEDULE.prague } },
  });
  return {
    config,
    nonce: "0x0",
    timestamp: hex(DEVNET_L1_GENESIS_TIMESTAMP),
    extraData: "0x",
    gasLimit: hex(L1DEV_GAS_LIMIT),
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    number: "0x0",
    gasUsed: "0x0",
    parentHash: `0x${"00".repeat(32)}`,
    baseFeePerGas: hex(GENESIS_BASE_FEE_WEI),
    excessBlobGas: "0x0",
    blobGasUsed: "0x0",
    alloc,
  };
}
