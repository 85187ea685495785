/**
 * Tracers over real blocks of an in-process devnet chain (OP: every block starts with the
 * L1-attributes deposit): hand-assembled contracts — a callee that stores its argument, logs,
 * and returns or reverts with Error("nope"), and a caller that forwards its calldata — traced
 * with the struct logger (options, limit, implicit STOP), callTracer (nesting, revert reason,
 * withLog positions, onlyTopCall), prestateTracer (plain and diff mode), 4byteTracer,
 * flatCallTracer, muxTracer and noopTracer; block traces; the deposit; and geth's errors for
 * bad input (unknown tracer, malformed configs, unknown transaction, genesis, timeout).
 */
import { ChainError, ChainErrorCode } from "../../src/chain/errors.js";
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
import { CallExecutor } from "../../src/execution/callExecutor.js";
import { answerTraceRequest, type TraceRequest } from "../../src/execution/trace/request.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { parseCallArgs } from "../../src/rpc/params.js";
import type { CallArgs } from "../../src/execution/callArgs.js";
import { callerRuntime, calleeRuntime, deploy } from "../../bench/workload/traceContracts.js";

/** A call object as the RPC thread decodes it. */
const callArgs = (o: Record<string, unknown>): CallArgs => parseCallArgs(o, 0);

const silent = pino({ level: "silent" });
const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): string => accounts[i]!.address.toLowerCase();

describe("tracers over devnet blocks", () => {
  let dir: string;
  let chain: Chain;
  let pool: TxPool;
  let seq: OpDevSequencer;
  let executor: CallExecutor;
  const nonces = new Map<number, bigint>();
  let callee: string;
  let caller: string;
  let hashes: { deployCallee: string; deployCaller: string; callOk: string; callRevert: string; transfer: string };
  let blockHash: string;
  let underflow: string;
  let callUnderflow: string;

  async function send(from: number, fields: { to?: string; value?: bigint; data?: string; gasLimit?: bigint }): Promise<string> {
    const nonce = nonces.get(from) ?? 0n;
    nonces.set(from, nonce + 1n);
    const tx = createFeeMarket1559Tx(
      {
        chainId: chain.chainId,
        nonce,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 6n,
        gasLimit: fields.gasLimit ?? 300_000n,
        to: fields.to as `0x${string}` | undefined,
        value: fields.value ?? 0n,
        data: fields.data === undefined ? undefined : hexToBytes(fields.data as `0x${string}`),
      },
      { common: chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n) },
    ).sign(key(from));
    await pool.addRaw(tx.serialize());
    return to0x(tx.hash());
  }

  const trace = (req: TraceRequest): Promise<unknown> => answerTraceRequest(chain, req, { executor, pending: () => undefined }).then((t) => JSON.parse(t) as unknown);
  const traceTx = (hash: string, config?: unknown): Promise<Record<string, unknown>> => trace({ kind: "tx", hash, config }) as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "basalt-trace-"));
    await Chain.init(dir, devnetGenesis(), { archive: true });
    chain = Chain.open(dir, { logger: silent, archive: true });
    pool = new TxPool(chain);
    seq = new OpDevSequencer(chain, pool, 0, silent);
    executor = new CallExecutor(chain);
    callee = to0x(createAddress(hexToBytes(addr(1) as `0x${string}`), 0n));
    caller = to0x(createAddress(hexToBytes(addr(1) as `0x${string}`), 1n));
    const deployCallee = await send(1, { data: deploy(calleeRuntime()) });
    const deployCaller = await send(1, { data: deploy(callerRuntime(callee)) });
    underflow = to0x(createAddress(hexToBytes(addr(1) as `0x${string}`), 2n));
    await send(1, { data: deploy("01") }); // ADD on an empty stack
    await seq.sealOne();
    const word = (n: number): string => "0x" + n.toString(16).padStart(64, "0");
    const callOk = await send(2, { to: caller, data: word(5) });
    const callRevert = await send(2, { to: caller, data: word(1) });
    const transfer = await send(3, { to: addr(4), value: 12345n, gasLimit: 21_000n });
    callUnderflow = await send(6, { to: underflow, gasLimit: 50_000n });
    await seq.sealOne();
    hashes = { deployCallee, deployCaller, callOk, callRevert, transfer };
    blockHash = to0x(chain.head.hash());
  }, 60_000);

  afterAll(async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("struct logger: geth's fields, storage snapshots, implicit STOP, gas = receipt gas", async () => {
    const r = await traceTx(hashes.callOk);
    const receipt = chain.getReceipts(hexToBytes(blockHash as `0x${string}`))!;
    const loc = chain.store.getTxLocation(hexToBytes(hashes.callOk as `0x${string}`))!;
    const gasUsed = receipt[loc.index]!.cumulativeGasUsed - receipt[loc.index - 1]!.cumulativeGasUsed;
    expect(r.gas).toBe(Number(gasUsed));
    expect(r.failed).toBe(false);
    expect(r.returnValue).toBe("0x");
    const logs = r.structLogs as Record<string, unknown>[];
    expect(logs[0]).toEqual({ pc: 0, op: "PUSH1", gas: expect.any(Number), gasCost: 3, depth: 1, stack: [] });
    const call = logs.find((l) => l.op === "CALL")!;
    const inner = logs.filter((l) => l.depth === 2);
    // geth's CALL cost includes the gas handed over; the callee starts with that gas.
    expect(Number(call.gasCost)).toBeGreaterThan(Number(inner[0]!.gas));
    const sstore = inner.find((l) => l.op === "SSTORE")!;
    expect(sstore.storage).toEqual({ ["0x" + "0".repeat(64)]: "0x" + "5".padStart(64, "0") });
    const log1 = inner.find((l) => l.op === "LOG1")!;
    expect(log1.stack).toEqual(["0x5", "0xaa", "0x0", "0x0"]);
    expect(inner[inner.length - 1]!.op).toBe("RETURN");
    // The caller's code ends in STOP after POP; the callee returned 7 → returnData when enabled.
    const withData = await traceTx(hashes.callOk, { enableReturnData: true, enableMemory: true, disableStack: true });
    const wl = withData.structLogs as Record<string, unknown>[];
    const pop = wl.find((l) => l.op === "POP")!;
    expect(pop.returnData).toBe("0x" + "7".padStart(64, "0"));
    expect(pop.stack).toBeUndefined();
    expect((pop.memory as string[])[0]).toBe("0x" + "7".padStart(64, "0"));
    const limited = await traceTx(hashes.callOk, { limit: 5 });
    expect((limited.structLogs as unknown[]).length).toBe(5);
    const noStorage = await traceTx(hashes.callOk, { disableStorage: true });
    expect((noStorage.structLogs as Record<string, unknown>[]).some((l) => l.storage !== undefined)).toBe(false);
  });

  it("struct logger: a reverting inner call, a plain transfer", async () => {
    const r = await traceTx(hashes.callRevert);
    expect(r.failed).toBe(false);
    const inner = (r.structLogs as Record<string, unknown>[]).filter((l) => l.depth === 2);
    expect(inner[inner.length - 1]!.op).toBe("REVERT");
    const t = await traceTx(hashes.transfer);
    expect(t).toEqual({ gas: 21000, failed: false, returnValue: "0x", structLogs: [] });
  });

  it("callTracer: nested frames, revert reason, logs with positions, onlyTopCall", async () => {
    const r = await traceTx(hashes.callRevert, { tracer: "callTracer", tracerConfig: { withLog: true } });
    expect(r.type).toBe("CALL");
    expect(r.from).toBe(addr(2));
    expect(r.to).toBe(caller);
    expect(r.gas).toBe("0x493e0");
    expect(r.value).toBe("0x0");
    const calls = r.calls as Record<string, unknown>[];
    expect(calls).toHaveLength(1);
    const inner = calls[0]!;
    expect(inner.type).toBe("CALL");
    expect(inner.from).toBe(caller);
    expect(inner.to).toBe(callee);
    expect(inner.input).toBe("0x" + "1".padStart(64, "0"));
    expect(inner.error).toBe("execution reverted");
    expect(inner.revertReason).toBe("nope");
    expect(String(inner.output).startsWith("0x08c379a0")).toBe(true);
    // The failed frame's log is removed (geth clearFailedLogs).
    expect(inner.logs).toBeUndefined();
    const ok = await traceTx(hashes.callOk, { tracer: "callTracer", tracerConfig: { withLog: true } });
    const okInner = (ok.calls as Record<string, unknown>[])[0]!;
    expect(okInner.output).toBe("0x" + "7".padStart(64, "0"));
    expect(okInner.logs).toEqual([{ address: callee, topics: ["0x" + "aa".padStart(64, "0")], data: "0x", position: "0x0" }]);
    const top = await traceTx(hashes.callOk, { tracer: "callTracer", tracerConfig: { onlyTopCall: true } });
    expect(top.calls).toBeUndefined();
    expect(top.gasUsed).toBe(ok.gasUsed);
    const create = await traceTx(hashes.deployCallee, { tracer: "callTracer" });
    expect(create.type).toBe("CREATE");
    expect(create.to).toBe(callee);
    expect(create.output).toBe("0x" + calleeRuntime());
  });

  it("prestateTracer: touched accounts before the transaction; diffMode pre/post", async () => {
    const pre = (await traceTx(hashes.callOk, { tracer: "prestateTracer" })) as Record<string, Record<string, unknown>>;
    expect(Object.keys(pre)).toEqual(expect.arrayContaining([addr(2), caller, callee]));
    expect(pre[callee]!.code).toBe("0x" + calleeRuntime());
    expect(pre[callee]!.storage).toEqual({ ["0x" + "0".repeat(64)]: "0x" + "0".repeat(64) });
    expect(pre[addr(2)]!.nonce).toBe(undefined);
    const diff = (await traceTx(hashes.callOk, { tracer: "prestateTracer", tracerConfig: { diffMode: true } })) as { pre: Record<string, Record<string, unknown>>; post: Record<string, Record<string, unknown>> };
    expect(diff.post[callee]!.storage).toEqual({ ["0x" + "0".repeat(64)]: "0x" + "5".padStart(64, "0") });
    expect(diff.pre[callee]!.storage).toBeUndefined(); // a zero slot before: left out of pre
    expect(diff.post[addr(2)]!.nonce).toBe(1);
    expect(BigInt(diff.post[addr(2)]!.balance as string)).toBeLessThan(BigInt(diff.pre[addr(2)]!.balance as string));
    const noCode = (await traceTx(hashes.callOk, { tracer: "prestateTracer", tracerConfig: { disableCode: true, disableStorage: true } })) as Record<string, Record<string, unknown>>;
    expect(noCode[callee]!.code).toBeUndefined();
    expect(noCode[callee]!.storage).toBeUndefined();
  });

  it("4byteTracer, flatCallTracer, muxTracer, noopTracer", async () => {
    const fb = await traceTx(hashes.callOk, { tracer: "4byteTracer" });
    expect(fb).toEqual({ "0x00000000-28": 2 });
    const flat = (await traceTx(hashes.callRevert, { tracer: "flatCallTracer" })) as unknown as Record<string, unknown>[];
    expect(flat).toHaveLength(2);
    expect(flat[0]!.traceAddress).toEqual([]);
    expect(flat[0]!.subtraces).toBe(1);
    expect(flat[0]!.transactionHash).toBe(hashes.callRevert);
    expect(flat[1]!.traceAddress).toEqual([0]);
    expect(flat[1]!.error).toBe("execution reverted");
    const parity = (await traceTx(hashes.callRevert, { tracer: "flatCallTracer", tracerConfig: { convertParityErrors: true } })) as unknown as Record<string, unknown>[];
    expect(parity[1]!.error).toBe("Reverted");
    const mux = await traceTx(hashes.callOk, { tracer: "muxTracer", tracerConfig: { callTracer: {}, "4byteTracer": {} } });
    expect(Object.keys(mux).sort()).toEqual(["4byteTracer", "callTracer"]);
    expect(mux["4byteTracer"]).toEqual(fb);
    expect(await traceTx(hashes.callOk, { tracer: "noopTracer" })).toEqual({});
  });

  it("block traces: every transaction with its hash, the L1-attributes deposit first", async () => {
    const r = (await trace({ kind: "block", hash: blockHash, config: { tracer: "callTracer" } })) as { txHash: string; result: Record<string, unknown> }[];
    expect(r.map((t) => t.txHash).slice(1, 4)).toEqual([hashes.callOk, hashes.callRevert, hashes.transfer]);
    const deposit = r[0]!.result;
    expect(deposit.from).toBe("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
    expect(deposit.to).toBe("0x4200000000000000000000000000000000000015");
    expect(deposit.error).toBeUndefined();
    const single = await traceTx(hashes.callOk, { tracer: "callTracer" });
    expect(r[1]!.result).toEqual(single);
  });

  it("debug_traceCall / debug_traceCallMany: calls at the head's state, overrides, bundles see earlier calls", async () => {
    const head = { hash: to0x(chain.head.hash()) };
    const word = (n: number): string => "0x" + n.toString(16).padStart(64, "0");
    const call = (await trace({ kind: "calls", bundles: [[callArgs({ from: addr(5), to: caller, data: word(1), gas: "0x30000" })]], many: false, block: head, gasCap: 50_000_000n, config: { tracer: "callTracer" } })) as Record<string, unknown>;
    expect(call.from).toBe(addr(5));
    expect(call.gas).toBe("0x30000");
    expect((call.calls as Record<string, unknown>[])[0]!.revertReason).toBe("nope");
    // A state override gives the callee other code: STOP at once.
    const overridden = (await trace({
      kind: "calls",
      bundles: [[callArgs({ from: addr(5), to: callee, data: word(1) })]],
      many: false,
      block: head,
      gasCap: 50_000_000n,
      config: { tracer: "callTracer" },
      stateOverrides: { [callee]: { code: "0x00" } },
    })) as Record<string, unknown>;
    expect(overridden.error).toBeUndefined();
    const many = (await trace({
      kind: "calls",
      bundles: [[callArgs({ from: addr(5), to: callee, data: word(9) })], [callArgs({ from: addr(5), to: callee, data: word(3) })]],
      many: true,
      block: head,
      gasCap: 50_000_000n,
      config: { tracer: "prestateTracer" },
    })) as Record<string, Record<string, unknown>>[][];
    expect(many).toHaveLength(2);
    expect(many[1]![0]![callee]!.storage).toEqual({ ["0x" + "0".repeat(64)]: word(9) });
  });

  it("a failing opcode: geth's stack error on the step and the frame, all gas used", async () => {
    const logs = await traceTx(callUnderflow);
    expect(logs).toEqual({ gas: 50_000, failed: true, returnValue: "0x", structLogs: [{ pc: 0, op: "ADD", gas: 29_000, gasCost: 3, depth: 1, error: "stack underflow (0 <=> 2)", stack: [] }] });
    const call = await traceTx(callUnderflow, { tracer: "callTracer" });
    expect(call.error).toBe("stack underflow (0 <=> 2)");
    expect(call.gasUsed).toBe("0xc350");
  });

  it("debug_traceCall with txIndex: the block's earlier transactions replayed first", async () => {
    const slot0 = async (txIndex: number): Promise<unknown> => {
      const r = (await trace({
        kind: "calls",
        bundles: [[callArgs({ from: addr(5), to: callee, data: "0x" + "9".padStart(64, "0") })]],
        many: false,
        block: { hash: blockHash },
        gasCap: 50_000_000n,
        config: { tracer: "prestateTracer" },
        txIndex,
      })) as Record<string, Record<string, unknown>>;
      return (r[callee]!.storage as Record<string, string>)["0x" + "0".repeat(64)];
    };
    expect(await slot0(1)).toBe("0x" + "0".repeat(64)); // before callOk
    expect(await slot0(2)).toBe("0x" + "5".padStart(64, "0")); // after callOk stored 5
    await expect(slot0(99)).rejects.toThrow("transaction index 99 out of range");
  });

  it("bad input: geth's errors", async () => {
    await expect(traceTx(hashes.callOk, { tracer: "fooTracer" })).rejects.toThrow(/tracer not found/);
    await expect(traceTx(hashes.callOk, { disableStack: "yes" })).rejects.toThrow("json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool");
    await expect(traceTx(hashes.callOk, { tracer: "callTracer", tracerConfig: { onlyTopCall: 1 } })).rejects.toThrow("json: cannot unmarshal number 1 into Go struct field callTracerConfig.onlyTopCall of type bool");
    await expect(traceTx(hashes.callOk, { timeout: "abc" })).rejects.toThrow('time: invalid duration "abc"');
    await expect(traceTx("0x" + "11".repeat(32))).rejects.toThrow("transaction not found");
    await expect(trace({ kind: "block", hash: to0x(chain.getBlockByNumber(0n)!.hash()), config: null })).rejects.toThrow("genesis is not traceable");
    await expect(trace({ kind: "block", hash: "0x" + "22".repeat(32), config: null })).rejects.toThrow(`block 0x${"22".repeat(32)} not found`);
    await expect(traceTx(hashes.callOk, { timeout: "1ns" })).rejects.toThrow("execution timeout");
    // The parent's state pruned (the chain's own refusal, as outside --history.blocks): geth's path-scheme answer.
    const pruned = new Proxy(chain, {
      get(target, prop) {
        if (prop === "stateManagerAt") {
          return (h: { number: bigint }) => {
            throw new ChainError(ChainErrorCode.STATE_UNAVAILABLE, `missing trie node: state of block ${h.number} is pruned`, { number: h.number });
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    await expect(answerTraceRequest(pruned, { kind: "tx", hash: hashes.callOk, config: undefined }, { executor, pending: () => undefined })).rejects.toThrow(
      "historical state not available in path scheme yet",
    );
  });
});
