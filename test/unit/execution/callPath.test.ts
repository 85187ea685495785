/**
 * One path for a call: the request crosses to the worker in its decoded form, encoded once
 * (src/execution/pool/protocol.ts), and a call context builds no @ethereumjs VM unless the
 * reference engine runs there (src/execution/callExecutor.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { CallExecutor } from "../../../src/execution/callExecutor.js";
import type { CallRequest } from "../../../src/execution/callRequest.js";
import { decodeCallRequest, encodeCallRequest, frame, unframe } from "../../../src/execution/pool/protocol.js";
import { parseCallArgs } from "../../../src/rpc/params.js";
import { fromHex } from "../../../src/util/bytes.js";
import { jovianDevnetGenesis } from "../../helpers/opFixtures.js";

describe("call request bytes", () => {
  it("carry the decoded arguments (256-bit quantities, bytes, a null recipient), absent fields left out", () => {
    const args = parseCallArgs({ from: "0x" + "11".repeat(20), value: "0x" + "f".repeat(64), data: "0x60016002", gas: "0x5208", accessList: [{ address: "0x" + "22".repeat(20), storageKeys: ["0x" + "00".repeat(31) + "01"] }] }, 0);
    args.to = null;
    const req: CallRequest = { method: "eth_estimateGas", args, block: { pending: true, at: { blockNumber: 7, flashblockIndex: 2 } }, gasCap: 50_000_000n };
    const back = decodeCallRequest(encodeCallRequest(req));
    expect(back.args.value).toBe(2n ** 256n - 1n);
    expect(back.args.gas).toBe(21_000n);
    expect(back.gasCap).toBe(50_000_000n);
    expect(back.args.to).toBeNull();
    expect("nonce" in back.args).toBe(false);
    expect([...back.args.data!]).toEqual([0x60, 0x01, 0x60, 0x02]);
    expect([...back.args.from!]).toEqual([...fromHex("0x" + "11".repeat(20))]);
    expect([...back.args.accessList![0]!.storageKeys[0]!]).toEqual([...new Uint8Array(31), 1]);
    expect(back.block).toEqual({ pending: true, at: { blockNumber: 7, flashblockIndex: 2 } });
  });

  it("are encoded once per request object (the call cache hashes what the pool sends)", () => {
    const req: CallRequest = { method: "eth_call", args: {}, block: { hash: "0x" + "ab".repeat(32) }, gasCap: 1n };
    expect(encodeCallRequest(req)).toBe(encodeCallRequest(req));
    expect(encodeCallRequest({ ...req })).toEqual(encodeCallRequest(req));
    expect(encodeCallRequest({ ...req, gasCap: 2n })).not.toEqual(encodeCallRequest(req));
  });

  it("batch as length-prefixed frames, each message unchanged", () => {
    const parts = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(300).fill(9)];
    const out = unframe(frame(parts));
    expect(out.map((p) => [...p])).toEqual(parts.map((p) => [...p]));
    expect(unframe(frame([]))).toEqual([]);
  });
});

describe("call contexts", () => {
  let dir: string;
  let chain: Chain;
  let vms = 0;
  const a = devAccounts();
  const transfer = { from: fromHex(a[0]!.address), to: fromHex(a[1]!.address), value: 1n };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "basalt-callpath-"));
    await Chain.init(dir, jovianDevnetGenesis(), { archive: true });
    chain = Chain.open(dir, { logger: pino({ level: "silent" }), archive: true });
    const make = chain.makeVM.bind(chain);
    chain.makeVM = (...args: Parameters<Chain["makeVM"]>) => {
      vms++;
      return make(...args);
    };
  });
  afterAll(async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("build no VM while the fast engine answers", async () => {
    vms = 0;
    const executor = new CallExecutor(chain, "fast");
    expect(await executor.call(chain.head.header, transfer, 50_000_000n)).toEqual(new Uint8Array(0));
    expect(await executor.estimateGas(chain.head.header, transfer, 50_000_000n)).toBe(21_000n);
    expect(vms).toBe(0);
  });

  it("build one VM, once, when the reference engine runs", async () => {
    vms = 0;
    const executor = new CallExecutor(chain, "reference");
    expect(await executor.call(chain.head.header, transfer, 50_000_000n)).toEqual(new Uint8Array(0));
    expect(await executor.estimateGas(chain.head.header, transfer, 50_000_000n)).toBe(21_000n);
    expect(vms).toBe(1);
  });
});
