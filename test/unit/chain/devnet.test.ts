import { fileURLToPath } from "node:url";
import { existsSync, readFileSync } from "node:fs";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { bytesToHex } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import {
  BEACON_ROOTS_ADDRESS,
  CONSOLIDATION_REQUEST_ADDRESS,
  DEVNET_EXTRA_DATA,
  DEVNET_GENESIS_TIMESTAMP,
  HISTORY_STORAGE_ADDRESS,
  SYSTEM_CONTRACT_CODE,
  WITHDRAWAL_REQUEST_ADDRESS,
  devAccounts,
  devnetGenesis,
} from "../../../src/chain/devnet.js";
import { allocEntries, genesisBlock, validateGenesis } from "../../../src/chain/genesis.js";
import { DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT, DEV_ACCOUNT_BALANCE_WEI, DEV_ACCOUNT_COUNT } from "../../../src/config/constants.js";

async function genesisHash(): Promise<{ hash: string; stateRoot: string; hardfork: string }> {
  const g = devnetGenesis();
  const common = commonFromGenesis(g, "devnet");
  const sm = new MerkleStateManager({ common });
  for (const { address, account, code, storage } of allocEntries(g)) {
    await sm.putAccount(address, account);
    if (code !== undefined) await sm.putCode(address, code);
    for (const [k, v] of storage) await sm.putStorage(address, k, v);
  }
  await sm.flush();
  const root = await sm.getStateRoot();
  const block = genesisBlock(g, common, root);
  return { hash: bytesToHex(block.hash()), stateRoot: bytesToHex(root), hardfork: common.hardfork() };
}

/** Pinned: any change to the devnet genesis (bytes or semantics) changes this hash. */
const DEVNET_GENESIS_HASH = "0x1ac74a5883870125cfb69c33b62c5bd1df7b1e56b94e68a9a2cf7c5b99a3e838";
const DEVNET_STATE_ROOT = "0xf229b072ea37d4d3d3b5257dd7deb470e11b65084a75ccd3cfed89b202bb6c12";

const FIXTURE = fileURLToPath(new URL("../../../../shared/fixtures/execution-apis/prague/genesis.json", import.meta.url));

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
    a.alloc = {};
    expect(Object.keys(devnetGenesis().alloc)).toHaveLength(DEV_ACCOUNT_COUNT + 4);
  });

  it("has the devnet header fields and a Prague-at-genesis config", () => {
    const g = validateGenesis(JSON.parse(JSON.stringify(devnetGenesis())));
    expect(g.config.chainId).toBe(Number(DEVNET_CHAIN_ID));
    for (const k of [
      "homesteadBlock",
      "eip150Block",
      "eip155Block",
      "eip158Block",
      "byzantiumBlock",
      "constantinopleBlock",
      "petersburgBlock",
      "istanbulBlock",
      "muirGlacierBlock",
      "berlinBlock",
      "londonBlock",
      "arrowGlacierBlock",
      "grayGlacierBlock",
      "mergeNetsplitBlock",
      "terminalTotalDifficulty",
      "shanghaiTime",
      "cancunTime",
      "pragueTime",
    ]) {
      expect(g.config[k], k).toBe(0);
    }
    expect(g.config.blobSchedule).toEqual({
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    });
    expect(g.config.depositContractAddress).toBe("0x0000000000000000000000000000000000000000");
    expect(g.timestamp).toBe(DEVNET_GENESIS_TIMESTAMP);
    expect(g.timestamp).toBe("0x6710cc00");
    expect(BigInt(g.gasLimit)).toBe(DEVNET_GAS_LIMIT);
    expect(g.difficulty).toBe("0x0");
    expect(g.baseFeePerGas).toBe("0x3b9aca00");
    expect(g.extraData).toBe(DEVNET_EXTRA_DATA);
    expect(Buffer.from((g.extraData as string).slice(2), "hex").toString("utf8")).toBe("basalt devnet");
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

  it("holds the system contracts with their mainnet code and nonce 1", () => {
    const { alloc } = devnetGenesis();
    // The execution-apis Prague genesis (where the code was copied from), when present.
    const fixture = existsSync(FIXTURE) ? (JSON.parse(readFileSync(FIXTURE, "utf8")) as { alloc: Record<string, { code?: string }> }) : undefined;
    for (const address of [BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS, WITHDRAWAL_REQUEST_ADDRESS, CONSOLIDATION_REQUEST_ADDRESS]) {
      const entry = alloc[address.toLowerCase()];
      expect(entry, address).toBeDefined();
      expect(BigInt(entry?.nonce as string)).toBe(1n);
      expect(entry?.code).toBe(SYSTEM_CONTRACT_CODE[address]);
      if (fixture !== undefined) expect(entry?.code).toBe(fixture.alloc[address.toLowerCase().slice(2)]?.code);
    }
  });

  it("builds a Prague genesis block with a pinned hash", async () => {
    const { hash, stateRoot, hardfork } = await genesisHash();
    expect(hardfork).toBe("prague");
    expect(stateRoot).toBe(DEVNET_STATE_ROOT);
    expect(hash).toBe(DEVNET_GENESIS_HASH);
  });
});
