/**
 * Differential tracing: the same signed transactions on basalt's devnet and on anvil (foundry's
 * node, which serves debug_traceTransaction with geth's tracers) — token transfers, reverts with
 * a reason, a panic and none, an invalid opcode, CREATE/CREATE2 and self-destruct, 63/64 gas
 * forwarding, precompile calls, calls inside a static call, transient storage — traced with the struct logger, callTracer
 * (with logs), prestateTracer (plain and diff mode) and 4byteTracer on both, compared field by
 * field.
 *
 * Where the chains differ (basalt's devnet is an OP chain), and why:
 * - the sender's balance (prestate, diff pre/post): a user transaction also pays the L1 data fee
 *   and the operator fee, and the two chains' base fees differ;
 * - the fee recipient's account (prestate): basalt's is the SequencerFeeVault predeploy
 *   (0x4200…0011) with its OP balance, anvil's is its own coinbase.
 *
 * Where anvil (revm-inspectors) answers differently from geth, whose answers basalt gives (the
 * execution-apis cases pin geth's struct logger; geth's tracers for the rest), each field is
 * checked against geth's rule instead of compared:
 * - struct logs: anvil writes `refund: 0` and `returnData: "0x"` on every entry (geth omits
 *   them when empty), its own error text on the INVALID step (geth logs that step before it
 *   fails, without error), and counts the gas handed to a new contract in CREATE/CREATE2's
 *   gasCost (geth charges it inside the opcode: anvil's = geth's + all but 1/64 of what is left);
 * - callTracer: the top frame's gas is the transaction's gas limit in geth (anvil: minus the
 *   intrinsic gas); anvil adds an `index` to logs and keeps the logs of a reverted top frame
 *   (geth removes failed frames' logs);
 * - prestateTracer: geth reports `codeHash` (anvil does not); anvil lists contracts created by
 *   the transaction as empty prestate accounts (geth drops them);
 * - 4byteTracer: anvil counts calls to precompiles (geth skips them).
 *
 * Parity-style traces (trace_transaction; trace_replayBlockTransactions with "trace",
 * "stateDiff" and "vmTrace" — anvil serves no trace_replayTransaction, and with one transaction
 * per anvil block the replay of the block is the transaction's) are compared whole, except:
 * - the fields that place a trace in its chain's block (`blockHash`, `blockNumber`,
 *   `transactionPosition`: basalt's blocks start with the L1-attributes deposit);
 * - stateDiff: the sender's balance (OP's L1 data and operator fees, different base fees) and
 *   the fee recipients (basalt: the SequencerFeeVault, BaseFeeVault, L1FeeVault and
 *   OperatorFeeVault predeploys; anvil: its coinbase);
 * - anvil's trace_transaction lists calls to precompiles, which reth's parity traces (and anvil's
 *   own replays) leave out: the two scenarios that call precompiles are compared through the
 *   replay only.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../bench/scenario/anvil.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { createAddress } from "../../src/chain/json/receipt.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";
import {
  BARE_REVERT_RUNTIME,
  calleeRuntime,
  callerRuntime,
  deploy,
  factoryRuntime,
  INVALID_RUNTIME,
  PANIC_RUNTIME,
  precompilesRuntime,
  staticCallerRuntime,
  tokenInit,
  TRANSIENT_RUNTIME,
  word,
} from "../../bench/workload/traceContracts.js";

const CHAIN_ID = 845337n;
const common = commonFromGenesis(devnetGenesis(), "devnet");
const sender = devAccounts()[1]!;
const from = sender.address.toLowerCase();
const key = hexToBytes(sender.privateKey as `0x${string}`);
const SEQUENCER_FEE_VAULT = "0x4200000000000000000000000000000000000011";
/** OP's other fee vaults (predeploys): base fee, L1 data fee, operator fee. */
const BASE_FEE_VAULT = "0x4200000000000000000000000000000000000019";
const L1_FEE_VAULT = "0x420000000000000000000000000000000000001a";
const OPERATOR_FEE_VAULT = "0x420000000000000000000000000000000000001b";

/** The signed transactions, in nonce order, with a name for messages. */
function transactions(): { name: string; raw: string; traced: boolean; gasLimit: bigint }[] {
  const at = (nonce: bigint): string => "0x" + Buffer.from(createAddress(hexToBytes(from as `0x${string}`), nonce)).toString("hex");
  const list: { name: string; to?: string; data: string; traced: boolean; gasLimit?: bigint }[] = [
    { name: "deploy callee", data: deploy(calleeRuntime()), traced: true },
    { name: "deploy caller", data: deploy(callerRuntime(at(0n))), traced: false },
    { name: "deploy greedy caller", data: deploy(callerRuntime(at(0n), true)), traced: false },
    { name: "deploy token", data: tokenInit(), traced: true },
    { name: "deploy panic", data: deploy(PANIC_RUNTIME), traced: false },
    { name: "deploy bare revert", data: deploy(BARE_REVERT_RUNTIME), traced: false },
    { name: "deploy invalid", data: deploy(INVALID_RUNTIME), traced: false },
    { name: "deploy factory", data: deploy(factoryRuntime()), traced: false },
    { name: "deploy precompiles", data: deploy(precompilesRuntime()), traced: false },
    { name: "deploy transient", data: deploy(TRANSIENT_RUNTIME), traced: false },
    { name: "deploy static caller", data: deploy(staticCallerRuntime(at(8n))), traced: false },
  ];
  const [callee, caller, greedy, token, panic, bare, invalid, factory, precompiles, transient, staticCaller] = list.map((_, i) => at(BigInt(i)));
  list.push(
    { name: "token transfer", to: token, data: "0x" + word(0xbeef).slice(2) + word(1234).slice(2), traced: true },
    { name: "call → callee returns", to: caller, data: word(5), traced: true },
    { name: "call → callee reverts with reason", to: caller, data: word(1), traced: true },
    { name: "callee reverts with reason (top level)", to: callee, data: word(1), traced: true },
    { name: "63/64 forwarding", to: greedy, data: word(6), traced: true },
    { name: "panic", to: panic, data: "0x", traced: true },
    { name: "bare revert", to: bare, data: "0x", traced: true },
    { name: "invalid opcode", to: invalid, data: "0x", traced: true, gasLimit: 60_000n },
    { name: "create, create2, self-destruct", to: factory, data: "0x", traced: true },
    { name: "precompile calls", to: precompiles, data: "0x", traced: true },
    { name: "transient storage", to: transient, data: "0x", traced: true },
    { name: "calls inside a static call", to: staticCaller, data: "0x", traced: true },
  );
  return list.map((t, i) => {
    const tx = createFeeMarket1559Tx(
      {
        chainId: CHAIN_ID,
        nonce: BigInt(i),
        maxFeePerGas: 20n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 6n,
        gasLimit: t.gasLimit ?? 500_000n,
        to: t.to as `0x${string}` | undefined,
        data: hexToBytes(t.data as `0x${string}`),
      },
      { common },
    ).sign(key);
    return { name: t.name, raw: "0x" + Buffer.from(tx.serialize()).toString("hex"), traced: t.traced, gasLimit: tx.gasLimit };
  });
}

type Obj = Record<string, Json>;

/**
 * Drops the fields where the chains differ, and those where anvil differs from geth (see the
 * module doc), from a prestate result (plain or diff): the sender's balance, the fee recipients,
 * `codeHash`, and accounts that did not exist before the transaction (empty balance, no code, no
 * nonce) — geth leaves those created by the transaction out.
 */
function withoutChainFields(r: Json, coinbases: string[]): Json {
  const strip = (accounts: Obj): Obj => {
    const out: Obj = {};
    for (const [a, acc] of Object.entries(accounts)) {
      if (coinbases.includes(a)) continue;
      const copy = { ...(acc as Obj) };
      if (a === from) delete copy.balance;
      delete copy.codeHash;
      if (copy.balance === "0x0" && copy.code === undefined && copy.nonce === undefined) continue;
      out[a] = copy;
    }
    return out;
  };
  const o = r as Obj;
  if ("pre" in o && "post" in o) return { pre: strip(o.pre as Obj), post: strip(o.post as Obj) };
  return strip(o);
}

describe("tracing: basalt's devnet against anvil", () => {
  let datadir = "";
  let node: NodeHandle | undefined;
  let anvil: AnvilNode | undefined;
  const hashes: { name: string; hash: string; traced: boolean; gasLimit: bigint }[] = [];
  let anvilCoinbase = "";

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-tracediff-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1"] });
    // One transaction per block (automine) and step tracing on: anvil serves struct logs only with --steps-tracing.
    anvil = await startAnvil({ automine: true, extraArgs: ["--steps-tracing"] });
    for (const t of transactions()) {
      const a = (await rpcResult(node.url, "eth_sendRawTransaction", [t.raw])) as string;
      const b = (await rpcResult(anvil.url, "eth_sendRawTransaction", [t.raw])) as string;
      expect(a).toBe(b);
      hashes.push({ name: t.name, hash: a, traced: t.traced, gasLimit: t.gasLimit });
    }
    const last = hashes[hashes.length - 1]!.hash;
    for (const url of [node.url, anvil.url]) {
      await pollUntil(`the last receipt on ${url}`, 60_000, async () => ((await rpcResult(url, "eth_getTransactionReceipt", [last])) === null ? undefined : true));
    }
    const block = (await rpcResult(anvil.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    anvilCoinbase = String(block.miner).toLowerCase();
  }, 180_000);

  afterAll(async () => {
    await anvil?.stop();
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  const both = async (hash: string, config: Json): Promise<[Json, Json]> => [
    await rpcResult(node!.url, "debug_traceTransaction", [hash, config], { timeoutMs: 30_000 }),
    await rpcResult(anvil!.url, "debug_traceTransaction", [hash, config], { timeoutMs: 30_000 }),
  ];

  it("every receipt succeeded or failed alike, with the same gas", async () => {
    for (const h of hashes) {
      const a = (await rpcResult(node!.url, "eth_getTransactionReceipt", [h.hash])) as Obj;
      const b = (await rpcResult(anvil!.url, "eth_getTransactionReceipt", [h.hash])) as Obj;
      expect([h.name, a.status, a.gasUsed, a.contractAddress ?? null], h.name).toEqual([h.name, b.status, b.gasUsed, b.contractAddress ?? null]);
    }
  });

  it("struct logger: every entry equal", async () => {
    for (const h of hashes.filter((x) => x.traced)) {
      const [a, b] = await both(h.hash, { enableReturnData: true });
      const ours = (a as Obj).structLogs as Obj[];
      const theirs = ((b as Obj).structLogs as Obj[]).map((l, i) => {
        const c = { ...l };
        if (c.refund === 0) delete c.refund;
        if (c.returnData === "0x") delete c.returnData;
        if (c.op === "INVALID") delete c.error;
        const mine = ours[i];
        if ((c.op === "CREATE" || c.op === "CREATE2") && mine !== undefined) {
          // anvil's cost = geth's + the gas handed to the new contract (all but 1/64 of what is left).
          const left = BigInt(mine.gas as number) - BigInt(mine.gasCost as number);
          expect(BigInt(c.gasCost as number), `${h.name}: ${c.op} at ${i}`).toBe(BigInt(mine.gasCost as number) + left - left / 64n);
          c.gasCost = mine.gasCost!;
        }
        return c;
      });
      expect({ ...(a as Obj), structLogs: ours }, h.name).toEqual({ ...(b as Obj), structLogs: theirs });
    }
  });

  it("callTracer (with logs): equal trees", async () => {
    for (const h of hashes.filter((x) => x.traced)) {
      const [a, b] = await both(h.hash, { tracer: "callTracer", tracerConfig: { withLog: true } });
      const top = a as Obj;
      expect(top.gas, `${h.name}: geth's top gas is the gas limit`).toBe("0x" + h.gasLimit.toString(16));
      const normalize = (f: Obj): Obj => {
        const c: Obj = { ...f };
        if (Array.isArray(c.logs)) c.logs = c.error !== undefined ? null : (c.logs as Obj[]).map(({ index: _index, ...l }) => l);
        if (c.logs === null) delete c.logs;
        if (Array.isArray(c.calls)) c.calls = (c.calls as Obj[]).map(normalize);
        return c;
      };
      expect({ ...top, gas: null }, h.name).toEqual({ ...normalize(b as Obj), gas: null });
    }
  });

  it("prestateTracer and its diff mode: equal but for the OP fee fields", async () => {
    const coinbases = [SEQUENCER_FEE_VAULT, anvilCoinbase];
    for (const h of hashes.filter((x) => x.traced)) {
      for (const cfg of [{ tracer: "prestateTracer" }, { tracer: "prestateTracer", tracerConfig: { diffMode: true } }] as Json[]) {
        const [a, b] = await both(h.hash, cfg);
        expect(withoutChainFields(a, coinbases), `${h.name} ${JSON.stringify(cfg)}`).toEqual(withoutChainFields(b, coinbases));
      }
    }
  });

  it("4byteTracer: equal (anvil's counts of precompile calls aside)", async () => {
    for (const h of hashes.filter((x) => x.traced && x.name !== "precompile calls" && x.name !== "calls inside a static call")) {
      const [a, b] = await both(h.hash, { tracer: "4byteTracer" });
      expect(a, h.name).toEqual(b);
    }
  });

  /** trace_transaction on both chains, without the fields that place it in a chain's block. */
  const parityBoth = async (method: string, params: Json[]): Promise<[Json, Json]> => [
    await rpcResult(node!.url, method, params, { timeoutMs: 30_000 }),
    await rpcResult(anvil!.url, method, params, { timeoutMs: 30_000 }),
  ];
  /** Scenarios whose calls reach precompiles: anvil's trace_transaction lists those calls, reth's parity traces (and anvil's replays) do not. */
  const PRECOMPILE_CALLERS = ["precompile calls", "calls inside a static call"];
  const unplaced = (traces: Json): Json => (traces as Obj[]).map(({ blockHash: _h, blockNumber: _n, transactionPosition: _p, ...rest }) => rest);

  it("trace_transaction (parity): equal entries but for the block fields (anvil's listing of precompile calls aside)", async () => {
    for (const h of hashes.filter((x) => x.traced && !PRECOMPILE_CALLERS.includes(x.name))) {
      const [a, b] = await parityBoth("trace_transaction", [h.hash]);
      expect(unplaced(a), h.name).toEqual(unplaced(b));
    }
  });

  it("trace_block (parity): each transaction's entries equal but for the block fields (precompile callers aside, as above)", async () => {
    const blockTraces = async (url: string, hash: string): Promise<Json> => {
      const receipt = (await rpcResult(url, "eth_getTransactionReceipt", [hash])) as Obj;
      const all = (await rpcResult(url, "trace_block", [receipt.blockNumber!], { timeoutMs: 30_000 })) as Obj[];
      return unplaced(all.filter((t) => t.transactionHash === hash));
    };
    for (const h of hashes.filter((x) => x.traced && !PRECOMPILE_CALLERS.includes(x.name))) {
      expect(await blockTraces(node!.url, h.hash), h.name).toEqual(await blockTraces(anvil!.url, h.hash));
    }
  });

  it("trace_filter (parity): the same entries for a receiver and for a sender, but for the block fields", async () => {
    const callee = ((await rpcResult(node!.url, "eth_getTransactionReceipt", [hashes[0]!.hash])) as Obj).contractAddress as string;
    for (const filter of [{ toAddress: [callee] }, { fromAddress: [from], toAddress: [callee], mode: "intersection" }] as Obj[]) {
      const filtered = async (url: string): Promise<Json> => {
        const head = Number(BigInt((await rpcResult(url, "eth_blockNumber", [])) as string));
        return unplaced(await rpcResult(url, "trace_filter", [{ fromBlock: "0x1", toBlock: "0x" + head.toString(16), ...filter }], { timeoutMs: 30_000 }));
      };
      const ours = await filtered(node!.url);
      expect((ours as Obj[]).length, JSON.stringify(filter)).toBeGreaterThan(1);
      expect(ours, JSON.stringify(filter)).toEqual(await filtered(anvil!.url));
    }
  });

  it("trace_replayBlockTransactions (parity; anvil serves no trace_replayTransaction): trace, stateDiff and vmTrace equal but for the OP fee fields", async () => {
    const feeAccounts = [SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT, anvilCoinbase];
    const stripDiff = (d: Json): Json => {
      const out: Obj = {};
      for (const [a, acc] of Object.entries(d as Obj)) {
        if (feeAccounts.includes(a)) continue;
        out[a] = a === from ? { ...(acc as Obj), balance: null } : acc;
      }
      return out;
    };
    const replayOf = async (url: string, hash: string): Promise<Obj> => {
      const receipt = (await rpcResult(url, "eth_getTransactionReceipt", [hash])) as Obj;
      const all = (await rpcResult(url, "trace_replayBlockTransactions", [receipt.blockNumber!, ["trace", "stateDiff", "vmTrace"]], { timeoutMs: 30_000 })) as Obj[];
      const r = all.find((x) => x.transactionHash === hash)!;
      return { ...r, stateDiff: stripDiff(r.stateDiff!) };
    };
    for (const h of hashes.filter((x) => x.traced)) {
      expect(await replayOf(node!.url, h.hash), h.name).toEqual(await replayOf(anvil!.url, h.hash));
    }
  });

  it("trace_* over JSON-RPC on the pool: calls, bad input with reth's answers", async () => {
    const callee = (await rpcResult(node!.url, "eth_getTransactionReceipt", [hashes[0]!.hash])) as Obj;
    const call = { from, to: callee.contractAddress, data: word(5) };
    const traced = (await rpcResult(node!.url, "trace_call", [call, ["trace", "stateDiff"], "latest"])) as Obj;
    expect(((traced.trace as Obj[])[0]!.result as Obj).output).toBe(word(7));
    const many = (await rpcResult(node!.url, "trace_callMany", [[[call, ["trace"]], [{ ...call, data: word(1) }, ["trace"]]], "latest"])) as Obj[];
    expect(many.map((r) => (r.trace as Obj[])[0]!.error ?? null)).toEqual([null, "Reverted"]);
    const err = async (method: string, params: Json[]): Promise<unknown> => (await rpcCall(node!.url, method, params)).error;
    expect(await err("trace_replayTransaction", ["0x" + "ab".repeat(32), ["trace"]])).toEqual({ code: -32001, message: "transaction not found" });
    expect(await rpcResult(node!.url, "trace_transaction", ["0x" + "ab".repeat(32)])).toBeNull();
    expect(await err("trace_call", [call, ["trace", "vmtrace"]])).toMatchObject({ code: -32602, message: expect.stringContaining("unknown variant `vmtrace`") });
  });

  it("bad input over JSON-RPC: geth's codes and messages", async () => {
    const err = async (method: string, params: Json[]): Promise<unknown> => (await rpcCall(node!.url, method, params)).error;
    const tx = hashes.find((h) => h.name === "token transfer")!.hash;
    expect(await err("debug_traceTransaction", [tx, { tracer: "fooTracer" }])).toMatchObject({ code: -32000, message: expect.stringMatching(/^tracer not found: fooTracer/) });
    expect(await err("debug_traceTransaction", [tx, { disableStack: "yes" }])).toEqual({
      code: -32602,
      message: "invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool",
    });
    expect(await err("debug_traceTransaction", [tx, { tracer: "callTracer", tracerConfig: { withLog: 1 } }])).toEqual({
      code: -32000,
      message: "json: cannot unmarshal number 1 into Go struct field callTracerConfig.withLog of type bool",
    });
    expect(await err("debug_traceTransaction", [tx, { timeout: "1ns" }])).toEqual({ code: -32000, message: "execution timeout" });
    expect(await err("debug_traceTransaction", ["0x" + "ab".repeat(32)])).toEqual({ code: -32000, message: "transaction not found" });
    expect(await err("debug_traceBlockByNumber", ["0x0"])).toEqual({ code: -32000, message: "genesis is not traceable" });
    expect(await err("debug_traceBlockByNumber", ["0xffffff"])).toEqual({ code: -32000, message: "block #16777215 not found" });
    expect(await err("debug_traceBlockByHash", ["0x" + "cd".repeat(32)])).toEqual({ code: -32000, message: `block 0x${"cd".repeat(32)} not found` });
    // The node still answers after the bad requests (the worker survived).
    expect(((await rpcResult(node!.url, "debug_traceTransaction", [tx, { tracer: "noopTracer" }])) as Obj)).toEqual({});
  });

  it("debug_traceCall and debug_traceCallMany over JSON-RPC (block, txIndex, overrides, bundles)", async () => {
    const receipt = (await rpcResult(node!.url, "eth_getTransactionReceipt", [hashes.find((h) => h.name === "call → callee returns")!.hash])) as Obj;
    const callee = (await rpcResult(node!.url, "eth_getTransactionReceipt", [hashes[0]!.hash])) as Obj;
    const call = { from, to: callee.contractAddress, data: word(1) };
    const top = (await rpcResult(node!.url, "debug_traceCall", [call, receipt.blockNumber, { tracer: "callTracer", txIndex: receipt.transactionIndex }])) as Obj;
    expect(top).toMatchObject({ type: "CALL", from, to: callee.contractAddress, error: "execution reverted", revertReason: "nope" });
    const overridden = (await rpcResult(node!.url, "debug_traceCall", [call, "latest", { tracer: "callTracer", stateOverrides: { [callee.contractAddress as string]: { code: "0x00" } } }])) as Obj;
    expect(overridden.error).toBeUndefined();
    const many = (await rpcResult(node!.url, "debug_traceCallMany", [[{ transactions: [call, { ...call, data: word(5) }] }], { blockNumber: "latest", transactionIndex: -1 }, { tracer: "callTracer" }])) as Obj[][];
    expect(many[0]!.map((t) => t.error ?? null)).toEqual(["execution reverted", null]);
    const err = (await rpcCall(node!.url, "debug_traceCall", [call, "latest", { txIndex: "zz" }])).error as Obj;
    expect(err.code).toBe(-32602);
  });
});
