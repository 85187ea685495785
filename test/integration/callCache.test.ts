/**
 * Identical call-family requests are answered once (src/rpc/callCache.ts), over real execution
 * (InlineCallService on an in-process devnet chain): concurrent identical requests share one
 * execution, repeats at the same block are cached (reverts too), different requests and other
 * blocks are not confused, a head change empties the cache, and `pending` is never cached.
 */
import type { MeterRequest } from "../../src/execution/metering/request.js";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import type { CallRequest, CallService } from "../../src/execution/callRequest.js";
import { NO_PENDING } from "../../src/flashblocks/pendingView.js";
import { CallCache } from "../../src/rpc/callCache.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { fromHex, to0x } from "../../src/util/bytes.js";
import type { WitnessRequest } from "../../src/execution/witness/request.js";
import type { TraceRequest } from "../../src/execution/trace/request.js";

const silent = pino({ level: "silent" });
const a = devAccounts();

/** Counts the executions that reach the real call service. */
class Counting implements CallService {
  executions = 0;
  constructor(private readonly inner: CallService) {}
  execute(req: CallRequest): Promise<string> {
    this.executions++;
    return this.inner.execute(req);
  }
  witness(req: WitnessRequest): Promise<string> {
    return this.inner.witness(req);
  }
  trace(method: string, req: TraceRequest): Promise<string> {
    return this.inner.trace(method, req);
  }
  meter(method: string, req: MeterRequest): Promise<string> {
    return this.inner.meter(method, req);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe("call cache", () => {
  let dir: string;
  let chain: Chain;
  let seq: OpDevSequencer;
  let counting: Counting;
  let cache: CallCache;

  const estimate = (value: string, hash = to0x(chain.head.hash())): CallRequest => ({
    method: "eth_estimateGas",
    args: { from: fromHex(a[0]!.address), to: fromHex(a[1]!.address), value: BigInt(value) },
    block: { hash },
    gasCap: 50_000_000n,
  });
  /** A call whose code reverts with 32 bytes of data. */
  const revert: () => CallRequest = () => ({ method: "eth_call", args: { data: fromHex("0x602a60005260206000fd") }, block: { hash: to0x(chain.head.hash()) }, gasCap: 50_000_000n });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "basalt-callcache-"));
    await Chain.init(dir, devnetGenesis(), { archive: true });
    chain = Chain.open(dir, { logger: silent, archive: true });
    seq = new OpDevSequencer(chain, new TxPool(chain), 0, silent);
    counting = new Counting(new InlineCallService(chain, NO_PENDING));
    cache = new CallCache(counting, (l) => chain.onHead(l));
  });

  afterAll(async () => {
    await cache.close();
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs concurrent identical requests once and answers repeats from the cache", async () => {
    const before = counting.executions;
    const answers = await Promise.all([cache.execute(estimate("0x1")), cache.execute(estimate("0x1")), cache.execute(estimate("0x1"))]);
    expect(answers).toEqual(['"0x5208"', '"0x5208"', '"0x5208"']);
    expect(counting.executions).toBe(before + 1);
    expect(await cache.execute(estimate("0x1"))).toBe('"0x5208"');
    expect(counting.executions).toBe(before + 1);
    // Another request is another execution.
    await cache.execute(estimate("0x2"));
    expect(counting.executions).toBe(before + 2);
  });

  it("caches a revert as the same error", async () => {
    const before = counting.executions;
    const first = await cache.execute(revert()).then(() => undefined, toJsonRpcError);
    const second = await cache.execute(revert()).then(() => undefined, toJsonRpcError);
    expect(first).toEqual({ code: 3, message: "execution reverted", data: "0x" + "2a".padStart(64, "0") });
    expect(second).toEqual(first);
    expect(counting.executions).toBe(before + 1);
  });

  it("empties when the head moves; requests at other blocks are separate", async () => {
    const oldHead = to0x(chain.head.hash());
    await cache.execute(estimate("0x3"));
    expect(cache.size).toBeGreaterThan(0);
    await seq.sealOne();
    expect(cache.size).toBe(0);
    const before = counting.executions;
    await cache.execute(estimate("0x3"));
    await cache.execute(estimate("0x3", oldHead));
    expect(counting.executions).toBe(before + 2);
  });

  it("never caches pending requests", async () => {
    const before = counting.executions;
    const req: CallRequest = { ...estimate("0x4"), block: { pending: true } };
    await cache.execute(req);
    await cache.execute(req);
    expect(counting.executions).toBe(before + 2);
  });
});
