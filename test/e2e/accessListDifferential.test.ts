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
 * - reverts: both answer with the list and gas so far and an `error`; basalt's message carries the
 *   decoded reason as reth's does ("execution reverted: nope"), anvil's is revm's error text —
 *   only its presence is compared.
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

/** Init codes deployed in nonce order: their addresses are at(0), at(1), … */
const DEPLOYS = [
  deploy(calleeRuntime()), // 0 callee
  () => deploy(callerRuntime(at(0))), // 1 caller → callee
  tokenInit(), // 2 token
  deploy(precompilesRuntime()), // 3 precompiles
  deploy(factoryRuntime()), // 4 factory
  () => deploy(inspectorRuntime(at(0))), // 5 BALANCE / EXTCODESIZE
] as const;
const [CALLEE, CALLER, TOKEN, PRECOMPILES, FACTORY, INSPECTOR] = DEPLOYS.map((_, i) => at(i));

function signedDeploys(): string[] {
  return DEPLOYS.map((d, i) => {
    const data = typeof d === "function" ? d() : d;
    const tx = createFeeMarket1559Tx(
      { chainId: CHAIN_ID, nonce: BigInt(i), maxFeePerGas: 20n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 1_000_000n, data: hexToBytes(data as `0x${string}`) },
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
const CALLS: { name: string; call: Obj; anvilOnlyEntries?: string[]; anvilRejects?: boolean }[] = [
  { name: "plain transfer", call: { from, to: EOA, value: "0x1" } },
  { name: "token transfer (ERC-20 style: both balances' slots)", call: { from, to: TOKEN, data: "0x" + word(0xbeef).slice(2) + word(1234).slice(2) } },
  { name: "call into another contract (the callee and its slot listed)", call: { from, to: CALLER, data: word(5) } },
  { name: "callee reverts with a reason inside a call", call: { from, to: CALLER, data: word(1) } },
  { name: "top-level revert with a reason (anvil answers a JSON-RPC error, geth and basalt a result with `error`)", call: { from, to: CALLEE, data: word(1) }, anvilRejects: true },
  { name: "precompile calls (precompiles left out)", call: { from, to: PRECOMPILES, data: "0x" } },
  { name: "BALANCE / EXTCODESIZE of other accounts (sender and precompile left out)", call: { from, to: INSPECTOR, data: "0x" } },
  { name: "CREATE and CREATE2 in a factory", call: { from, to: FACTORY, data: "0x" } },
  { name: "contract creation (the new address listed with its constructor's slot)", call: { from, data: tokenInit() } },
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
    for (const raw of signedDeploys()) {
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
    for (const a of [CALLEE, CALLER, TOKEN, PRECOMPILES, FACTORY, INSPECTOR]) {
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
        expect(ours.error).toBe(res.error?.message);
        expect(ours.accessList).toEqual([{ address: CALLEE, storageKeys: [word(0)] }]);
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
    const list = async (i: number): Promise<Record<string, string[]>> =>
      byAddress(((await rpcResult(node!.url, "eth_createAccessList", [CALLS[i]!.call, "latest"])) as Obj).accessList as unknown as Entry[]);
    expect(await list(0)).toEqual({});
    expect(Object.keys(await list(2))).toContain(CALLEE);
    expect((await list(2))[CALLEE]).toEqual([word(0)]);
    expect(Object.keys(await list(6)).sort()).toEqual([CALLEE, LOOKED_AT].sort());
    expect(Object.keys(await list(8))).toEqual([at(DEPLOYS.length)]);
  });
});
