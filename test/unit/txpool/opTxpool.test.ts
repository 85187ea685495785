/**
 * The transaction pool's OP Stack rules (op-reth / base-reth-node): deposits and blob transactions are
 * refused, the EIP-7825 gas cap applies from Azul, and the balance must also cover the L1 data fee
 * (read from the L1Block predeploy's storage in the head state). The L1 fee check uses the real Base
 * mainnet block 21713817 values of shared/fixtures/op/op-fee-vectors.json.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createBlockHeader, Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createBlob4844Tx, createFeeMarket1559Tx, createLegacyTx, createTxFromRLP } from "@ethereumjs/tx";
import { type Account, bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, createAccount } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import type { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import type { OpChainConfig } from "../../../src/chain/op/forks.js";
import type { StateReader } from "../../../src/execution/state/stateReader.js";
import { OP_GAS_LIMIT_TOO_HIGH_MESSAGE, OP_UNSUPPORTED_TX_MESSAGE, TxPool } from "../../../src/txpool/txpool.js";
import { MAX_TX_GAS_EIP7825 } from "../../../src/execution/constants.js";
import { fromHex } from "../../../src/util/bytes.js";
import { BASE_MAINNET_OP, allForksGenesis } from "../../helpers/opFixtures.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
interface RealVector {
  chain: string;
  block: number;
  timestamp?: number;
  rawTx: string;
  l1InfoDepositRaw?: string;
  expected: { receipt?: Record<string, number | null> };
}
const VECTORS_FILE = path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json");
const VECTORS = JSON.parse(readFileSync(VECTORS_FILE, "utf8")) as { l1_cost_real: RealVector[] };
const BASE = VECTORS.l1_cost_real.find((v) => v.chain === "Base Mainnet" && v.block === 21713817)!;
const BASE_L1_FEE = BigInt(BASE.expected.receipt!.l1Fee!);

/** Base mainnet fork times (superchain-registry base.toml); Azul unscheduled. */
const BASE_MAINNET = BASE_MAINNET_OP;
/** Every OP fork through Jovian at 0, Azul (and Base's later upgrades) at 0 or unscheduled. */
function allForksAtZero(azul: boolean): OpChainConfig {
  const forkTimes: OpChainConfig["forkTimes"] = { ...BASE_MAINNET.forkTimes };
  for (const k of Object.keys(forkTimes) as (keyof OpChainConfig["forkTimes"])[]) forkTimes[k] = 0n;
  if (!azul) {
    delete forkTimes.azul;
    delete forkTimes.beryl;
    delete forkTimes.cobalt;
  }
  return { ...BASE_MAINNET, forkTimes };
}

/** Common with Osaka (Azul) active: @ethereumjs itself refuses gas above 2^24 when decoding. */
const COMMON_AZUL: Common = commonFromGenesis(allForksGenesis({ azul: true }), "op-pool-azul");
/** Common before Osaka: only the pool's own Azul check can refuse gas above 2^24. */
const COMMON_PRE_AZUL: Common = commonFromGenesis(allForksGenesis({ azul: false }), "op-pool-pre-azul");

const L1_BLOCK = fromHex("0x4200000000000000000000000000000000000015");
/** L1Block storage after Base block 21713817's L1-info deposit (Ecotone layout; op-revm slot numbers). */
const BASE_L1_SLOTS = new Map<bigint, bigint>([
  [1n, 14_121_491_676n], // basefee
  [3n, (2269n << 96n) | (1_055_762n << 64n) | 4n], // baseFeeScalar @ bytes 16..20, blobBaseFeeScalar @ 20..24, sequenceNumber
  [7n, 1_324_954_204n], // blobBaseFee
]);

interface FakeChainOptions {
  op: OpChainConfig | undefined;
  common: Common;
  headTimestamp: bigint;
  accounts: Map<string, Account>;
  l1Slots?: Map<bigint, bigint>;
}

/** The slice of `Chain` the pool reads: head block, fork rules, head state, OP config. */
function fakeChain(o: FakeChainOptions): Chain {
  const fields = { number: 100n, timestamp: o.headTimestamp, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000n };
  const header = createBlockHeader(fields, { common: o.common });
  const head = new Block(header, [], [], [], { common: o.common });
  const state: StateReader = {
    stateRoot: new Uint8Array(32),
    account: (address) => o.accounts.get(bytesToHex(address)),
    storage: (address, slot) => {
      if (bytesToHex(address) !== bytesToHex(L1_BLOCK)) return new Uint8Array(0);
      return bigIntToUnpaddedBytes(o.l1Slots?.get(bytesToBigInt(slot)) ?? 0n);
    },
    code: () => undefined,
  };
  return { op: o.op, head, commonAt: () => o.common, stateAt: () => state } as unknown as Chain;
}

const baseTx = createTxFromRLP(fromHex(BASE.rawTx), { common: COMMON_AZUL });
const BASE_SENDER = bytesToHex(baseTx.getSenderAddress().bytes);
/** gas * maxFeePerGas + value of the Base transaction. */
const BASE_TX_COST = baseTx.getUpfrontCost();

function basePool(op: OpChainConfig | undefined, balance: bigint, nonce = 0n): TxPool {
  const accounts = new Map([[BASE_SENDER, createAccount({ nonce, balance })]]);
  return new TxPool(fakeChain({ op, common: COMMON_AZUL, headTimestamp: BigInt(BASE.timestamp!), accounts, l1Slots: BASE_L1_SLOTS }));
}

const KEY = new Uint8Array(32).fill(0x5a);

function richPool(op: OpChainConfig | undefined, common: Common): { pool: TxPool; sender: string } {
  const probe = createFeeMarket1559Tx({ chainId: 8453n, gasLimit: 21_000n, maxFeePerGas: 1n }, { common }).sign(KEY);
  const sender = bytesToHex(probe.getSenderAddress().bytes);
  const accounts = new Map([[sender, createAccount({ nonce: 0n, balance: 10n ** 30n })]]);
  return { pool: new TxPool(fakeChain({ op, common, headTimestamp: 1_800_000_000n, accounts })), sender };
}

function signed1559(common: Common, gasLimit: bigint): Uint8Array {
  const fields = { chainId: 8453n, gasLimit, maxFeePerGas: 2_000_000n, maxPriorityFeePerGas: 1n, to: new Uint8Array(20).fill(9) };
  return createFeeMarket1559Tx(fields, { common }).sign(KEY).serialize();
}

describe("OP pool: transaction types", () => {
  it("refuses deposits as op-reth does (they do not decode as pooled transactions)", async () => {
    const pool = basePool(BASE_MAINNET, 10n ** 30n);
    await expect(pool.addRaw(fromHex(BASE.l1InfoDepositRaw!))).rejects.toThrow(new RegExp(`^${OP_UNSUPPORTED_TX_MESSAGE}$`));
    expect(pool.size).toBe(0);
  });

  it("refuses blob transactions on OP chains only", async () => {
    // A versioned hash: version byte 0x01, then any 31 bytes.
    const versionedHash = new Uint8Array(32).fill(0x33);
    versionedHash[0] = 1;
    const fields = { chainId: 8453n, gasLimit: 21_000n, maxFeePerGas: 2_000_000n, maxFeePerBlobGas: 1n, to: new Uint8Array(20).fill(9) };
    const blob = createBlob4844Tx({ ...fields, blobVersionedHashes: [versionedHash] }, { common: COMMON_AZUL }).sign(KEY).serialize();
    expect(blob[0]).toBe(3);
    const { pool } = richPool(allForksAtZero(true), COMMON_AZUL);
    await expect(pool.addRaw(blob)).rejects.toThrow(OP_UNSUPPORTED_TX_MESSAGE);
    // A plain Ethereum chain takes blob transactions, in their network form only (test/unit/chain/blobSidecar.test.ts):
    // the canonical form is refused for its missing sidecar, not as an unsupported type.
    const plain = richPool(undefined, COMMON_AZUL).pool;
    await expect(plain.addRaw(blob)).rejects.toThrow(expect.objectContaining({ code: "TXPOOL_INVALID_BLOB_SIDECAR", meta: { reason: "BLOB_SIDECAR_MISSING" } }));
  });
});

describe("OP pool: EIP-7825 gas cap from Azul", () => {
  it("refuses gas above 2^24 at Azul (decoder refusal mapped to op-reth's message)", async () => {
    const { pool } = richPool(allForksAtZero(true), COMMON_AZUL);
    await expect(pool.addRaw(signed1559(COMMON_PRE_AZUL, MAX_TX_GAS_EIP7825 + 1n))).rejects.toThrow(new RegExp(`^${OP_GAS_LIMIT_TOO_HIGH_MESSAGE}$`));
    await expect(pool.addRaw(signed1559(COMMON_AZUL, MAX_TX_GAS_EIP7825))).resolves.toBeDefined();
  });

  it("refuses gas above 2^24 when the OP schedule is at Azul even if the Common is not", async () => {
    const { pool } = richPool(allForksAtZero(true), COMMON_PRE_AZUL);
    await expect(pool.addRaw(signed1559(COMMON_PRE_AZUL, MAX_TX_GAS_EIP7825 + 1n))).rejects.toThrow(OP_GAS_LIMIT_TOO_HIGH_MESSAGE);
  });

  it("accepts gas above 2^24 before Azul", async () => {
    const { pool } = richPool(allForksAtZero(false), COMMON_PRE_AZUL);
    const p = await pool.addRaw(signed1559(COMMON_PRE_AZUL, MAX_TX_GAS_EIP7825 + 1n));
    expect(p.tx.gasLimit).toBe(MAX_TX_GAS_EIP7825 + 1n);
    expect(pool.size).toBe(1);
  });
});

describe("OP pool: balance must cover the L1 data fee", () => {
  const want = BASE_TX_COST + BASE_L1_FEE;

  it("refuses a sender one wei short of gas * maxFee + value + L1 fee", async () => {
    const pool = basePool(BASE_MAINNET, want - 1n);
    await expect(pool.addRaw(fromHex(BASE.rawTx))).rejects.toThrow(
      `insufficient funds for gas * price + value: address ${BASE_SENDER} have ${want - 1n} want ${want}`,
    );
    expect(pool.size).toBe(0);
  });

  it("accepts a sender with exactly gas * maxFee + value + L1 fee", async () => {
    const pool = basePool(BASE_MAINNET, want);
    const p = await pool.addRaw(fromHex(BASE.rawTx));
    expect(bytesToHex(p.sender)).toBe(BASE_SENDER);
    expect(pool.size).toBe(1);
    await expect(pool.addRaw(fromHex(BASE.rawTx))).rejects.toThrow("already known");
  });

  it("reports the plain cost first when even gas * maxFee + value is not covered", async () => {
    const pool = basePool(BASE_MAINNET, BASE_TX_COST - 1n);
    await expect(pool.addRaw(fromHex(BASE.rawTx))).rejects.toThrow(`have ${BASE_TX_COST - 1n} want ${BASE_TX_COST}`);
  });

  it("charges no L1 fee on a plain Ethereum chain", async () => {
    const pool = basePool(undefined, BASE_TX_COST);
    await expect(pool.addRaw(fromHex(BASE.rawTx))).resolves.toBeDefined();
  });

  it("keeps geth's nonce message on OP chains", async () => {
    const pool = basePool(BASE_MAINNET, want, 1n);
    await expect(pool.addRaw(fromHex(BASE.rawTx))).rejects.toThrow("nonce too low: next nonce 1, tx nonce 0");
  });
});

describe("pool: the fee fields of each transaction type", () => {
  const to = new Uint8Array(20).fill(9);
  const keys = [new Uint8Array(32).fill(0x11), new Uint8Array(32).fill(0x22), new Uint8Array(32).fill(0x33)];
  const legacy = (key: Uint8Array, gasPrice: bigint): Uint8Array => createLegacyTx({ gasLimit: 21_000n, gasPrice, to }, { common: COMMON_AZUL }).sign(key).serialize();
  const eip1559 = (key: Uint8Array, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Uint8Array =>
    createFeeMarket1559Tx({ chainId: 8453n, gasLimit: 21_000n, maxFeePerGas, maxPriorityFeePerGas, to }, { common: COMMON_AZUL }).sign(key).serialize();
  const pool = (): TxPool => {
    const accounts = new Map(keys.map((k) => [bytesToHex(createLegacyTx({ gasLimit: 21_000n }).sign(k).getSenderAddress().bytes), createAccount({ nonce: 0n, balance: 10n ** 30n })]));
    return new TxPool(fakeChain({ op: allForksAtZero(true), common: COMMON_AZUL, headTimestamp: 1_800_000_000n, accounts }));
  };

  it("refuses a fee above the cap by the gas price (legacy) or the fee cap (EIP-1559)", async () => {
    const p = pool();
    // 21000 gas at 10^14 wei is 2.1 ether, over the 1 ether cap.
    await expect(p.addRaw(legacy(keys[0]!, 10n ** 14n))).rejects.toMatchObject({ code: "TXPOOL_FEE_CAP_EXCEEDED" });
    await expect(p.addRaw(eip1559(keys[0]!, 10n ** 14n, 1n))).rejects.toMatchObject({ code: "TXPOOL_FEE_CAP_EXCEEDED" });
  });

  it("orders senders by effective tip: gas price − base fee, or min(fee cap − base fee, tip)", async () => {
    const p = pool();
    const baseFee = 1_000_000n;
    const a = await p.addRaw(legacy(keys[0]!, 3_000_000n)); // tip 2,000,000
    const b = await p.addRaw(eip1559(keys[1]!, 5_000_000n, 1_000_000n)); // tip 1,000,000
    const c = await p.addRaw(eip1559(keys[2]!, 3_500_000n, 3_000_000n)); // tip 2,500,000 (capped by the fee cap)
    expect(p.selectForBlock(baseFee).map((t) => t.hash)).toEqual([c.hash, a.hash, b.hash]);
    // A fee cap below the base fee leaves the transaction out.
    expect(p.selectForBlock(4_000_000n).map((t) => t.hash)).toEqual([b.hash]);
  });
});
