/**
 * The OP Stack preinstalls on the devnet: every one at its canonical address with nonce 1 and its
 * code; Permit2 with the devnet's chain id and domain separator written into its immutables (the
 * mainnet template is Permit2 on chain 1 as it is); a CREATE2 deployment through the
 * deterministic deployment proxy lands at the address `forge script` computes for
 * `new C{salt: …}()`; Multicall3 answers; and a datadir of the devnet genesis from
 * before the preinstalls is still accepted.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { PERMIT2_ADDRESS, PERMIT2_TEMPLATE_CODE, PREINSTALLS } from "../../src/chain/op/preinstallCode.js";
import { permit2Code } from "../../src/chain/op/preinstalls.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { initGenesis, storedGenesisHash } from "../../src/blockchain/genesisSource.js";
import { Chain } from "../../src/blockchain/chain.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { callMethods } from "../../src/rpc/methods/call.js";
import { stateMethods } from "../../src/rpc/methods/state.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { to0x } from "../../src/util/bytes.js";
import { keccak256 } from "../../src/util/keccak.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { callTable } from "../helpers/methodTable.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-preinstalls-");
const DETERMINISTIC_DEPLOYMENT_PROXY = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11";
/** The proxy's runtime code as every chain has it (Arachnid's deterministic-deployment-proxy). */
const PROXY_CODE = "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";
/** Init code whose contract returns 42 from any call: PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN, deployed by a 12-byte constructor. */
const RUNTIME_42 = "602a60005260206000f3";
const INIT_42 = `0x69${RUNTIME_42}600052600a6016f3`;

const word = (v: bigint): string => v.toString(16).padStart(64, "0");

describe("OP Stack preinstalls on the devnet", () => {
  let dev: SealingDevnet;
  let m: MethodTable;

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    const backend = devBackend(dev);
    m = { ...blockMethods(backend), ...stateMethods(backend), ...callMethods(backend) };
  }, 60_000);

  afterAll(async () => {
    await dev?.close();
  });

  it("holds each preinstall at its address with nonce 1", async () => {
    expect(PREINSTALLS.length).toBe(13);
    for (const p of PREINSTALLS) {
      const info = (await callTable(m, "eth_getAccountInfo", [p.address, "latest"])) as { nonce: string; code: string };
      // The create2Deployer keeps Canyon's form (nonce 0), the others op-deployer's nonce 1.
      expect(info.code, p.name).toBe(p.code);
      expect(info.nonce, p.name).toBe(p.name === "Create2Deployer" ? "0x0" : "0x1");
    }
    expect(PREINSTALLS.find((p) => p.name === "DeterministicDeploymentProxy")!.code).toBe(PROXY_CODE);
    expect(await callTable(m, "eth_getCode", [PERMIT2_ADDRESS, "latest"])).toBe(permit2Code(DEVNET_CHAIN_ID));
  });

  it("Permit2: the template is chain 1's code; the devnet's holds its chain id and domain separator", async () => {
    expect(permit2Code(1n)).toBe(PERMIT2_TEMPLATE_CODE);
    const code = permit2Code(DEVNET_CHAIN_ID);
    expect(code.length).toBe(PERMIT2_TEMPLATE_CODE.length);
    expect(code.slice(2 + 6945 * 2, 2 + 6977 * 2)).toBe(word(DEVNET_CHAIN_ID));
    // DOMAIN_SEPARATOR() (selector 0x3644e515) answers the EIP-712 domain of Permit2 on this chain.
    const typeHash = keccak256(Buffer.from("EIP712Domain(string name,uint256 chainId,address verifyingContract)"));
    const domain = to0x(keccak256(Buffer.concat([typeHash, keccak256(Buffer.from("Permit2")), Buffer.from(word(DEVNET_CHAIN_ID), "hex"), Buffer.from(word(BigInt(PERMIT2_ADDRESS)), "hex")])));
    expect(await callTable(m, "eth_call", [{ to: PERMIT2_ADDRESS, data: "0x3644e515" }, "latest"])).toBe(domain);
    expect(code.slice(2 + 6983 * 2, 2 + 7015 * 2)).toBe(domain.slice(2));
  });

  it("deploys through the deterministic deployment proxy at forge's CREATE2 address; Multicall3 answers", async () => {
    const key = Buffer.from(devAccounts()[0]!.privateKey.slice(2), "hex");
    const salt = "11".repeat(32);
    const tx = createFeeMarket1559Tx(
      { chainId: DEVNET_CHAIN_ID, nonce: 0n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 200_000n, to: DETERMINISTIC_DEPLOYMENT_PROXY, data: Buffer.from(salt + INIT_42.slice(2), "hex") },
      { common: commonFromGenesis(devnetGenesis()) },
    ).sign(key);
    await dev.pool.addRaw(tx.serialize());
    await dev.seq.sealOne();
    const receipt = (await callTable(m, "eth_getTransactionReceipt", [to0x(tx.hash())])) as { status: string };
    expect(receipt.status).toBe("0x1");
    const predicted = to0x(keccak256(Buffer.concat([Buffer.from("ff", "hex"), Buffer.from(DETERMINISTIC_DEPLOYMENT_PROXY.slice(2), "hex"), Buffer.from(salt, "hex"), keccak256(Buffer.from(INIT_42.slice(2), "hex"))])).slice(12));
    expect(await callTable(m, "eth_getCode", [predicted, "latest"])).toBe(`0x${RUNTIME_42}`);
    expect(await callTable(m, "eth_call", [{ to: predicted, data: "0x" }, "latest"])).toBe(`0x${word(42n)}`);
    // Multicall3.getBlockNumber() (0x42cbb15c).
    const head = dev.chain.head.header.number;
    expect(await callTable(m, "eth_call", [{ to: MULTICALL3, data: "0x42cbb15c" }, "latest"])).toBe(`0x${word(head)}`);
  });

  it("still opens a devnet datadir created before the preinstalls", async () => {
    const datadir = tmp();
    const legacy = devnetGenesis({ preinstalls: false });
    await Chain.init(datadir, legacy);
    const stored = await storedGenesisHash(datadir);
    const current = await Chain.buildGenesis(devnetGenesis(), commonFromGenesis(devnetGenesis()));
    expect(stored).not.toBe(to0x(current.block.hash()));
    const opts = { network: "devnet", genesis: undefined, "dev.beryl-time": undefined, "dev.cobalt-time": undefined } as unknown as Parameters<typeof initGenesis>[1];
    const r = await initGenesis(datadir, opts);
    expect([to0x(r.hash), r.created]).toEqual([stored, false]);
    // A datadir of another chain is still refused.
    const other = tmp();
    await Chain.init(other, { ...legacy, timestamp: "0x1" });
    await expect(initGenesis(other, opts)).rejects.toMatchObject({ code: "CHAIN_GENESIS_MISMATCH" });
  });
});
