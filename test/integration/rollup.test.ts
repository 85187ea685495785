/**
 * The consensus-side RPC (src/rollup) on an in-process devnet chain, and the sync gate of
 * eth_sendRawTransaction(Sync):
 * - optimism_syncStatus: every op-node key in order, refs in op-node's field order with decimal
 *   numbers, unsafe_l2 = head, safe/finalized from the pointers, l1origin/sequenceNumber from the
 *   L1-attributes deposit, head_l1 = the simulated L1 origin on the sequencing devnet, zero refs
 *   elsewhere (and for a missing pointer);
 * - optimism_outputAtBlock: the v0 root recomputed here; the withdrawal storage root equals the
 *   Isthmus header's withdrawalsRoot and the message passer's storage root in the state;
 * - optimism_rollupConfig on the devnet and on a Base mainnet chain; optimism_version, healthz,
 *   optimism_safeHeadAtL1Block (-32601); over HTTP with the "rollup" server; no server off OP chains;
 * - eth_sendRawTransaction(Sync) refuses with -32000 while more than 8 blocks behind, not at 8;
 *   eth_syncing reports geth's three hex fields while behind, false otherwise.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, hexToBytes, setLengthLeft, toChecksumAddress } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { decodeL1InfoCalldata } from "../../src/chain/op/l1InfoTx.js";
import { opConfigFromGenesisConfig } from "../../src/chain/op/forks.js";
import { OP_NETWORKS, opGenesisConfig } from "../../src/chain/op/networks.js";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../../src/chain/op/predeploys.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { nodeMethods } from "../../src/rpc/methods/node.js";
import { sendSyncMethods } from "../../src/rpc/methods/sendSync.js";
import { assertSyncedForSend, NodeSyncingError, txpoolMethods } from "../../src/rpc/methods/txpool.js";
import { SEND_MAX_SYNC_LAG_BLOCKS } from "../../src/rpc/constants.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { devnetSystemConfigScalar, rollupConfigOf } from "../../src/rollup/rollupConfig.js";
import { rollupMethods } from "../../src/rollup/methods.js";
import { startRollupServer } from "../../src/rollup/server.js";
import { OpDevSequencer, devL1BlockHash } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
const accounts = devAccounts();
const GWEI = 10n ** 9n;
const ZERO = "0x" + "00".repeat(32);
/** op-node's SyncStatus keys, in its order (Base's ten plus pending_safe_l2). */
const SYNC_KEYS = [
  "current_l1",
  "current_l1_finalized",
  "head_l1",
  "safe_l1",
  "finalized_l1",
  "unsafe_l2",
  "safe_l2",
  "finalized_l2",
  "pending_safe_l2",
  "cross_unsafe_l2",
  "local_safe_l2",
];
const L1_KEYS = ["hash", "number", "parentHash", "timestamp"];
const L2_KEYS = [...L1_KEYS, "l1origin", "sequenceNumber"];
/** `initiateWithdrawal(address,uint256,bytes)` of the L2ToL1MessagePasser. */
const INITIATE_WITHDRAWAL_SELECTOR = "0xc2b3e5ac";

type L1Ref = { hash: string; number: number; parentHash: string; timestamp: number };
type L2Ref = L1Ref & { l1origin: { hash: string; number: number }; sequenceNumber: number };
type SyncStatus = Record<string, L1Ref | L2Ref>;

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freshChain(): Promise<Chain> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-rollup-"));
  dirs.push(dir);
  await Chain.init(dir, devnetGenesis(), { archive: true });
  return Chain.open(dir, { logger: silent });
}

/** A withdrawal through the message passer (writes its storage, so the withdrawal root is not the empty root). */
function withdrawalTx(chain: Chain, nonce: bigint): Uint8Array {
  const head = chain.head.header;
  const word = (v: bigint): Uint8Array => setLengthLeft(hexToBytes(`0x${v.toString(16).padStart(2, "0")}`), 32);
  const target = setLengthLeft(hexToBytes(accounts[3]!.address as `0x${string}`), 32);
  const data = concatBytes(hexToBytes(INITIATE_WITHDRAWAL_SELECTOR), target, word(100_000n), word(0x60n), word(0n));
  return createFeeMarket1559Tx(
    {
      chainId: chain.chainId,
      nonce,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI / 1000n,
      gasLimit: 200_000n,
      to: L2_TO_L1_MESSAGE_PASSER_ADDRESS as `0x${string}`,
      value: 1000n,
      data,
    },
    { common: chain.commonAt(head.number + 1n, head.timestamp + 1n) },
  )
    .sign(hexToBytes(accounts[1]!.privateKey as `0x${string}`))
    .serialize();
}

async function call(m: MethodTable, method: string, params: unknown[] = []): Promise<unknown> {
  const h = m[method];
  if (h === undefined) throw new Error(`no handler ${method}`);
  return h(params, { transport: "rollup" });
}

async function callErr(m: MethodTable, method: string, params: unknown[] = []): Promise<{ code: number; message: string }> {
  try {
    await call(m, method, params);
  } catch (e) {
    return toJsonRpcError(e);
  }
  throw new Error(`${method} did not fail`);
}

function expectL1Ref(r: unknown): asserts r is L1Ref {
  expect(Object.keys(r as object)).toEqual(L1_KEYS);
  const o = r as L1Ref;
  expect(o.hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(o.parentHash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(Number.isSafeInteger(o.number) && o.number >= 0).toBe(true);
  expect(Number.isSafeInteger(o.timestamp) && o.timestamp >= 0).toBe(true);
}

function expectL2Ref(r: unknown): asserts r is L2Ref {
  expect(Object.keys(r as object)).toEqual(L2_KEYS);
  const o = r as L2Ref;
  expectL1Ref({ hash: o.hash, number: o.number, parentHash: o.parentHash, timestamp: o.timestamp });
  expect(Object.keys(o.l1origin)).toEqual(["hash", "number"]);
  expect(o.l1origin.hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(Number.isSafeInteger(o.l1origin.number)).toBe(true);
  expect(Number.isSafeInteger(o.sequenceNumber)).toBe(true);
}

const zeroL1 = { hash: ZERO, number: 0, parentHash: ZERO, timestamp: 0 };

describe("rollup RPC on the devnet", () => {
  let chain: Chain;
  let seq: OpDevSequencer;
  let pool: TxPool;
  let methods: MethodTable;

  beforeAll(async () => {
    chain = await freshChain();
    pool = new TxPool(chain);
    seq = new OpDevSequencer(chain, pool, 0, silent);
    methods = rollupMethods({ chain, version: "1.2.3", devnet: true, sequencing: true, devBlockTime: 2 });
  });

  afterAll(async () => {
    await seq.stop();
    await chain.close();
  });

  it("reports the genesis as unsafe, safe and finalized on a fresh chain (op-node starts from the rollup genesis)", async () => {
    const s = (await call(methods, "optimism_syncStatus")) as SyncStatus;
    expect(Object.keys(s)).toEqual(SYNC_KEYS);
    expect(s.unsafe_l2).toEqual({
      hash: bytesToHex(chain.genesisHash),
      number: 0,
      parentHash: ZERO,
      timestamp: Number(chain.head.header.timestamp),
      // The genesis block's origin is the rollup genesis's L1 anchor: simulated L1 block 0.
      l1origin: { hash: bytesToHex(devL1BlockHash(0n)), number: 0 },
      sequenceNumber: 0,
    });
    expect(s.safe_l2).toEqual(s.unsafe_l2);
    expect(s.finalized_l2).toEqual(s.unsafe_l2);
  });

  it("answers optimism_syncStatus in op-node's shape, L2 refs from the head/pointers and their deposits", async () => {
    await seq.sealOne();
    await pool.addRaw(withdrawalTx(chain, 0n));
    await seq.sealOne();
    await seq.sealOne();
    const s = (await call(methods, "optimism_syncStatus")) as SyncStatus;
    expect(Object.keys(s)).toEqual(SYNC_KEYS);
    for (const k of SYNC_KEYS) {
      if (k.endsWith("_l1") || k === "current_l1_finalized") expectL1Ref(s[k]);
      else expectL2Ref(s[k]);
    }
    const head = chain.head;
    const unsafe = s.unsafe_l2 as L2Ref;
    expect(unsafe.number).toBe(Number(head.header.number));
    expect(unsafe.hash).toBe(bytesToHex(head.hash()));
    expect(unsafe.parentHash).toBe(bytesToHex(head.header.parentHash));
    expect(unsafe.timestamp).toBe(Number(head.header.timestamp));
    const { values } = decodeL1InfoCalldata((head.transactions[0] as unknown as { data: Uint8Array }).data);
    expect(unsafe.l1origin).toEqual({ hash: bytesToHex(values.hash), number: Number(values.number) });
    expect(unsafe.sequenceNumber).toBe(Number(values.sequenceNumber));
    expect(s.cross_unsafe_l2).toEqual(unsafe);
    // The devnet sequencer marks every block safe and finalized.
    const safe = chain.pointer("safe")!;
    expect((s.safe_l2 as L2Ref).hash).toBe(bytesToHex(safe.hash()));
    expect(s.local_safe_l2).toEqual(s.safe_l2);
    expect(s.pending_safe_l2).toEqual(s.safe_l2);
    expect((s.finalized_l2 as L2Ref).hash).toBe(bytesToHex(chain.pointer("finalized")!.hash()));
    // The simulated L1: head_l1/current_l1 = the head's origin; the rest zeroed.
    const headL1 = {
      hash: bytesToHex(values.hash),
      number: Number(values.number),
      parentHash: values.number > 0n ? bytesToHex(devL1BlockHash(values.number - 1n)) : ZERO,
      timestamp: Number(values.timestamp),
    };
    expect(s.head_l1).toEqual(headL1);
    expect(s.current_l1).toEqual(headL1);
    for (const k of ["current_l1_finalized", "safe_l1", "finalized_l1"]) expect(s[k]).toEqual(zeroL1);
  });

  it("zeroes every L1 ref when the node does not sequence (follow mode)", async () => {
    const follow = rollupMethods({ chain, version: "1.2.3", devnet: true, sequencing: false });
    const s = (await call(follow, "optimism_syncStatus")) as SyncStatus;
    for (const k of ["current_l1", "current_l1_finalized", "head_l1", "safe_l1", "finalized_l1"]) expect(s[k]).toEqual(zeroL1);
    expect((s.unsafe_l2 as L2Ref).number).toBe(Number(chain.head.header.number));
  });

  it("computes optimism_outputAtBlock's v0 root; the withdrawal root equals the Isthmus header and the state", async () => {
    for (const tag of ["latest", "0x0", "0x2", "safe", "finalized"]) {
      const out = (await call(methods, "optimism_outputAtBlock", [tag])) as Record<string, unknown>;
      expect(Object.keys(out)).toEqual(["version", "outputRoot", "blockRef", "withdrawalStorageRoot", "stateRoot", "syncStatus"]);
      const ref = out.blockRef as L2Ref;
      expectL2Ref(ref);
      const block = chain.getBlockByNumber(BigInt(ref.number))!;
      expect(ref.hash).toBe(bytesToHex(block.hash()));
      expect(out.version).toBe(ZERO);
      expect(out.stateRoot).toBe(bytesToHex(block.header.stateRoot));
      expect(out.withdrawalStorageRoot).toBe(bytesToHex(block.header.withdrawalsRoot!));
      const passer = chain.stateAt(block.header).account(hexToBytes(L2_TO_L1_MESSAGE_PASSER_ADDRESS as `0x${string}`))!;
      expect(out.withdrawalStorageRoot).toBe(bytesToHex(passer.storageRoot));
      const pre = concatBytes(new Uint8Array(32), block.header.stateRoot, hexToBytes(out.withdrawalStorageRoot as `0x${string}`), block.hash());
      expect(out.outputRoot).toBe(bytesToHex(keccak_256(pre)));
      expect(Object.keys(out.syncStatus as object)).toEqual(SYNC_KEYS);
    }
    // Block 2 holds the withdrawal: its root differs from genesis's empty storage root.
    const g = (await call(methods, "optimism_outputAtBlock", ["0x0"])) as { withdrawalStorageRoot: string };
    const b2 = (await call(methods, "optimism_outputAtBlock", ["0x2"])) as { withdrawalStorageRoot: string };
    expect(b2.withdrawalStorageRoot).not.toBe(g.withdrawalStorageRoot);
  });

  it("refuses a block above the head and malformed parameters", async () => {
    expect((await callErr(methods, "optimism_outputAtBlock", ["0x100"])).code).toBe(-32000);
    expect((await callErr(methods, "optimism_outputAtBlock", [])).code).toBe(-32602);
    expect((await callErr(methods, "optimism_outputAtBlock", ["nope"])).code).toBe(-32602);
  });

  it("serves the devnet rollup config, version, healthz and refuses optimism_safeHeadAtL1Block", async () => {
    const cfg = (await call(methods, "optimism_rollupConfig")) as Record<string, unknown>;
    const genesis = cfg.genesis as Record<string, unknown>;
    expect(genesis.l1).toEqual({ hash: bytesToHex(devL1BlockHash(0n)), number: 0 });
    expect(genesis.l2).toEqual({ hash: bytesToHex(chain.genesisHash), number: 0 });
    expect(genesis.l2_time).toBe(Number(chain.getBlockByNumber(0n)!.header.timestamp));
    expect(genesis.system_config).toEqual({
      batcherAddr: toChecksumAddress("0x000000000000000000000000000000000000ba7c"),
      overhead: ZERO,
      scalar: devnetSystemConfigScalar(),
      gasLimit: 60_000_000,
    });
    expect(cfg.block_time).toBe(2);
    expect(cfg.l2_chain_id).toBe(845337);
    expect(cfg.l1_chain_id).toBeUndefined();
    for (const f of ["regolith", "canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus", "jovian"]) expect(cfg[`${f}_time`]).toBe(0);
    expect(cfg.chain_op_config).toEqual({ eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 });
    // The scalar carries the scalars the devnet's L1-attributes deposits carry.
    const { values } = decodeL1InfoCalldata((chain.head.transactions[0] as unknown as { data: Uint8Array }).data);
    const scalar = BigInt(devnetSystemConfigScalar());
    expect(scalar & 0xffffffffn).toBe(values.baseFeeScalar);
    expect((scalar >> 32n) & 0xffffffffn).toBe(values.blobBaseFeeScalar);
    expect(await call(methods, "optimism_version")).toBe("1.2.3");
    expect(await call(methods, "healthz")).toEqual({ version: "1.2.3" });
    expect((await callErr(methods, "optimism_safeHeadAtL1Block", ["latest"])).code).toBe(-32601);
  });

  it("serves the methods over HTTP on its own port", async () => {
    const server = await startRollupServer({ chain, host: "127.0.0.1", port: 0, version: "1.2.3", devnet: true, sequencing: true, logger: silent });
    expect(server).toBeDefined();
    try {
      const post = async (method: string): Promise<Record<string, unknown>> => {
        const res = await fetch(`http://127.0.0.1:${server!.port}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
          signal: AbortSignal.timeout(5000),
        });
        return (await res.json()) as Record<string, unknown>;
      };
      expect((await post("healthz")).result).toEqual({ version: "1.2.3" });
      const s = (await post("optimism_syncStatus")).result as SyncStatus;
      expect((s.unsafe_l2 as L2Ref).number).toBe(Number(chain.head.header.number));
      expect((await post("eth_blockNumber")).error).toMatchObject({ code: -32601 });
    } finally {
      server!.close();
    }
  });
});

describe("rollup config of a built-in network", () => {
  it("carries Base mainnet's registry values", () => {
    const n = OP_NETWORKS["base-mainnet"];
    const config = opGenesisConfig(n);
    const genesisBlock = { header: { timestamp: n.genesis.l2Time } };
    const stub = {
      chainId: n.chainId,
      genesisHash: hexToBytes(n.genesisHash as `0x${string}`),
      op: opConfigFromGenesisConfig(config),
      genesis: { config },
      getBlockByNumber: (x: bigint) => (x === 0n ? genesisBlock : undefined),
    } as unknown as Chain;
    const cfg = rollupConfigOf(stub, { network: n, devnet: false });
    expect(Object.keys(cfg).slice(0, 8)).toEqual([
      "genesis",
      "block_time",
      "max_sequencer_drift",
      "seq_window_size",
      "channel_timeout",
      "granite_channel_timeout",
      "l1_chain_id",
      "l2_chain_id",
    ]);
    expect(cfg.genesis).toEqual({
      l1: { hash: "0x5c13d307623a926cd31415036c8b7fa14572f9dac64528e857a470511fc30771", number: 17481768 },
      l2: { hash: "0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd", number: 0 },
      l2_time: 1686789347,
      system_config: {
        batcherAddr: "0x5050F69a9786F081509234F1a7F4684b5E5b76C9",
        overhead: "0x00000000000000000000000000000000000000000000000000000000000000bc",
        scalar: "0x00000000000000000000000000000000000000000000000000000000000a6fe0",
        gasLimit: 30000000,
      },
    });
    expect(cfg).toMatchObject({
      block_time: 2,
      max_sequencer_drift: 600,
      seq_window_size: 3600,
      channel_timeout: 300,
      granite_channel_timeout: 50,
      l1_chain_id: 1,
      l2_chain_id: 8453,
      regolith_time: 0,
      canyon_time: 1704992401,
      isthmus_time: 1746806401,
      batch_inbox_address: "0xFf00000000000000000000000000000000008453",
      deposit_contract_address: "0x49048044D57e1C92A77f79988d21Fa8fAF74E97e",
      l1_system_config_address: "0x73a79Fab69143498Ed3712e519A88a918e1f4072",
      chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    });
  });

  it("starts no server on a chain that is not an OP Stack chain", async () => {
    const stub = { op: undefined, chainId: 1n } as unknown as Chain;
    const opts = { chain: stub, host: "127.0.0.1", port: 0, version: "1", devnet: false, sequencing: false, logger: silent };
    expect(await startRollupServer(opts)).toBeUndefined();
  });
});

describe("eth_sendRawTransaction while syncing", () => {
  const status =
    (current: bigint, highest: bigint): RpcBackend["syncing"] =>
    () => ({ startingBlock: 0n, currentBlock: current, highestBlock: highest });
  const RAW = "0x02f86b";

  function backend(syncing: RpcBackend["syncing"], added: string[]): RpcBackend {
    return {
      chain: { op: undefined } as unknown as Chain,
      pool: { addRaw: async (raw: Uint8Array) => (added.push(bytesToHex(raw)), { hash: new Uint8Array(32).fill(7) }) } as unknown as TxPool,
      syncing,
    } as unknown as RpcBackend;
  }

  it("passes while synced or at most SEND_MAX_SYNC_LAG_BLOCKS behind", async () => {
    expect(SEND_MAX_SYNC_LAG_BLOCKS).toBe(8n);
    expect(() => assertSyncedForSend({ syncing: () => false })).not.toThrow();
    expect(() => assertSyncedForSend({ syncing: status(100n, 108n) })).not.toThrow();
    const added: string[] = [];
    const m = txpoolMethods(backend(status(100n, 108n), added));
    expect(await m.eth_sendRawTransaction!([RAW], { transport: "http" })).toBe("0x" + "07".repeat(32));
    expect(added).toEqual([RAW]);
  });

  it("refuses with -32000 naming the lag when more than 8 blocks behind, before pooling", async () => {
    const added: string[] = [];
    const b = backend(status(100n, 109n), added);
    const expected = {
      code: -32000,
      message: "node is syncing: behind the network by 9 blocks (local head 100, network head 109); retry once synced",
    };
    expect(await callErr(txpoolMethods(b), "eth_sendRawTransaction", [RAW])).toEqual(expected);
    expect(await callErr(sendSyncMethods(b), "eth_sendRawTransactionSync", [RAW])).toEqual(expected);
    expect(added).toEqual([]);
    try {
      assertSyncedForSend(b);
    } catch (e) {
      expect(e).toBeInstanceOf(NodeSyncingError);
      expect((e as NodeSyncingError).code).toBe("RPC_NODE_SYNCING");
    }
  });

  it("eth_syncing reports geth's fields as hex quantities while behind, false otherwise", async () => {
    const behind = backend(() => ({ startingBlock: 5n, currentBlock: 100n, highestBlock: 0x200n }), []);
    expect(await call(nodeMethods(behind), "eth_syncing")).toEqual({ startingBlock: "0x5", currentBlock: "0x64", highestBlock: "0x200" });
    expect(await call(nodeMethods(backend(() => false, [])), "eth_syncing")).toBe(false);
  });

  it("checks the parameters first", async () => {
    const b = backend(status(0n, 1000n), []);
    expect((await callErr(txpoolMethods(b), "eth_sendRawTransaction", [])).code).toBe(-32602);
  });
});
