/**
 * The simulation family over a real devnet chain (in-process, InlineCallService): eth_call and
 * eth_estimateGas with state overrides (code, storage, balance, moved and overridden
 * precompiles) and block overrides, and their refusals; eth_simulateV1 — several blocks chained (numbers, timestamps, parent hashes, state
 * carried across), traceTransfers' ERC-7528 logs, a moved precompile, validation's nonce check,
 * geth's error codes — and the chain is unchanged afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { NO_PENDING } from "../../src/flashblocks/pendingView.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
import { callMethods } from "../../src/rpc/methods/call.js";
import { simulateMethods } from "../../src/rpc/methods/simulate.js";
import { RawJson, type MethodTable, type RpcContext } from "../../src/rpc/types.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";

const CTX: RpcContext = { transport: "http" };
const silent = pino({ level: "silent" });
const dev = devAccounts()[0]!.address;
const X = "0xc000000000000000000000000000000000000000";
const Y = "0xc100000000000000000000000000000000000000";
const Z = "0xc200000000000000000000000000000000000000";
const WORD = (n: bigint): string => "0x" + n.toString(16).padStart(64, "0");
/** Runtime code returning SLOAD(1). */
const SLOAD1 = "0x600154" + "5f5260205ff3";
/** Runtime code returning NUMBER. */
const NUMBER = "0x43" + "5f5260205ff3";
/** Runtime code returning BALANCE(`address`). */
const balanceOf = (address: string): string => "0x73" + address.slice(2) + "31" + "5f5260205ff3";
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

type Json = Record<string, unknown>;

describe("eth_call / eth_estimateGas overrides and eth_simulateV1", () => {
  let dir: string;
  let chain: Chain;
  let m: MethodTable;

  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const r = await m[method]!(params, CTX);
    return r instanceof RawJson ? JSON.parse(r.json) : JSON.parse(JSON.stringify(r));
  };
  const rpcError = async (method: string, params: unknown[]): Promise<{ code: number; message: string }> => {
    try {
      await m[method]!(params, CTX);
    } catch (e) {
      return toJsonRpcError(e) as { code: number; message: string };
    }
    throw new Error(`${method} did not fail`);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "basalt-simulate-"));
    await Chain.init(dir, devnetGenesis(), { archive: true });
    chain = Chain.open(dir, { logger: silent });
    const b: RpcBackend = {
      chain,
      pool: new TxPool(chain),
      calls: new InlineCallService(chain, NO_PENDING),
      settings: { gasCap: 50_000_000n, clientVersion: "test" },
      pending: NO_PENDING,
      syncing: () => false,
    };
    m = { ...callMethods(b), ...simulateMethods(b) };
  });

  afterAll(async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("eth_call and eth_estimateGas", () => {
    it("run with overridden code and storage; without the override the state is the block's", async () => {
      const over = { [Y]: { code: SLOAD1, stateDiff: { [WORD(1n)]: WORD(42n) } } };
      expect(await rpc("eth_call", [{ to: Y }, "latest", over])).toBe(WORD(42n));
      expect(await rpc("eth_call", [{ to: Y }, "latest"])).toBe("0x");
      // `state` replaces the whole storage: slot 1 reads zero.
      expect(await rpc("eth_call", [{ to: Y }, "latest", { [Y]: { code: SLOAD1, state: {} } }])).toBe(WORD(0n));
    });

    it("see an overridden balance, and a block override's number", async () => {
      const over = { [Y]: { code: balanceOf(X) }, [X]: { balance: "0x1234" } };
      expect(await rpc("eth_call", [{ to: Y }, "latest", over])).toBe(WORD(0x1234n));
      expect(await rpc("eth_call", [{ to: Z }, "latest", { [Z]: { code: NUMBER } }, { number: "0x99999" }])).toBe(WORD(0x99999n));
    });

    it("estimate a transfer from an account funded only by the override", async () => {
      const call = { from: X, to: Y, value: "0x3e8" };
      expect(await rpc("eth_estimateGas", [call, "latest", { [X]: { balance: "0x3e8" } }])).toBe("0x5208");
      const refused = await rpcError("eth_estimateGas", [call, "latest"]);
      expect(refused.code).toBe(-32000);
      expect(refused.message).toMatch(/insufficient funds/);
    });

    it("call a moved precompile at its new address, and an overridden precompile's code instead of it", async () => {
      const moved = "0x0000000000000000000000000000000000123456";
      const sha256 = "0x0000000000000000000000000000000000000002";
      const emptySha = "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
      expect(await rpc("eth_call", [{ to: moved }, "latest", { [sha256]: { movePrecompileToAddress: moved } }])).toBe(emptySha);
      expect(await rpc("eth_call", [{ to: sha256 }, "latest", { [sha256]: { movePrecompileToAddress: moved } }])).toBe("0x");
      expect(await rpc("eth_call", [{ to: sha256 }, "latest"])).toBe(emptySha);
      expect(await rpc("eth_call", [{ to: sha256 }, "latest", { [sha256]: { code: NUMBER } }])).toBe(WORD(chain.head.header.number));
    });

    it("answer geth's errors for conflicting or malformed overrides", async () => {
      // The address as geth prints it (EIP-55; this one has no upper-case letter).
      expect(await rpcError("eth_call", [{ to: Y }, "latest", { [Y]: { state: {}, stateDiff: {} } }])).toEqual({
        code: -32000,
        message: "account 0xc100000000000000000000000000000000000000 has both 'state' and 'stateDiff'",
      });
      expect((await rpcError("eth_call", [{ to: Y }, "latest", { [Y]: { balance: "1" } }])).code).toBe(-32602);
      expect(await rpcError("eth_call", [{ to: Y }, "latest", undefined, { beaconRoot: WORD(1n) }])).toEqual({
        code: -32000,
        message: 'block override "beaconRoot" is not supported for this RPC method',
      });
    });
  });

  describe("eth_simulateV1", () => {
    it("chains blocks on the head, carries state across them and traces transfers", async () => {
      const head = chain.head.header;
      const headHash = to0x(chain.head.hash());
      const out = (await rpc("eth_simulateV1", [
        {
          blockStateCalls: [
            { stateOverrides: { [X]: { balance: "0x3e8" } }, calls: [{ from: X, to: Y, value: "0x3e8" }] },
            { stateOverrides: { [Z]: { code: balanceOf(Y) } }, calls: [{ from: dev, to: Z }] },
          ],
          traceTransfers: true,
        },
        "latest",
      ])) as Json[];
      expect(out).toHaveLength(2);
      const [b1, b2] = out as [Json, Json];
      expect(b1.number).toBe("0x" + (head.number + 1n).toString(16));
      expect(b2.number).toBe("0x" + (head.number + 2n).toString(16));
      expect(b1.timestamp).toBe("0x" + (head.timestamp + 12n).toString(16));
      expect(b2.timestamp).toBe("0x" + (head.timestamp + 24n).toString(16));
      expect(b1.parentHash).toBe(headHash);
      expect(b2.parentHash).toBe(b1.hash);
      expect(b1.stateRoot).not.toBe(b2.stateRoot);
      const c1 = (b1.calls as Json[])[0]!;
      expect(c1).toMatchObject({ status: "0x1", gasUsed: "0x5208", returnData: "0x" });
      const logs = c1.logs as Json[];
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        topics: [TRANSFER_TOPIC, "0x" + X.slice(2).padStart(64, "0"), "0x" + Y.slice(2).padStart(64, "0")],
        data: WORD(0x3e8n),
        blockHash: b1.hash,
        transactionHash: (b1.transactions as string[])[0],
        logIndex: "0x0",
      });
      // Transfer logs are not the block's: its bloom stays empty.
      expect(b1.logsBloom).toBe("0x" + "0".repeat(512));
      expect((b2.calls as Json[])[0]!.returnData).toBe(WORD(0x3e8n));
      // Nothing was committed.
      expect(to0x(chain.head.hash())).toBe(headHash);
    });

    it("runs a moved precompile at its new address and leaves its old address empty", async () => {
      const moved = "0x0000000000000000000000000000000000123456";
      const out = (await rpc("eth_simulateV1", [
        { blockStateCalls: [{ stateOverrides: { "0x0000000000000000000000000000000000000002": { movePrecompileToAddress: moved } }, calls: [{ to: moved }, { to: "0x0000000000000000000000000000000000000002" }] }] },
        "latest",
      ])) as Json[];
      const calls = out[0]!.calls as Json[];
      // sha256 of the empty input.
      expect(calls[0]!.returnData).toBe("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
      expect(calls[1]!.returnData).toBe("0x");
    });

    it("reports a failed call in its result: revert data in the error, no return data", async () => {
      const revert42 = "0x602a5f5260205ffd";
      const out = (await rpc("eth_simulateV1", [{ blockStateCalls: [{ stateOverrides: { [Y]: { code: revert42 } }, calls: [{ to: Y }] }] }, "latest"])) as Json[];
      const c = (out[0]!.calls as Json[])[0]!;
      expect(c).toMatchObject({ status: "0x0", returnData: "0x", error: { code: 3, data: WORD(42n) } });
    });

    it("answers geth's codes: nonce too low with validation, blocks out of order, too many blocks, empty input", async () => {
      const nonceTooLow = await rpcError("eth_simulateV1", [
        { blockStateCalls: [{ stateOverrides: { [X]: { nonce: "0x5", balance: "0xffffffffffffffff" } }, calls: [{ from: X, to: Y, nonce: "0x1", maxFeePerGas: "0x3b9aca00" }] }], validation: true },
        "latest",
      ]);
      expect(nonceTooLow).toEqual({ code: -38010, message: "nonce too low: address 0xC000000000000000000000000000000000000000, tx: 1 state: 5" });
      const n = chain.head.header.number;
      expect((await rpcError("eth_simulateV1", [{ blockStateCalls: [{ blockOverrides: { number: "0x" + n.toString(16) } }] }, "latest"])).code).toBe(-38020);
      expect(await rpcError("eth_simulateV1", [{ blockStateCalls: Array.from({ length: 1000 }, () => ({})) }, "latest"])).toEqual({ code: -38026, message: "too many blocks" });
      expect(await rpcError("eth_simulateV1", [{ blockStateCalls: [] }, "latest"])).toEqual({ code: -32602, message: "empty input" });
      expect(await rpcError("eth_simulateV1", [{ blockStateCalls: [{ calls: [{ from: X, to: Y, gas: "0xffffffffffff" }] }] }, "latest"])).toMatchObject({ code: -38015 });
    });
  });
});
