/**
 * End-to-end: the OP flavour of the Engine API, as an OP consensus client (op-node,
 * base-consensus) drives an execution client. Two devnet nodes with the local sequencer off
 * (`--dev.block-time 0`): node A builds blocks from OP payload attributes
 * (engine_forkchoiceUpdatedV3 with `transactions`, `noTxPool`, `gasLimit`, `eip1559Params`,
 * `minBaseFee`; engine_getPayloadV4), node B validates them (engine_newPayloadV4) and follows
 * by forkchoice. Bad payloads are refused with the reason.
 */
import { bytesToHex } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "../../src/chain/op/predeploys.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { engineCall, rpcResult, type Json } from "../helpers/rpc.js";
import { l1InfoTx, TEST_L1_HASH, userDeposit } from "../helpers/opDeposits.js";

type Obj = { [k: string]: Json };

const L1_HASH = TEST_L1_HASH;

describe("OP Engine API (e2e)", () => {
  let a: NodeHandle;
  let b: NodeHandle;
  const dirs: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dirs.push(await makeTempDir("basalt-e2e-opengine-"));
    [a, b] = await Promise.all(dirs.map((datadir) => startNode({ datadir, args: ["--dev.block-time", "0"] })));
  });

  afterAll(async () => {
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  const engine = async (node: NodeHandle, method: string, params: Json[]): Promise<Json> => {
    const r = await engineCall(node.engineUrl, node.jwtSecret, method, params);
    if (r.error !== undefined) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.result as Json;
  };

  const attrs = async (node: NodeHandle, txs: string[]): Promise<Obj> => {
    const head = (await rpcResult(node.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    return {
      timestamp: `0x${(BigInt(head.timestamp as string) + 2n).toString(16)}`,
      prevRandao: bytesToHex(keccak_256(L1_HASH)),
      suggestedFeeRecipient: SEQUENCER_FEE_VAULT_ADDRESS,
      withdrawals: [],
      parentBeaconBlockRoot: bytesToHex(keccak_256(new Uint8Array([1]))),
      transactions: txs,
      noTxPool: true,
      gasLimit: "0x1c9c380",
      eip1559Params: "0x000000fa00000006",
      minBaseFee: "0x989680",
    };
  };

  let built: Obj | undefined;
  let envelope: Obj | undefined;

  it("builds a block from OP payload attributes (forced deposits first)", async () => {
    const head = (await rpcResult(a.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    const recipient = new Uint8Array(20).fill(0x42);
    const fcu = (await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: head.hash },
      await attrs(a, [l1InfoTx(0n), userDeposit(recipient, 10n ** 15n)]),
    ])) as Obj;
    expect((fcu.payloadStatus as Obj).status).toBe("VALID");
    expect(fcu.payloadId).toMatch(/^0x[0-9a-f]{16}$/);
    envelope = (await engine(a, "engine_getPayloadV4", [fcu.payloadId])) as Obj;
    built = envelope.executionPayload as Obj;
    // Since Base's Azul, base-consensus asks engine_getPayloadV5: the same OP V4 envelope (the devnet runs Azul and later).
    expect(await engine(a, "engine_getPayloadV5", [fcu.payloadId])).toEqual(envelope);
    expect(built.blockNumber).toBe(`0x${(BigInt(head.number as string) + 1n).toString(16)}`);
    expect((built.transactions as string[]).length).toBe(2);
    expect((built.transactions as string[])[0]!.startsWith("0x7e")).toBe(true);
    // Isthmus payloads carry the L2ToL1MessagePasser storage root; OP envelopes the beacon root.
    expect(built.withdrawalsRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(envelope.parentBeaconBlockRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(envelope.executionRequests).toEqual([]);
    // Holocene/Jovian: extraData = 0x01 ++ denominator 250 ++ elasticity 6 ++ minBaseFee.
    expect(built.extraData).toBe("0x01000000fa000000060000000000989680");
  });

  it("a second node validates the payload (newPayloadV4) and follows it by forkchoice", async () => {
    const p = built!;
    const status = (await engine(b, "engine_newPayloadV4", [p, [], envelope!.parentBeaconBlockRoot as string, []])) as Obj;
    expect(status).toEqual({ status: "VALID", latestValidHash: p.blockHash, validationError: null });
    const fcu = (await engine(b, "engine_forkchoiceUpdatedV3", [{ headBlockHash: p.blockHash, safeBlockHash: p.blockHash, finalizedBlockHash: p.blockHash }, null])) as Obj;
    expect((fcu.payloadStatus as Obj).status).toBe("VALID");
    const headB = (await rpcResult(b.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    expect(headB.hash).toBe(p.blockHash);
    expect(await rpcResult(b.url, "eth_getBalance", [`0x${"42".repeat(20)}`, "latest"])).toBe("0x38d7ea4c68000");
  });

  it("rejects a payload whose first transaction is not the L1-attributes deposit", async () => {
    const head = (await rpcResult(a.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    const fcu = (await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: head.hash },
      await attrs(a, [userDeposit(new Uint8Array(20).fill(0x43), 1n)]),
    ])) as Obj;
    const r = await engineCall(a.engineUrl, a.jwtSecret, "engine_getPayloadV4", [fcu.payloadId as string]);
    expect(r.error).toBeDefined();
    expect(JSON.stringify(r.error)).toMatch(/first transaction must be the L1-attributes deposit/);
  });

  it("rejects an L1-attributes deposit with a bad source hash, naming the block", async () => {
    // Tamper with a valid payload: swap in an L1-info deposit with a wrong source hash and re-seal it
    // through a third route: newPayload of the modified payload is INVALID (hash mismatch or execution).
    const head = (await rpcResult(a.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    const fcu = (await engine(a, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: head.hash },
      await attrs(a, [l1InfoTx(1n, L1_HASH, new Uint8Array(32).fill(9))]),
    ])) as Obj;
    const r = await engineCall(a.engineUrl, a.jwtSecret, "engine_getPayloadV4", [fcu.payloadId as string]);
    expect(JSON.stringify(r.error)).toMatch(/block \d+, transaction 0: L1-attributes deposit has source hash 0x0909/);
  });

  it("refuses OP payload attributes without the OP fields", async () => {
    const head = (await rpcResult(a.url, "eth_getBlockByNumber", ["latest", false])) as Obj;
    const at = await attrs(a, [l1InfoTx(1n)]);
    delete at.eip1559Params;
    const r = await engineCall(a.engineUrl, a.jwtSecret, "engine_forkchoiceUpdatedV3", [{ headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: head.hash }, at]);
    expect(r.error?.code).toBe(-38003);
    expect(r.error?.message).toMatch(/eip1559Params/);
  });
});
