/**
 * The built-in OP devnet: dev accounts, the op-geth-format genesis (OP config, predeploys,
 * Jovian extraData) and its pinned genesis hash.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis, opConfigOf } from "../../../src/chain/chainSpec.js";
import {
  DEVNET_EIP1559_DENOMINATOR,
  DEVNET_EIP1559_DENOMINATOR_CANYON,
  DEVNET_EIP1559_ELASTICITY,
  DEVNET_GENESIS_TIMESTAMP,
  devAccounts,
  devnetGenesis,
  DevnetForkTimesError,
} from "../../../src/chain/devnet.js";
import { validateGenesis } from "../../../src/chain/genesis.js";
import { decodeOpExtraData } from "../../../src/chain/op/eip1559.js";
import { OpFork, opForkAt } from "../../../src/chain/op/forks.js";
import {
  BASE_FEE_VAULT_ADDRESS,
  BEACON_ROOTS_ADDRESS,
  CREATE2_DEPLOYER_ADDRESS,
  GAS_PRICE_ORACLE_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  L1_BLOCK_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
  WETH9_ADDRESS,
} from "../../../src/chain/op/predeploys.js";
import { DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT, DEVNET_MIN_BASE_FEE_WEI, DEV_ACCOUNT_BALANCE_WEI, DEV_ACCOUNT_COUNT } from "../../../src/chain/constants.js";

/** Pinned: any change to the devnet genesis (bytes or semantics) changes this hash. */
const DEVNET_GENESIS_HASH = "0xd9043420003833a38dd2605e48b57235a9325e6657b529203488e532cde46241";
const DEVNET_STATE_ROOT = "0xc8fa4d432bc481fc1eaf290d507a6f4f8ff1829a31a56636993010093e633b2e";
/** Root of the empty trie: the Isthmus genesis withdrawalsRoot (L2ToL1MessagePasser storage is empty). */
const EMPTY_TRIE_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
/** sha256 of the empty string: the requestsHash of an Isthmus block (OP chains have no EL requests). */
const EMPTY_REQUESTS_HASH = "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * Runtime code hashes the OP upgrade specs require (also pinned by op-alloy/kona and op-e2e):
 * L1Block and GasPriceOracle of Jovian, OperatorFeeVault of Isthmus, create2Deployer of Canyon.
 */
const SPEC_CODE_HASHES: Record<string, string> = {
  [L1_BLOCK_ADDRESS]: "0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1",
  [GAS_PRICE_ORACLE_ADDRESS]: "0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614",
  [OPERATOR_FEE_VAULT_ADDRESS]: "0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971",
  [CREATE2_DEPLOYER_ADDRESS]: "0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2",
};

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The execution-apis Prague genesis, which carries the mainnet EIP-4788 / EIP-2935 contracts. */
const PRAGUE_FIXTURE = path.join(REPO, "..", "shared", "fixtures", "execution-apis", "prague", "genesis.json");

function codeHash(code: string | undefined): string {
  return bytesToHex(keccak_256(hexToBytes((code ?? "0x") as `0x${string}`)));
}

describe("devAccounts", () => {
  it("derives the anvil/hardhat accounts from the test mnemonic", () => {
    const accounts = devAccounts();
    expect(accounts).toHaveLength(DEV_ACCOUNT_COUNT);
    expect(accounts[0]).toEqual({
      address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    });
    expect(accounts[1]?.address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(accounts[9]).toEqual({
      address: "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
      privateKey: "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
    });
    expect(new Set(accounts.map((a) => a.address)).size).toBe(DEV_ACCOUNT_COUNT);
    for (const a of accounts) {
      expect(a.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(a.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });

  it("is memoized but hands out copies", () => {
    const a = devAccounts();
    (a[0] as { address: string }).address = "mutated";
    a.pop();
    expect(devAccounts()).toHaveLength(DEV_ACCOUNT_COUNT);
    expect(devAccounts()[0]?.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  });
});

describe("devnetGenesis", () => {
  it("is deterministic and a fresh object per call", () => {
    const a = devnetGenesis();
    const b = devnetGenesis();
    expect(a).not.toBe(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const predeploys = Object.keys(a.alloc).length - DEV_ACCOUNT_COUNT;
    a.alloc = {};
    expect(Object.keys(devnetGenesis().alloc)).toHaveLength(DEV_ACCOUNT_COUNT + predeploys);
  });

  it("is an OP Stack chain (op-geth config) with every OP fork through Base's Cobalt at genesis", () => {
    const g = validateGenesis(JSON.parse(JSON.stringify(devnetGenesis())));
    expect(g.config.chainId).toBe(Number(DEVNET_CHAIN_ID));
    expect(g.config.chainId).toBe(845337);
    expect(g.config.bedrockBlock).toBe(0);
    const forkTimes = ["regolithTime", "canyonTime", "deltaTime", "ecotoneTime", "fjordTime"];
    forkTimes.push("graniteTime", "holoceneTime", "isthmusTime", "jovianTime", "azulTime", "berylTime", "cobaltTime");
    for (const k of forkTimes) {
      expect(g.config[k], k).toBe(0);
    }
    expect(g.config.optimism).toEqual({ eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 });
    expect([DEVNET_EIP1559_ELASTICITY, DEVNET_EIP1559_DENOMINATOR, DEVNET_EIP1559_DENOMINATOR_CANYON]).toEqual([6, 50, 250]);

    const op = opConfigOf(g);
    expect(op).toBeDefined();
    expect(opForkAt(op!, 0n)).toBe(OpFork.cobalt);
    expect(opForkAt(op!, BigInt(DEVNET_GENESIS_TIMESTAMP))).toBe(OpFork.cobalt);
    expect(op!.eip1559Elasticity).toBe(6);
    expect(op!.eip1559DenominatorCanyon).toBe(250);
    // The Ethereum fork the OP chain executes with: Azul = Osaka.
    expect(commonFromGenesis(g).hardfork()).toBe("osaka");
  });

  it("activates Beryl and Cobalt at the times given (Cobalt with Beryl by default), never Cobalt first", () => {
    const later = devnetGenesis({ beryl: 1_900_000_000n });
    expect([later.config.azulTime, later.config.berylTime, later.config.cobaltTime]).toEqual([0, 1_900_000_000, 1_900_000_000]);
    const op = opConfigOf(validateGenesis(JSON.parse(JSON.stringify(later))))!;
    expect(opForkAt(op, 1_899_999_999n)).toBe(OpFork.azul);
    expect(opForkAt(op, 1_900_000_000n)).toBe(OpFork.cobalt);
    const both = devnetGenesis({ beryl: 1_900_000_000n, cobalt: 1_900_000_100n });
    expect(opForkAt(opConfigOf(validateGenesis(JSON.parse(JSON.stringify(both))))!, 1_900_000_050n)).toBe(OpFork.beryl);
    expect(() => devnetGenesis({ beryl: 1_900_000_100n, cobalt: 1_900_000_000n })).toThrow(DevnetForkTimesError);
  });

  it("has the devnet header fields: fixed timestamp, gas limit, 1 gwei base fee, SequencerFeeVault coinbase", () => {
    const g = devnetGenesis();
    expect(g.timestamp).toBe(DEVNET_GENESIS_TIMESTAMP);
    expect(g.timestamp).toBe("0x6710cc00");
    expect(BigInt(g.gasLimit)).toBe(DEVNET_GAS_LIMIT);
    expect(g.difficulty).toBe("0x0");
    expect(g.baseFeePerGas).toBe("0x3b9aca00");
    expect(g.coinbase?.toLowerCase()).toBe(SEQUENCER_FEE_VAULT_ADDRESS.toLowerCase());
  });

  it("carries Jovian extraData: 17 bytes, version 1, denominator 250, elasticity 6, the devnet minimum base fee", () => {
    const g = devnetGenesis();
    const extra = hexToBytes(g.extraData as `0x${string}`);
    expect(extra).toHaveLength(17);
    expect(extra[0]).toBe(1);
    const u = (n: bigint | number, bytes: number): string => n.toString(16).padStart(bytes * 2, "0");
    expect(g.extraData).toBe(`0x01${u(250, 4)}${u(6, 4)}${u(DEVNET_MIN_BASE_FEE_WEI, 8)}`);
    expect(decodeOpExtraData(extra, OpFork.jovian)).toEqual({ denominator: 250, elasticity: 6, minBaseFee: DEVNET_MIN_BASE_FEE_WEI });
    expect(DEVNET_MIN_BASE_FEE_WEI).toBeGreaterThan(0n);
  });

  it("funds the ten dev accounts", () => {
    const { alloc } = devnetGenesis();
    for (const a of devAccounts()) {
      const entry = alloc[a.address.toLowerCase()];
      expect(entry, a.address).toBeDefined();
      expect(BigInt(entry?.balance as string)).toBe(DEV_ACCOUNT_BALANCE_WEI);
      expect(entry?.code).toBeUndefined();
    }
  });

  it("holds the OP predeploys (L1Block, GasPriceOracle, fee vaults, …) with the spec-required code", () => {
    const { alloc } = devnetGenesis();
    for (const address of [
      L1_BLOCK_ADDRESS,
      GAS_PRICE_ORACLE_ADDRESS,
      L2_TO_L1_MESSAGE_PASSER_ADDRESS,
      SEQUENCER_FEE_VAULT_ADDRESS,
      BASE_FEE_VAULT_ADDRESS,
      L1_FEE_VAULT_ADDRESS,
      OPERATOR_FEE_VAULT_ADDRESS,
      WETH9_ADDRESS,
      CREATE2_DEPLOYER_ADDRESS,
    ]) {
      const entry = alloc[address.toLowerCase()];
      expect(entry, address).toBeDefined();
      expect((entry?.code ?? "0x").length, address).toBeGreaterThan(100);
      expect(BigInt(entry?.balance ?? "0x0"), address).toBe(0n);
    }
    for (const [address, hash] of Object.entries(SPEC_CODE_HASHES)) {
      expect(codeHash(alloc[address.toLowerCase()]?.code), address).toBe(hash);
    }
    // The vault addresses the devnet sequencer pays fees to.
    expect(BASE_FEE_VAULT_ADDRESS.toLowerCase()).toBe("0x4200000000000000000000000000000000000019");
    expect(SEQUENCER_FEE_VAULT_ADDRESS.toLowerCase()).toBe("0x4200000000000000000000000000000000000011");
    expect(L1_FEE_VAULT_ADDRESS.toLowerCase()).toBe("0x420000000000000000000000000000000000001a");
    expect(OPERATOR_FEE_VAULT_ADDRESS.toLowerCase()).toBe("0x420000000000000000000000000000000000001b");
    // GasPriceOracle: isEcotone/isFjord/isIsthmus/isJovian all set, one byte each in slot 0.
    const gpoSlot0 = alloc[GAS_PRICE_ORACLE_ADDRESS.toLowerCase()]?.storage?.[`0x${"00".repeat(32)}`];
    expect(BigInt(gpoSlot0 ?? "0x0")).toBe(0x01010101n);
  });

  it("holds the EIP-4788 and EIP-2935 contracts with their mainnet code and nonce 1", () => {
    const { alloc } = devnetGenesis();
    // Runtime code hashes of the Ecotone / Isthmus deployments (specs ecotone, isthmus derivation.md).
    expect(codeHash(alloc[BEACON_ROOTS_ADDRESS.toLowerCase()]?.code)).toBe("0xf57acd40259872606d76197ef052f3d35588dadf919ee1f0e3cb9b62d3f4b02c");
    expect(codeHash(alloc[HISTORY_STORAGE_ADDRESS.toLowerCase()]?.code)).toBe("0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d");
    const fixture = existsSync(PRAGUE_FIXTURE)
      ? (JSON.parse(readFileSync(PRAGUE_FIXTURE, "utf8")) as { alloc: Record<string, { code?: string }> })
      : undefined;
    for (const address of [BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS]) {
      const entry = alloc[address.toLowerCase()];
      expect(entry, address).toBeDefined();
      expect(BigInt(entry?.nonce as string)).toBe(1n);
      if (fixture !== undefined) expect(entry?.code).toBe(fixture.alloc[address.toLowerCase().slice(2)]?.code);
    }
    // No EIP-7002 / EIP-7251 request contracts: OP chains have no execution-layer requests.
    expect(alloc["0x00000961ef480eb55e80d19ad83579a64c007002"]).toBeUndefined();
    expect(alloc["0x0000bbddc7ce488642fb579f8b00f3a590007251"]).toBeUndefined();
  });

  it("builds an Isthmus/Jovian genesis block with a pinned hash", async () => {
    const g = devnetGenesis();
    const { block } = await Chain.buildGenesis(g, commonFromGenesis(g));
    const h = block.header;
    expect(bytesToHex(h.stateRoot)).toBe(DEVNET_STATE_ROOT);
    expect(bytesToHex(block.hash())).toBe(DEVNET_GENESIS_HASH);
    expect(h.number).toBe(0n);
    expect(h.baseFeePerGas).toBe(1_000_000_000n);
    expect(bytesToHex(h.extraData)).toBe(g.extraData);
    expect(bytesToHex(h.coinbase.bytes)).toBe(SEQUENCER_FEE_VAULT_ADDRESS.toLowerCase());
    expect(bytesToHex(h.withdrawalsRoot!)).toBe(EMPTY_TRIE_ROOT);
    expect(bytesToHex(h.requestsHash!)).toBe(EMPTY_REQUESTS_HASH);
    expect(h.blobGasUsed).toBe(0n);
    expect(h.excessBlobGas).toBe(0n);
    expect(bytesToHex(h.parentBeaconBlockRoot!)).toBe(`0x${"00".repeat(32)}`);
  });
});
