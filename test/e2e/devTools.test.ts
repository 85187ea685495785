/**
 * ethers v6 (devDependency `ethers`) against a fresh devnet node, as a dApp's tests use it:
 * `provider.getSigner()` is dev account 0 through the node's unlocked accounts
 * (eth_accounts / eth_sendTransaction / personal_sign / eth_signTypedData_v4); a transfer is mined
 * with status 1, `signMessage` and `signTypedData` verify with ethers' own `verifyMessage` and
 * `verifyTypedData`, a `ContractFactory` deploys through the signer (solc-js compiles the
 * contract), and `contract.on(...)` — which polls a log filter, eth_newFilter then
 * eth_getFilterChanges — fires for the event of a later transaction.
 */
import { ContractFactory, JsonRpcProvider, parseEther, verifyMessage, verifyTypedData, type Contract, type JsonRpcSigner } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { compileSolidity } from "../../src/devnet/contracts/compile.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";

const accounts = devAccounts();
/** Polling of ethers' filters and receipts (default 4 s): the devnet seals a block every second here. */
const POLLING_MS = 250;

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
    uint256 public count;
    event Incremented(address indexed by, uint256 count);
    constructor(uint256 start) { count = start; }
    function increment() external { count += 1; emit Incremented(msg.sender, count); }
}
`;

/** EIP-712's own example (Mail from Cow to Bob), on the devnet's chain. */
const DOMAIN = { name: "Ether Mail", version: "1", chainId: 845337, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" };
const TYPES = {
  Person: [
    { name: "name", type: "string" },
    { name: "wallet", type: "address" },
  ],
  Mail: [
    { name: "from", type: "Person" },
    { name: "to", type: "Person" },
    { name: "contents", type: "string" },
  ],
};
const MAIL = {
  from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
  to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
  contents: "Hello, Bob!",
};

describe("ethers v6 against the devnet (e2e)", () => {
  let datadir = "";
  let node: NodeHandle | undefined;
  let provider: JsonRpcProvider;
  let signer: JsonRpcSigner;
  /** Every JSON-RPC method ethers sent, in order. */
  const methods: string[] = [];
  /** The methods of the requests answered, by request id. */
  const sent = new Map<number, string>();
  const answered = new Set<string>();

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-devtools-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1"] });
    provider = new JsonRpcProvider(node.url, undefined, { pollingInterval: POLLING_MS });
    type Payload = { id: number; method: string };
    await provider.on("debug", (info: { action: string; payload?: Payload | Payload[]; result?: { id: number }[] }) => {
      if (info.action === "sendRpcPayload" && info.payload !== undefined) {
        for (const p of Array.isArray(info.payload) ? info.payload : [info.payload]) {
          methods.push(p.method);
          sent.set(p.id, p.method);
        }
      }
      if (info.action === "receiveRpcResult" && Array.isArray(info.result)) {
        for (const r of info.result) answered.add(sent.get(r.id) ?? "");
      }
    });
    signer = await provider.getSigner();
  }, 60_000);

  afterAll(async () => {
    provider?.destroy();
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("getSigner() is dev account 0, on the devnet's chain", async () => {
    expect(await signer.getAddress()).toBe(accounts[0]!.address);
    expect((await provider.getNetwork()).chainId).toBe(845337n);
    expect(methods).toContain("eth_accounts");
  });

  it("the signer's transfer is mined with status 1", async () => {
    const to = accounts[9]!.address;
    const before = await provider.getBalance(to);
    const tx = await signer.sendTransaction({ to, value: parseEther("1.5") });
    const receipt = await tx.wait(1, 60_000);
    expect(receipt?.status).toBe(1);
    expect(receipt?.from).toBe(accounts[0]!.address);
    expect(await provider.getBalance(to, receipt!.blockNumber)).toBe(before + parseEther("1.5"));
    expect(methods).toContain("eth_sendTransaction");
  }, 90_000);

  it("signMessage verifies with verifyMessage", async () => {
    const message = "hello from basalt's devnet";
    const sig = await signer.signMessage(message);
    expect(verifyMessage(message, sig)).toBe(accounts[0]!.address);
    expect(verifyMessage(message + "!", sig)).not.toBe(accounts[0]!.address);
  });

  it("signTypedData (EIP-712) verifies with verifyTypedData", async () => {
    const sig = await signer.signTypedData(DOMAIN, TYPES, MAIL);
    expect(verifyTypedData(DOMAIN, TYPES, MAIL, sig)).toBe(accounts[0]!.address);
    expect(methods).toContain("eth_signTypedData_v4");
  });

  it("a ContractFactory deploys through the signer, and contract.on() fires for a later event (filters)", async () => {
    const { abi, bytecode } = compileSolidity({ "Counter.sol": COUNTER }).Counter!;
    const factory = new ContractFactory(abi as never, bytecode, signer);
    const counter = (await factory.deploy(41n)) as unknown as Contract;
    await counter.waitForDeployment();
    const address = await counter.getAddress();
    expect(await provider.getCode(address)).not.toBe("0x");
    expect(await counter.getFunction("count")()).toBe(41n);

    const fired: { by: string; count: bigint }[] = [];
    await counter.on("Incremented", (by: string, count: bigint) => {
      fired.push({ by, count });
    });
    // The filter is installed before the transaction, so its first changes hold the event.
    await pollUntil("ethers installed its log filter", 30_000, async () => (methods.includes("eth_newFilter") ? true : undefined));
    const tx = (await counter.getFunction("increment")()) as { wait(): Promise<{ status: number | null } | null> };
    expect((await tx.wait())?.status).toBe(1);
    await pollUntil("contract.on fired for Incremented", 60_000, async () => (fired.length > 0 ? true : undefined));
    expect(fired).toEqual([{ by: accounts[0]!.address, count: 42n }]);
    expect(answered.has("eth_getFilterChanges")).toBe(true);
    // Removing the listener uninstalls the filter (a request ethers does not wait for: wait here,
    // before the provider is destroyed).
    await counter.removeAllListeners();
    await pollUntil("ethers uninstalled its filter", 30_000, async () => (answered.has("eth_uninstallFilter") ? true : undefined));
  }, 120_000);
});
