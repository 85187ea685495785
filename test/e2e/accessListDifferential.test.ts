/**
 * Differential eth_createAccessList: the same contracts, deployed by the same signed transactions
 * (dev account 1, nonces from 0, so every address matches) on basalt's devnet and on anvil
 * (foundry's node: revm with revm-inspectors' access-list inspector), then the same calls asked of
 * both — a token transfer, a call into another contract (the callee's slots listed), a call
 * reverting with a reason at the top and in a callee, precompile calls, BALANCE/EXTCODESIZE of
 * other accounts, CREATE/CREATE2 in a factory, a contract creation (its constructor's slots),
 * a plain transfer, and calls carrying an input access list. The lists and `gasUsed` must be
 * equal.
 *
 * Where the two are compared loosely, and why:
 * - order: neither geth (its access list is a Go map) nor anvil (a hash map of addresses) has a
 *   stable order of entries; anvil sorts each entry's keys, geth does not. Entries are compared
 *   by address, keys as sets.
 * - an input access list naming the sender, the recipient or a precompile without keys: geth's
 *   tracer drops such an entry (those addresses are warm anyway), and basalt follows geth; anvil
 *   copies the input list whole into its answer. That case checks geth's rule on basalt and that
 *   anvil differs only by that entry.
 * - a call that reverts at the top: geth (execution-apis case create-al-abi-revert) and basalt
 *   answer the list so far with `error`; anvil fails the request (code 3) with the same message —
 *   the messages are compared. For a Panic(uint256), geth's text names the code
 *   ("arithmetic underflow or overflow", basalt the same), anvil's is alloy's
 *   "panic: arithmetic underflow or overflow (0x11)".
 *
 * anvil runs Prague and basalt's devnet Osaka's rules (Azul): nothing called here is priced
 * differently by the two forks (no MODEXP, no CLZ, no P256VERIFY — which is a precompile on OP
 * chains since Fjord and not on anvil's Prague, so its address would be listed by anvil only).
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../bench/scenario/anvil.js";
import {
  calleeRuntime,
  callerRuntime,
  deploy,
  factoryRuntime,
  precompilesRuntime,
  tokenInit,
  word,
} from "../../bench/workload/traceContracts.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { createAddress } from "../../src/chain/json/receipt.js";
import { compileSolidity } from "../../src/devnet/contracts/compile.js";
import { keccak256 } from "../../src/util/keccak.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";

const CHAIN_ID = 845337n;
const common = commonFromGenesis(devnetGenesis(), "devnet");
const deployer = devAccounts()[1]!;
const from = deployer.address.toLowerCase();
const key = hexToBytes(deployer.privateKey as `0x${string}`);
/** An account with nothing deployed: the plain transfer's recipient and the token's. */
const EOA = "0x000000000000000000000000000000000000beef";
/** An address no contract lives at, looked at by BALANCE/EXTCODESIZE. */
const LOOKED_AT = "0x00000000000000000000000000000000000000c0";

const at = (nonce: number): string => "0x" + Buffer.from(createAddress(hexToBytes(from as `0x${string}`), BigInt(nonce))).toString("hex");

/** BALANCE(LOOKED_AT), EXTCODESIZE(callee), BALANCE(caller = the sender), BALANCE(ecrecover), stop. */
function inspectorRuntime(callee: string): string {
  return "73" + LOOKED_AT.slice(2) + "31" + "50" + "73" + callee.slice(2) + "3b" + "50" + "33" + "31" + "50" + "6001" + "31" + "50" + "00";
}

/** Solidity contracts as applications write them: an ERC-20, a vault pulling tokens with transferFrom, a delegatecall proxy. */
const SOLIDITY = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Erc20 {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor() { balanceOf[msg.sender] = 1e24; totalSupply = 1e24; }
    function transfer(address to, uint256 v) external returns (bool) {
        balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); return true;
    }
    function approve(address spender, uint256 v) external returns (bool) { allowance[msg.sender][spender] = v; return true; }
    function transferFrom(address from, address to, uint256 v) external returns (bool) {
        allowance[from][msg.sender] -= v; balanceOf[from] -= v; balanceOf[to] += v; emit Transfer(from, to, v); return true;
    }
}
contract Vault {
    Erc20 public immutable token;
    constructor(Erc20 t) { token = t; }
    function pull(uint256 v) external { require(token.transferFrom(msg.sender, address(this), v), "pull failed"); }
    function held() external view returns (uint256) { return token.balanceOf(address(this)); }
}
contract Proxy {
    address public immutable impl;
    constructor(address i) { impl = i; }
    fallback() external payable {
        (bool ok, bytes memory r) = impl.delegatecall(msg.data);
        if (!ok) assembly { revert(add(r, 32), mload(r)) }
        assembly { return(add(r, 32), mload(r)) }
    }
}
`;
const compiled = compileSolidity({ "Apps.sol": SOLIDITY });
const creation = (name: string): string => compiled[name]!.bytecode;
/** ABI calldata: the selector of `signature` and 32-byte words. */
const abiCall = (signature: string, ...words: (string | bigint | number)[]): string =>
  "0x" + Buffer.from(keccak256(Buffer.from(signature))).subarray(0, 4).toString("hex") + words.map((w) => (typeof w === "string" ? w.slice(2).padStart(64, "0") : word(w).slice(2))).join("");

/** The transactions sent in nonce order: init codes (the contract is at(nonce)) and calls. */
const SENT: (string | (() => string) | { to: () => string; data: () => string })[] = [
  deploy(calleeRuntime()), // 0 callee
  () => deploy(callerRuntime(at(0))), // 1 caller → callee
  tokenInit(), // 2 hand-assembled token
  deploy(precompilesRuntime()), // 3 precompiles
  deploy(factoryRuntime()), // 4 factory
  () => deploy(inspectorRuntime(at(0))), // 5 BALANCE / EXTCODESIZE
  () => creation("Erc20"), // 6 ERC-20
  () => creation("Vault") + at(6).slice(2).padStart(64, "0"), // 7 vault of the ERC-20
  () => creation("Proxy") + at(0).slice(2).padStart(64, "0"), // 8 proxy of the callee
  { to: () => at(6), data: () => abiCall("approve(address,uint256)", at(7), 1000) }, // 9 the vault may pull 1000
];
const [CALLEE, CALLER, TOKEN, PRECOMPILES, FACTORY, INSPECTOR, ERC20, VAULT, PROXY] = SENT.map((_, i) => at(i));
/** The address the next contract creation of the sender makes. */
const NEXT_CREATED = at(SENT.length);

function signedTransactions(): string[] {
  return SENT.map((t, i) => {
    const [to, data] = typeof t === "object" ? [t.to(), t.data()] : [undefined, typeof t === "function" ? t() : t];
    const tx = createFeeMarket1559Tx(
      {
        chainId: CHAIN_ID,
        nonce: BigInt(i),
        maxFeePerGas: 20n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 6n,
        gasLimit: 2_000_000n,
        to: to as `0x${string}` | undefined,
        data: hexToBytes(data as `0x${string}`),
      },
      { common },
    ).sign(key);
    return "0x" + Buffer.from(tx.serialize()).toString("hex");
  });
}

/** EIP-2930: the intrinsic gas of each address in an access list. */
const ACCESS_LIST_ADDRESS_GAS = 2400;

type Obj = Record<string, Json>;
interface Entry {
  address: string;
  storageKeys: string[];
}

/** The calls asked of both nodes: name → call object. */
const CALLS: { name: string; call: Obj; anvilOnlyEntries?: string[]; anvilRejects?: boolean; panic?: { geth: string; anvil: string } }[] = [
  { name: "plain transfer", call: { from, to: EOA, value: "0x1" } },
  { name: "token transfer (ERC-20 style: both balances' slots)", call: { from, to: TOKEN, data: "0x" + word(0xbeef).slice(2) + word(1234).slice(2) } },
  { name: "call into another contract (the callee and its slot listed)", call: { from, to: CALLER, data: word(5) } },
  { name: "callee reverts with a reason inside a call", call: { from, to: CALLER, data: word(1) } },
  { name: "top-level revert with a reason (anvil answers a JSON-RPC error, geth and basalt a result with `error`)", call: { from, to: CALLEE, data: word(1) }, anvilRejects: true },
  { name: "precompile calls (precompiles left out)", call: { from, to: PRECOMPILES, data: "0x" } },
  { name: "BALANCE / EXTCODESIZE of other accounts (sender and precompile left out)", call: { from, to: INSPECTOR, data: "0x" } },
  { name: "CREATE and CREATE2 in a factory", call: { from, to: FACTORY, data: "0x" } },
  { name: "contract creation (the new address listed with its constructor's slot)", call: { from, data: tokenInit() } },
  { name: "Solidity ERC-20 transfer (mapping slots)", call: { from, to: ERC20, data: abiCall("transfer(address,uint256)", EOA, 5) } },
  { name: "Solidity vault pulls with transferFrom (the token's allowance and balance slots)", call: { from, to: VAULT, data: abiCall("pull(uint256)", 7) } },
  { name: "Solidity view through STATICCALL (balanceOf)", call: { from, to: VAULT, data: abiCall("held()") } },
  {
    name: "Solidity ERC-20 transfer reverting inside a call (underflow panic)",
    call: { from: EOA, to: VAULT, data: abiCall("pull(uint256)", 1) },
    anvilRejects: true,
    panic: { geth: "execution reverted: arithmetic underflow or overflow", anvil: "execution reverted: panic: arithmetic underflow or overflow (0x11)" },
  },
  { name: "DELEGATECALL proxy (the proxy's slot, the implementation bare)", call: { from, to: PROXY, data: word(5) } },
  { name: "contract creation running a Solidity constructor", call: { from, data: creation("Erc20") } },
  {
    name: "input access list: an unrelated account's key is kept, the callee's key added",
    call: { from, to: CALLER, data: word(5), accessList: [{ address: LOOKED_AT, storageKeys: [word(9)] }] },
  },
  {
    name: "input access list naming the sender and the recipient without keys (geth drops them, anvil keeps them)",
    call: { from, to: CALLER, data: word(5), accessList: [{ address: from, storageKeys: [] }, { address: CALLER, storageKeys: [] }, { address: FACTORY, storageKeys: [] }] },
    anvilOnlyEntries: [from, CALLER],
  },
];

/** An answer's list keyed by address, keys sorted (see the module doc: no order is stable). */
function byAddress(list: Entry[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of list) {
    expect(out[e.address.toLowerCase()], `duplicate entry ${e.address}`).toBeUndefined();
    out[e.address.toLowerCase()] = e.storageKeys.map((k) => k.toLowerCase()).sort();
  }
  return out;
}

describe("eth_createAccessList: basalt's devnet against anvil", () => {
  let datadir = "";
  let node: NodeHandle | undefined;
  let anvil: AnvilNode | undefined;

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-aldiff-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1"] });
    anvil = await startAnvil({ automine: true });
    let last = "";
    for (const raw of signedTransactions()) {
      const a = (await rpcResult(node.url, "eth_sendRawTransaction", [raw])) as string;
      const b = (await rpcResult(anvil.url, "eth_sendRawTransaction", [raw])) as string;
      expect(a).toBe(b);
      last = a;
    }
    for (const url of [node.url, anvil.url]) {
      await pollUntil(`the last deployment's receipt on ${url}`, 60_000, async () => ((await rpcResult(url, "eth_getTransactionReceipt", [last])) === null ? undefined : true));
    }
  }, 120_000);

  afterAll(async () => {
    await anvil?.stop();
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("the contracts are at the same addresses with the same code on both", async () => {
    for (const a of [CALLEE, CALLER, TOKEN, PRECOMPILES, FACTORY, INSPECTOR, ERC20, VAULT, PROXY]) {
      const ours = await rpcResult(node!.url, "eth_getCode", [a, "latest"]);
      expect(ours, a).not.toBe("0x");
      expect(ours, a).toBe(await rpcResult(anvil!.url, "eth_getCode", [a, "latest"]));
    }
  });

  for (const c of CALLS) {
    it(c.name, async () => {
      const ours = (await rpcResult(node!.url, "eth_createAccessList", [c.call, "latest"])) as Obj;
      const res = await rpcCall(anvil!.url, "eth_createAccessList", [c.call, "latest"]);
      if (c.anvilRejects === true) {
        // geth's answer for a reverting call is the list so far with `error` (the execution-apis
        // case create-al-abi-revert); anvil fails the request instead — with the same message.
        expect(res.error?.code).toBe(3);
        if (c.panic === undefined) expect(ours.error).toBe(res.error?.message);
        else {
          // A Panic(uint256): geth's text for the code (accounts/abi panicReasons), which basalt
          // gives; anvil writes alloy's "panic: <text> (0x11)".
          expect(res.error?.message).toBe(c.panic.anvil);
          expect(ours.error).toBe(c.panic.geth);
        }
        return;
      }
      expect(res.error, `anvil: ${JSON.stringify(res.error)}`).toBeUndefined();
      const theirs = res.result as Obj;
      const mine = byAddress(ours.accessList as unknown as Entry[]);
      const anvils = byAddress(theirs.accessList as unknown as Entry[]);
      for (const a of c.anvilOnlyEntries ?? []) {
        // geth's rule, which basalt keeps: the recipient is warm anyway and never listed bare.
        expect(mine[a], `basalt lists ${a} bare`).toBeUndefined();
        expect(anvils[a]).toEqual([]);
        delete anvils[a];
      }
      expect(mine).toEqual(anvils);
      // Each entry anvil lists more costs its transaction EIP-2930's 2,400 gas more.
      expect(BigInt(ours.gasUsed as string) + BigInt(ACCESS_LIST_ADDRESS_GAS * (c.anvilOnlyEntries ?? []).length)).toBe(BigInt(theirs.gasUsed as string));
      expect(ours.error === undefined, `basalt error ${String(ours.error)}, anvil error ${String(theirs.error)}`).toBe(theirs.error === undefined || theirs.error === null);
      // The list basalt answers is what makes the call cheapest to repeat: sent with it, the call's gas is the same again.
      const again = (await rpcResult(node!.url, "eth_createAccessList", [{ ...c.call, accessList: ours.accessList }, "latest"])) as Obj;
      expect(byAddress(again.accessList as unknown as Entry[])).toEqual(mine);
      expect(again.gasUsed).toBe(ours.gasUsed);
    });
  }

  it("the cases cover what they name", async () => {
    const list = async (prefix: string): Promise<Record<string, string[]>> => {
      const c = CALLS.find((x) => x.name.startsWith(prefix));
      expect(c, prefix).toBeDefined();
      return byAddress(((await rpcResult(node!.url, "eth_createAccessList", [c!.call, "latest"])) as Obj).accessList as unknown as Entry[]);
    };
    expect(await list("plain transfer")).toEqual({});
    expect(await list("call into another contract")).toEqual({ [CALLEE]: [word(0)] });
    expect(Object.keys(await list("BALANCE / EXTCODESIZE")).sort()).toEqual([CALLEE, LOOKED_AT].sort());
    expect(Object.keys(await list("contract creation (the new address"))).toEqual([NEXT_CREATED]);
    expect(await list("DELEGATECALL proxy")).toEqual({ [PROXY]: [word(0)], [CALLEE]: [] });
    const pulled = await list("Solidity vault pulls");
    expect(Object.keys(pulled)).toEqual([ERC20]);
    expect(pulled[ERC20]).toHaveLength(3); // allowance[from][vault], balanceOf[from], balanceOf[vault]
  });
});
