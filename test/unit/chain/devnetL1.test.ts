/**
 * The built-in local L1 (`--network devnet-l1`): a deterministic genesis (pinned hash), a plain
 * Ethereum chain (no OP config) with Shanghai, Cancun and Prague at genesis, the L2 devnet's dev
 * accounts, the EIP-4788 / EIP-2935 system contracts, and `--network devnet-l1` resolving to it.
 */
import { bytesToHex } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { genesisHashOf, resolveGenesis } from "../../../src/blockchain/genesisSource.js";
import { commonFromGenesis, opConfigOf } from "../../../src/chain/chainSpec.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { DEVNET_L1_GENESIS_TIMESTAMP, devnetL1Genesis } from "../../../src/chain/devnetL1.js";
import { allocEntries } from "../../../src/chain/genesis.js";
import { BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS } from "../../../src/chain/op/predeploys.js";
import { CONSOLIDATION_REQUEST_CONTRACT, WITHDRAWAL_REQUEST_CONTRACT } from "../../../src/chain/requestContracts.js";
import { DEV_ACCOUNT_BALANCE_WEI, DEVNET_L1_CHAIN_ID, L1DEV_GAS_LIMIT } from "../../../src/chain/constants.js";
import { BUILTIN_NETWORKS, defaultDatadir, isBuiltinNetwork } from "../../../src/config/options.js";

/** Pinned: any change to the devnet-l1 genesis (bytes or semantics) changes this hash. */
const DEVNET_L1_GENESIS_HASH = "0xcf31d13029a99e2024b8fbaec77358c50e0dea96ef04b52fcc7bf159a1ddac8e";
/** sha256 of the empty string: the requestsHash of a Prague block without requests (EIP-7685). */
const EMPTY_REQUESTS_HASH = "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/**
 * Runtime code hashes of the system contracts: given by the EIPs for EIP-4788 (beacon roots) and
 * EIP-2935 (history storage); of Ethereum mainnet's EIP-7002 (withdrawal requests) and EIP-7251
 * (consolidation requests) code, the bytes geth deploys (`params.WithdrawalQueueCode`, `ConsolidationQueueCode`).
 */
const SYSTEM_CODE_HASHES: Record<string, string> = {
  [BEACON_ROOTS_ADDRESS.toLowerCase()]: "0xf57acd40259872606d76197ef052f3d35588dadf919ee1f0e3cb9b62d3f4b02c",
  [HISTORY_STORAGE_ADDRESS.toLowerCase()]: "0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d",
  [WITHDRAWAL_REQUEST_CONTRACT.toLowerCase()]: "0x0345a365d2f4c5975b9f1599abe0a2ee76b7a3a731bc68781bd04c84e4858f50",
  [CONSOLIDATION_REQUEST_CONTRACT.toLowerCase()]: "0x78c6cb5202685228bbcbfb992b1c4e116c7ec5ef11e25b8e92716cfc628ddd60",
};

describe("devnet-l1 genesis", () => {
  it("is deterministic: the same bytes and the pinned hash on every call", async () => {
    expect(JSON.stringify(devnetL1Genesis())).toBe(JSON.stringify(devnetL1Genesis()));
    expect(await genesisHashOf(devnetL1Genesis())).toBe(DEVNET_L1_GENESIS_HASH);
    expect(BigInt(devnetL1Genesis().timestamp!)).toBe(DEVNET_L1_GENESIS_TIMESTAMP);
  });

  it("is a plain Ethereum chain, chain id 900, with Shanghai, Cancun and Prague at genesis and no Osaka", () => {
    const g = devnetL1Genesis();
    expect(opConfigOf(g)).toBeUndefined();
    expect(Object.keys(g.config).filter((k) => /optimism|bedrock|regolith|canyon|ecotone|isthmus|jovian/i.test(k))).toEqual([]);
    const common = commonFromGenesis(g);
    expect(common.chainId()).toBe(DEVNET_L1_CHAIN_ID);
    common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
    expect(common.hardfork()).toBe("prague");
    for (const eip of [3855, 4788, 4844, 2935, 7685, 7691, 7702]) expect(common.isActivatedEIP(eip), `EIP-${eip}`).toBe(true);
    common.setHardforkBy({ blockNumber: 1_000_000n, timestamp: DEVNET_L1_GENESIS_TIMESTAMP + 10n ** 9n });
    expect(common.hardfork()).toBe("prague");
    expect(common.isActivatedEIP(7594)).toBe(false);
    // Prague's blob schedule: target 6, max 9 blobs per block.
    expect(common.param("maxBlobGasPerBlock")).toBe(9n * 131_072n);
  });

  it("funds the L2 devnet's ten dev accounts and deploys the EIP-4788, EIP-2935, EIP-7002 and EIP-7251 contracts", () => {
    const g = devnetL1Genesis();
    expect(BigInt(g.gasLimit)).toBe(L1DEV_GAS_LIMIT);
    const accounts = devAccounts();
    expect(accounts).toHaveLength(10);
    for (const a of accounts) expect(BigInt(g.alloc[a.address.toLowerCase()]!.balance!)).toBe(DEV_ACCOUNT_BALANCE_WEI);
    const codeHashes: Record<string, string> = {};
    for (const e of allocEntries(g)) if (e.code !== undefined) codeHashes[e.address.toString()] = bytesToHex(keccak_256(e.code));
    expect(codeHashes).toEqual(SYSTEM_CODE_HASHES);
  });

  it("builds a Prague genesis block: blob fields zero, the empty requests hash", async () => {
    const g = devnetL1Genesis();
    const { block } = await Chain.buildGenesis(g, commonFromGenesis(g));
    expect(block.header.timestamp).toBe(DEVNET_L1_GENESIS_TIMESTAMP);
    expect(block.header.blobGasUsed).toBe(0n);
    expect(block.header.excessBlobGas).toBe(0n);
    expect(block.header.baseFeePerGas).toBe(1_000_000_000n);
    expect(bytesToHex(block.header.requestsHash!)).toBe(EMPTY_REQUESTS_HASH);
    expect(bytesToHex(block.header.parentBeaconBlockRoot!)).toBe(`0x${"00".repeat(32)}`);
  });

  it("is the built-in network devnet-l1 (genesis, default datadir)", async () => {
    expect(BUILTIN_NETWORKS).toContain("devnet-l1");
    expect(isBuiltinNetwork("devnet-l1")).toBe(true);
    expect(defaultDatadir("devnet-l1")).toBe("./data/devnet-l1");
    const resolved = await resolveGenesis({ network: "devnet-l1", genesis: undefined, "genesis-url": undefined });
    expect(await genesisHashOf(resolved)).toBe(DEVNET_L1_GENESIS_HASH);
  });
});
