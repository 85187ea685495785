/**
 * Parity-style tracing (trace_*) over real blocks of an in-process devnet chain, through the
 * RPC method table and the inline call service (the pool's code path on this thread): a
 * caller forwarding to a callee that stores, logs and returns or reverts; a plain transfer; a
 * factory that CREATEs, CREATE2s and calls a child that self-destructs; precompile calls.
 * Every method and every trace type, and reth's answers to bad input.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { createAddress } from "../../src/chain/json/receipt.js";
import { NO_PENDING } from "../../src/flashblocks/pendingView.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
import { parityTraceMethods } from "../../src/rpc/methods/parityTrace.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { parseTraceConfig } from "../../src/execution/trace/config.js";
import { parentOf } from "../../src/execution/trace/parent.js";
import { ParityTracer } from "../../src/execution/trace/parityTracer.js";
import { traceBlock } from "../../src/execution/trace/replay.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { callerRuntime, calleeRuntime, deploy, factoryRuntime, precompilesRuntime, word } from "../../bench/workload/traceContracts.js";

const silent = pino({ level: "silent" });
const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): string => accounts[i]!.address.toLowerCase();
type Json = Record<string, unknown>;

describe("trace_* over devnet blocks", () => {
  let dir: string;
  let chain: Chain;
  let pool: TxPool;
  let seq: OpDevSequencer;
  let m: MethodTable;
  let backend: RpcBackend;
  const nonces = new Map<number, bigint>();
  let callee: string;
  let caller: string;
  let factory: string;
  let precompiles: string;
  const h: Record<string, string> = {};
  let blockHash: string;
  let blockNumber: bigint;
  let rawTransfer: string;

  const rpc = (method: string, params: unknown[]): Promise<unknown> => callTable(m, method, params);
  const rpcError = (method: string, params: unknown[]): Promise<{ code: number; message: string }> => callTableError(m, method, params);

  /** A signed EIP-1559 transaction of dev account `from` (its next nonce unless `nonce` is given). */
  function sign(from: number, fields: { to?: string; value?: bigint; data?: string; gasLimit?: bigint }, nonce?: bigint): Uint8Array {
    const n = nonce ?? nonces.get(from) ?? 0n;
    if (nonce === undefined) nonces.set(from, n + 1n);
    const common = chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n);
    const data = fields.data === undefined ? undefined : hexToBytes(fields.data as `0x${string}`);
    const to = fields.to as `0x${string}` | undefined;
    const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n };
    const tx = createFeeMarket1559Tx({ chainId: chain.chainId, nonce: n, ...fees, gasLimit: fields.gasLimit ?? 300_000n, to, value: fields.value ?? 0n, data }, { common });
    return tx.sign(key(from)).serialize();
  }
  async function send(from: number, fields: { to?: string; value?: bigint; data?: string; gasLimit?: bigint }): Promise<string> {
    const raw = sign(from, fields);
    const { hash } = await pool.addRaw(raw);
    return to0x(hash);
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "basalt-parity-"));
    await Chain.init(dir, devnetGenesis(), { archive: true });
    chain = Chain.open(dir, { logger: silent, archive: true });
    pool = new TxPool(chain);
    seq = new OpDevSequencer(chain, pool, 0, silent);
    const b: RpcBackend = {
      chain,
      pool,
      calls: new InlineCallService(chain, NO_PENDING),
      settings: { gasCap: 50_000_000n, clientVersion: "test" },
      pending: NO_PENDING,
      syncing: () => false,
    };
    m = parityTraceMethods(b);
    backend = b;
    const a1 = hexToBytes(addr(1) as `0x${string}`);
    callee = to0x(createAddress(a1, 0n));
    caller = to0x(createAddress(a1, 1n));
    factory = to0x(createAddress(a1, 2n));
    precompiles = to0x(createAddress(a1, 3n));
    h.deployCallee = await send(1, { data: deploy(calleeRuntime()) });
    await send(1, { data: deploy(callerRuntime(callee)) });
    await send(1, { data: deploy(factoryRuntime()) });
    await send(1, { data: deploy(precompilesRuntime()) });
    await seq.sealOne();
    h.callOk = await send(2, { to: caller, data: word(5) });
    h.callRevert = await send(2, { to: caller, data: word(1) });
    h.transfer = await send(3, { to: addr(4), value: 12345n, gasLimit: 21_000n });
    h.factory = await send(5, { to: factory, gasLimit: 1_000_000n });
    h.precompiles = await send(6, { to: precompiles });
    await seq.sealOne();
    blockHash = to0x(chain.head.hash());
    blockNumber = chain.head.header.number;
    rawTransfer = to0x(sign(3, { to: addr(4), value: 777n, gasLimit: 21_000n }, 1n));
  }, 60_000);

  afterAll(async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("trace_transaction: nested calls placed in their block, reth's fields", async () => {
    const t = (await rpc("trace_transaction", [h.callOk])) as Json[];
    expect(t).toHaveLength(2);
    const [top, inner] = t as [Json, Json];
    expect(top.type).toBe("call");
    expect(top.traceAddress).toEqual([]);
    expect(top.subtraces).toBe(1);
    expect(top.blockHash).toBe(blockHash);
    expect(top.blockNumber).toBe(Number(blockNumber));
    expect(top.transactionHash).toBe(h.callOk);
    expect(top.transactionPosition).toBe(1); // after the L1-attributes deposit
    expect(top.action).toMatchObject({ callType: "call", from: addr(2), to: caller, input: word(5), value: "0x0" });
    // The top frame's gas is the limit less the intrinsic gas (21000 + 32 bytes of non-zero/zero calldata).
    expect(BigInt((top.action as Json).gas as string)).toBeLessThan(300_000n - 21_000n);
    expect(inner.traceAddress).toEqual([0]);
    expect(inner.action).toMatchObject({ callType: "call", from: caller, to: callee, input: word(5) });
    expect(inner.result).toEqual({ gasUsed: expect.stringMatching(/^0x[0-9a-f]+$/), output: word(7) });
    expect(inner.error).toBeUndefined();
  });

  it("a reverted call keeps its result and says Reverted; a plain transfer is one frame with no gas", async () => {
    const t = (await rpc("trace_transaction", [h.callRevert])) as Json[];
    expect(t[1]!.error).toBe("Reverted");
    expect(((t[1]!.result as Json).output as string).startsWith("0x08c379a0")).toBe(true);
    expect(t[0]!.error).toBeUndefined();
    const transfer = (await rpc("trace_transaction", [h.transfer])) as Json[];
    expect(transfer).toHaveLength(1);
    expect(transfer[0]!.action).toEqual({ from: addr(3), callType: "call", gas: "0x0", input: "0x", to: addr(4), value: "0x3039" });
    expect(transfer[0]!.result).toEqual({ gasUsed: "0x0", output: "0x" });
  });

  it("CREATE, CREATE2 and a self-destruct right after its frame; precompile calls left out", async () => {
    const t = (await rpc("trace_transaction", [h.factory])) as Json[];
    expect(t.map((e) => [e.type, e.traceAddress])).toEqual([
      ["call", []],
      ["create", [0]],
      ["create", [1]],
      ["call", [2]],
      ["suicide", [2, 0]],
    ]);
    const c2 = t[2]!;
    expect((c2.action as Json).creationMethod).toBe("create2");
    expect((t[1]!.action as Json).creationMethod).toBe("create");
    const child = (c2.result as Json).address as string;
    expect(t[3]!.action).toMatchObject({ to: child, from: factory });
    expect(t[4]).toMatchObject({ action: { address: child, balance: "0x0", refundAddress: factory }, result: null, subtraces: 0 });
    expect(t[3]!.subtraces).toBe(1);
    const p = (await rpc("trace_transaction", [h.precompiles])) as Json[];
    expect(p).toHaveLength(1);
    expect(p[0]!.subtraces).toBe(0);
  });

  it("trace_get, trace_block, trace_filter", async () => {
    const all = (await rpc("trace_transaction", [h.factory])) as Json[];
    expect(await rpc("trace_get", [h.factory, ["0x2"]])).toEqual(all[2]);
    expect(await rpc("trace_get", [h.factory, [0, 1]])).toBeNull();
    expect(await rpc("trace_get", [h.factory, ["0x63"]])).toBeNull();
    const block = (await rpc("trace_block", ["0x" + blockNumber.toString(16)])) as Json[];
    expect(block[0]!.transactionPosition).toBe(0); // the deposit
    expect(block.filter((e) => e.transactionHash === h.factory)).toEqual(all);
    expect(await rpc("trace_block", ["0x99999"])).toBeNull();
    const byTo = (await rpc("trace_filter", [{ fromBlock: "0x1", toBlock: "latest", toAddress: [callee] }])) as Json[];
    // The callee's creation matches too: a create's receiver is the created address (reth `TraceFilterMatcher`).
    expect(byTo.map((e) => e.transactionHash)).toEqual([h.deployCallee, h.callOk, h.callRevert]);
    const both = (await rpc("trace_filter", [{ fromAddress: [addr(2)], toAddress: [callee], mode: "intersection" }])) as Json[];
    expect(both).toEqual([]);
    const paged = (await rpc("trace_filter", [{ fromBlock: "0x1", toAddress: [callee], after: 1, count: 1 }])) as Json[];
    expect(paged.map((e) => e.transactionHash)).toEqual([h.callOk]);
  });

  it("trace_replayTransaction: trace, stateDiff and vmTrace", async () => {
    const r = (await rpc("trace_replayTransaction", [h.callOk, ["trace", "stateDiff", "vmTrace"]])) as Json;
    expect(Object.keys(r)).toEqual(["output", "stateDiff", "trace", "vmTrace"]);
    expect(r.output).toBe("0x");
    const trace = r.trace as Json[];
    expect(trace).toHaveLength(2);
    expect(trace[0]!.blockHash).toBeUndefined();
    const diff = r.stateDiff as Record<string, Json>;
    // The callee's slot 0: 0 → 5 (the earlier revert was undone); the sender's nonce 0 → 1 and balance down.
    expect(diff[callee]!.storage).toEqual({ [word(0)]: { "*": { from: word(0), to: word(5) } } });
    expect(diff[callee]!.balance).toBe("=");
    expect(diff[addr(2)]!.nonce).toEqual({ "*": { from: "0x0", to: "0x1" } });
    const bal = (diff[addr(2)]!.balance as { "*": { from: string; to: string } })["*"];
    expect(BigInt(bal.to)).toBeLessThan(BigInt(bal.from));
    type Op = { pc: number; op: string; cost: number; ex: Json; sub: { code: string; ops: Op[] } | null };
    const vm = r.vmTrace as { code: string; ops: Op[] };
    expect(vm.code).toBe("0x" + callerRuntime(callee));
    // revm-inspectors' fields: gas left before the op, the whole memory before it, no store.
    expect(vm.ops[0]).toEqual({ pc: 0, op: "PUSH1", cost: 3, ex: { used: expect.any(Number), push: ["0x20"], mem: { off: 0, data: "0x" }, store: null }, sub: null });
    expect((vm.ops[1]!.ex.used as number) - (vm.ops[0]!.ex.used as number)).toBe(-3);
    const call = vm.ops.find((o) => o.sub !== null)!;
    expect(call.op).toBe("CALL");
    expect(call.sub!.code).toBe("0x" + calleeRuntime());
    // The callee's RETURN sees the word 7 it stored at 0.
    const ret = call.sub!.ops.find((o) => o.op === "RETURN")!;
    expect(ret.ex.mem).toEqual({ off: 32, data: word(7) });
    // CALL pushes the word below its inputs as revm-inspectors reads it (the caller's stack holds none): nothing.
    expect(call.ex.push).toEqual([]);
    const only = (await rpc("trace_replayTransaction", [h.callOk, ["stateDiff"]])) as Json;
    expect(only.trace).toEqual([]);
    expect(only.vmTrace).toBeNull();
  });

  it("stateDiff of a creation: the new accounts are added", async () => {
    const r = (await rpc("trace_replayTransaction", [h.factory, ["stateDiff"]])) as Json;
    const diff = r.stateDiff as Record<string, Json>;
    const added = Object.values(diff).filter((d) => typeof d.nonce === "object" && "+" in (d.nonce as Json));
    // The CREATE child stays; the CREATE2 child self-destructed in its creating transaction: never there.
    expect(added).toHaveLength(1);
    expect(added[0]!.nonce).toEqual({ "+": "0x1" });
    expect((added[0]!.code as Json)["+"]).toBe("0x33ff");
  });

  it("trace_replayBlockTransactions: every transaction with its hash", async () => {
    const r = (await rpc("trace_replayBlockTransactions", [blockHash, ["trace"]])) as Json[];
    expect(r.map((x) => x.transactionHash).slice(1)).toEqual([h.callOk, h.callRevert, h.transfer, h.factory, h.precompiles]);
    expect(r[1]!.stateDiff).toBeNull();
    expect(await rpc("trace_replayBlockTransactions", ["0x99999", ["trace"]])).toBeNull();
  });

  it("trace_call, trace_callMany, trace_rawTransaction", async () => {
    const c = (await rpc("trace_call", [{ from: addr(7), to: caller, data: word(9) }, ["trace", "stateDiff"], "latest"])) as Json;
    expect((c.trace as Json[])[1]!.action).toMatchObject({ to: callee, input: word(9) });
    expect((c.stateDiff as Record<string, Json>)[callee]!.storage).toEqual({ [word(0)]: { "*": { from: word(5), to: word(9) } } });
    const many = (await rpc("trace_callMany", [
      [
        [{ from: addr(7), to: caller, data: word(11) }, ["stateDiff"]],
        [{ from: addr(7), to: caller, data: word(12) }, ["stateDiff", "trace"]],
      ],
      "latest",
    ])) as Json[];
    // The second call sees the first one's store.
    expect((many[1]!.stateDiff as Record<string, Json>)[callee]!.storage).toEqual({ [word(0)]: { "*": { from: word(11), to: word(12) } } });
    expect(many[0]!.trace).toEqual([]);
    expect(many[1]!.trace as Json[]).toHaveLength(2);
    const raw = (await rpc("trace_rawTransaction", [rawTransfer, ["trace", "stateDiff"]])) as Json;
    expect((raw.trace as Json[])[0]!.action).toMatchObject({ from: addr(3), to: addr(4), value: "0x309" });
    const to = (raw.stateDiff as Record<string, Json>)[addr(4)]!.balance as { "*": { from: string; to: string } };
    expect(BigInt(to["*"].to) - BigInt(to["*"].from)).toBe(777n);
    const over = (await rpc("trace_call", [{ from: addr(7), to: "0x00000000000000000000000000000000000000c0" }, ["trace"], "latest", { "0x00000000000000000000000000000000000000c0": { code: "0x600160005500" } }])) as Json;
    expect((over.trace as Json[])[0]!.result).toEqual({ gasUsed: expect.any(String), output: "0x" });
  });

  it("a vmTrace past its size cap fails with a clear error; the other types are unbounded by it", async () => {
    const block = chain.getBlockByHash(hexToBytes(blockHash as `0x${string}`))!;
    const loc = chain.store.getTxLocation(hexToBytes(h.callOk as `0x${string}`))!;
    const run = (types: ("trace" | "vmTrace")[]) => traceBlock(chain, block, parentOf(chain, block), parseTraceConfig(null), new Set([loc.index]), () => new ParityTracer(new Set(types), 2000));
    const [big] = await run(["vmTrace"]);
    expect(big!.error).toBe('vmTrace exceeds 2000 bytes (the trace size cap); ask for "trace" or "stateDiff" only');
    const [small] = await run(["trace"]);
    expect(small!.error).toBeUndefined();
    expect((JSON.parse(small!.result!) as Json).trace).toHaveLength(2);
  });

  it("bad input: unknown transaction, bad trace types, too wide a filter", async () => {
    const unknown = "0x" + "ab".repeat(32);
    expect(await rpc("trace_transaction", [unknown])).toBeNull();
    expect(await rpc("trace_get", [unknown, ["0x0"]])).toBeNull();
    expect(await rpcError("trace_replayTransaction", [unknown, ["trace"]])).toEqual({ code: -32001, message: "transaction not found" });
    const bad = await rpcError("trace_replayTransaction", [h.callOk, ["trace", "bogus"]]);
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("unknown variant `bogus`, expected one of `trace`, `vmTrace`, `stateDiff`");
    expect((await rpcError("trace_call", [{ to: caller }, "trace"])).code).toBe(-32602);
    const wide = await rpcError("trace_filter", [{ fromBlock: "0x0", toBlock: "0x1000" }]);
    expect(wide).toEqual({ code: -32602, message: "Block range too large; currently limited to 100 blocks" });
    // --rpc.max-trace-filter-blocks sets the cap.
    const narrow = parityTraceMethods({ ...backend, settings: { ...backend.settings, maxTraceFilterBlocks: 1 } });
    expect(await callTableError(narrow, "trace_filter", [{ fromBlock: "0x0", toBlock: "0x2" }])).toEqual({ code: -32602, message: "Block range too large; currently limited to 1 blocks" });
    expect(await callTable(narrow, "trace_filter", [{ fromBlock: "0x1", toBlock: "0x2", toAddress: [callee] }])).toHaveLength(3);
  });
});
