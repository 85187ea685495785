/**
 * End-to-end: the built-in devnet as an OP Stack chain, through the JSON-RPC API as a user sees it.
 * One `basalt node` (1 s blocks) in a temp datadir:
 * - every block opens with the L1-attributes deposit (Jovian calldata, specs jovian/l1-attributes.md);
 * - fees of user transactions are split to the wei between the BaseFeeVault (base fee), the
 *   SequencerFeeVault = coinbase (priority fee), the L1FeeVault (L1 data fee) and the OperatorFeeVault
 *   (Jovian operator fee gasUsed × scalar × 100 + constant), and no ETH appears or vanishes;
 * - deposits injected with `dev_sendDeposit` mint, transfer and bump the nonce; failing deposits still mint;
 * - receipts carry op-reth's OP fields; eth_sendRawTransaction refuses blob and deposit transactions.
 */
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createBlob4844Tx, createFeeMarket1559Tx, type FeeMarket1559Tx } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis, type DevAccount } from "../../src/chain/devnet.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";
import { pollUntil } from "../helpers/poll.js";

type Obj = { [k: string]: Json };

/** Devnet chain id 845337 ("8453" + "37"). */
const CHAIN_ID = 845337n;
const ONE_ETHER = 10n ** 18n;
const GWEI = 10n ** 9n;

/** Fee vaults and system accounts (specs predeploys.md; op-revm constants). */
const BASE_FEE_VAULT = "0x4200000000000000000000000000000000000019";
const SEQUENCER_FEE_VAULT = "0x4200000000000000000000000000000000000011";
const L1_FEE_VAULT = "0x420000000000000000000000000000000000001a";
const OPERATOR_FEE_VAULT = "0x420000000000000000000000000000000000001b";
const VAULTS = [BASE_FEE_VAULT, SEQUENCER_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT];
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000f";
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";

/** The OP receipt fields op-reth reports as hex quantities for a Jovian user transaction. */
const OP_RECEIPT_QUANTITY_FIELDS = [
  "l1GasPrice",
  "l1GasUsed",
  "l1Fee",
  "l1BaseFeeScalar",
  "l1BlobBaseFee",
  "l1BlobBaseFeeScalar",
  "operatorFeeScalar",
  "operatorFeeConstant",
  "daFootprintGasScalar",
  "blobGasUsed",
];

/** Devnet operator fee parameters (Jovian: fee = gasUsed × scalar × 100 + constant; specs jovian/exec-engine.md). */
const OPERATOR_FEE_SCALAR = 1n;
const OPERATOR_FEE_CONSTANT = 1000n;
/** Jovian multiplies the operator fee scalar by 100 (Isthmus divided it by 1e6). */
const JOVIAN_OPERATOR_FEE_MULTIPLIER = 100n;

/** `setL1BlockValuesJovian()` selector and calldata length (specs jovian/l1-attributes.md). */
const JOVIAN_L1_INFO_SELECTOR = "0x3db6be2b";
const JOVIAN_L1_INFO_LENGTH = 178;
/** Gas limit of the L1-attributes deposit from Regolith on (specs deposits.md). */
const L1_INFO_GAS = 1_000_000n;

/**
 * Fjord L1 cost constants (specs fjord/exec-engine.md; op-geth rollup_cost.go): the size estimate is
 * max(minTransactionSize, intercept + fastlzCoef × fastlzSize / 1e6) in bytes, scaled by 1e6.
 */
const FJORD_MIN_TX_SIZE_SCALED = 100n * 1_000_000n;
/** Divisor of the Fjord L1 cost: 1e12 (1e6 for the size scale × 1e6 for the scalar decimals). */
const FJORD_COST_DIVISOR = 1_000_000_000_000n;

/** Init code returning the runtime `0x602a60005260206000f3` (returns 32-byte 42 for any call). */
const RUNTIME_42 = "0x602a60005260206000f3";
const INIT_42 = "0x69602a60005260206000f3600052600a6016f3";
/** Runtime `PUSH1 0 PUSH1 0 REVERT`: every call reverts. */
const RUNTIME_REVERT = "0x60006000fd";
/** Init code: PUSH5 <runtime> PUSH1 0 MSTORE PUSH1 5 PUSH1 27 RETURN → deploys {@link RUNTIME_REVERT}. */
const INIT_REVERT = "0x6460006000fd6000526005601bf3";

/** Fresh L2 accounts (no balance, no code) used as deposit senders and recipients. */
const DEPOSITOR_OK = "0x000000000000000000000000000000000000d001";
const DEPOSIT_RECIPIENT = "0x000000000000000000000000000000000000d002";
const DEPOSITOR_REVERT = "0x000000000000000000000000000000000000d003";
const DEPOSITOR_OOG = "0x000000000000000000000000000000000000d004";

const accounts = devAccounts();
const common: Common = commonFromGenesis(devnetGenesis(), "devnet");


/** 32-byte ABI word of a uint, as hex without 0x. */
function word(n: bigint): string {
  return n.toString(16).padStart(64, "0");
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

function big(v: Json | undefined): bigint {
  if (typeof v !== "string") throw new Error(`expected a hex quantity, got ${JSON.stringify(v)}`);
  return BigInt(v);
}

function lower(v: Json | undefined): string {
  return String(v).toLowerCase();
}

function rawHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString("hex")}`;
}


/** The Jovian L1-attributes calldata, decoded by the layout of specs jovian/l1-attributes.md. */
interface L1Info {
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  sequenceNumber: bigint;
  l1Timestamp: bigint;
  l1Number: bigint;
  l1BaseFee: bigint;
  l1BlobBaseFee: bigint;
  l1Hash: string;
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
  daFootprintGasScalar: bigint;
}

function decodeL1Info(input: string): L1Info {
  const b = Buffer.from(input.slice(2), "hex");
  expect(b.length).toBe(JOVIAN_L1_INFO_LENGTH);
  expect(`0x${b.subarray(0, 4).toString("hex")}`).toBe(JOVIAN_L1_INFO_SELECTOR);
  const uint = (from: number, to: number): bigint => BigInt(`0x${b.subarray(from, to).toString("hex")}`);
  return {
    baseFeeScalar: uint(4, 8),
    blobBaseFeeScalar: uint(8, 12),
    sequenceNumber: uint(12, 20),
    l1Timestamp: uint(20, 28),
    l1Number: uint(28, 36),
    l1BaseFee: uint(36, 68),
    l1BlobBaseFee: uint(68, 100),
    l1Hash: `0x${b.subarray(100, 132).toString("hex")}`,
    operatorFeeScalar: uint(164, 168),
    operatorFeeConstant: uint(168, 176),
    daFootprintGasScalar: uint(176, 178),
  };
}

/** Fjord L1 data fee of a transaction whose size estimate is the 100-byte minimum. */
function minimumL1Fee(info: L1Info): bigint {
  const scaled = info.baseFeeScalar * info.l1BaseFee * 16n + info.blobBaseFeeScalar * info.l1BlobBaseFee;
  return (FJORD_MIN_TX_SIZE_SCALED * scaled) / FJORD_COST_DIVISOR;
}

/** Jovian operator fee of a transaction that used `gasUsed` gas, at the devnet parameters. */
function operatorFee(gasUsed: bigint): bigint {
  return gasUsed * OPERATOR_FEE_SCALAR * JOVIAN_OPERATOR_FEE_MULTIPLIER + OPERATOR_FEE_CONSTANT;
}

/** Fields of a test EIP-1559 transaction (maxFee defaults to 20 gwei). */
interface Tx1559Fields {
  nonce: bigint;
  to?: string;
  value?: bigint;
  data?: string;
  gasLimit: bigint;
  tip: bigint;
  maxFee?: bigint;
}

/** Devnet EIP-1559 elasticity and Canyon+ denominator (genesis `config.optimism`: Base's 6 and 250). */
const ELASTICITY = 6n;
const DENOMINATOR = 250n;

/**
 * The base fee of the child of `parent` (EIP-1559 with the OP parameters; Jovian: the DA footprint in
 * `blobGasUsed` counts when it exceeds `gasUsed`, and the result is clamped to the extraData's minBaseFee).
 */
function expectedBaseFee(parent: Obj): bigint {
  const base = big(parent.baseFeePerGas);
  const target = big(parent.gasLimit) / ELASTICITY;
  const gasUsed = big(parent.gasUsed);
  const footprint = parent.blobGasUsed === undefined ? 0n : big(parent.blobGasUsed);
  const used = footprint > gasUsed ? footprint : gasUsed;
  let next = base;
  if (used > target) {
    const delta = (base * (used - target)) / target / DENOMINATOR;
    next = base + (delta > 1n ? delta : 1n);
  } else if (used < target) {
    next = base - (base * (target - used)) / target / DENOMINATOR;
  }
  const extra = Buffer.from((parent.extraData as string).slice(2), "hex");
  const minBaseFee = extra.length === 17 ? extra.readBigUInt64BE(9) : 0n;
  return next < minBaseFee ? minBaseFee : next;
}

describe("OP devnet node (e2e)", () => {
  let datadir = "";
  let node: NodeHandle | undefined;
  let url = "";

  const call = (method: string, params: Json[] = []): Promise<Json> => rpcResult(url, method, params);
  const blockNumber = async (): Promise<bigint> => big(await call("eth_blockNumber"));
  const balance = async (addr: string, tag: string): Promise<bigint> => big(await call("eth_getBalance", [addr, tag]));
  const nonceOf = async (addr: string, tag: string = "latest"): Promise<bigint> => big(await call("eth_getTransactionCount", [addr, tag]));
  const block = async (n: bigint): Promise<Obj> => (await call("eth_getBlockByNumber", [hex(n), true])) as Obj;

  async function waitReceipt(txHash: string): Promise<Obj> {
    return pollUntil(`receipt of ${txHash}`, 20_000, async () => {
      const r = await call("eth_getTransactionReceipt", [txHash]);
      return r === null ? undefined : (r as Obj);
    }, 200);
  }

  /** Signs an EIP-1559 transaction of `from` with the devnet Common (OP chain → Prague rules). */
  function signed1559(from: DevAccount, f: Tx1559Fields): FeeMarket1559Tx {
    const tx = createFeeMarket1559Tx(
      {
        chainId: CHAIN_ID,
        nonce: f.nonce,
        maxPriorityFeePerGas: f.tip,
        maxFeePerGas: f.maxFee ?? 20n * GWEI,
        gasLimit: f.gasLimit,
        to: f.to as `0x${string}` | undefined,
        value: f.value ?? 0n,
        data: (f.data ?? "0x") as `0x${string}`,
      },
      { common },
    );
    return tx.sign(hexToBytes(from.privateKey as `0x${string}`));
  }

  /** {@link signed1559}, serialized for eth_sendRawTransaction. */
  function sign1559(from: DevAccount, f: Tx1559Fields): Uint8Array {
    return signed1559(from, f).serialize();
  }

  /** Queues a user deposit with dev_sendDeposit; returns its L2 transaction hash. */
  async function sendDeposit(from: string, to: string, mint: bigint, value: bigint, gas: bigint): Promise<string> {
    const hash = (await call("dev_sendDeposit", [{ from, to, mint: hex(mint), value: hex(value), gas: hex(gas) }])) as string;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    return hash;
  }

  async function send(raw: Uint8Array): Promise<string> {
    const hash = (await call("eth_sendRawTransaction", [rawHex(raw)])) as string;
    expect(hash).toBe(rawHex(keccak_256(raw)));
    return hash;
  }

  /** The L1 info carried by block `n` (its first transaction). */
  async function l1InfoOf(n: bigint): Promise<L1Info> {
    const txs = (await block(n)).transactions as Obj[];
    return decodeL1Info(txs[0]!.input as string);
  }

  /**
   * Checks the ETH flows of block `n` to the wei from balances at n-1 and n (archive reads):
   * every user transaction's sender pays value + gasUsed × effectiveGasPrice + l1Fee + operatorFee,
   * each vault receives its share, recipients get the value, deposits mint for their sender, and
   * the sum of all deltas equals the minted ETH. Returns the block's receipts.
   */
  async function checkBlockAccounting(n: bigint): Promise<Obj[]> {
    const blk = await block(n);
    expect(lower(blk.miner)).toBe(SEQUENCER_FEE_VAULT);
    const baseFee = big(blk.baseFeePerGas);
    const txs = blk.transactions as Obj[];
    const receipts = (await call("eth_getBlockReceipts", [hex(n)])) as Obj[];
    expect(receipts).toHaveLength(txs.length);

    const expected = new Map<string, bigint>();
    const add = (addr: string, d: bigint): void => {
      expected.set(addr, (expected.get(addr) ?? 0n) + d);
    };
    for (const v of VAULTS) add(v, 0n);
    let minted = 0n;
    let baseFees = 0n;
    let tips = 0n;
    let l1Fees = 0n;
    let operatorFees = 0n;
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i]!;
      const r = receipts[i]!;
      expect(r.transactionHash).toBe(tx.hash);
      const from = lower(tx.from);
      const created = r.contractAddress !== null && r.contractAddress !== undefined ? r.contractAddress : undefined;
      const target = created ?? tx.to;
      const to = target === null || target === undefined ? undefined : lower(target);
      const value = big(tx.value);
      const ok = r.status === "0x1";
      if (tx.type === "0x7e") {
        // Deposits buy no gas: the mint is created for `from`, then the value moves if execution succeeds.
        const mint = big(tx.mint);
        minted += mint;
        add(from, mint - (ok ? value : 0n));
        if (to !== undefined) add(to, ok ? value : 0n);
        continue;
      }
      const gasUsed = big(r.gasUsed);
      const price = big(r.effectiveGasPrice);
      const maxFee = big(tx.maxFeePerGas);
      const tip = big(tx.maxPriorityFeePerGas);
      expect(price).toBe(maxFee < baseFee + tip ? maxFee : baseFee + tip);
      expect(r.l1Fee, `receipt of ${String(tx.hash)} must report l1Fee`).toMatch(/^0x[0-9a-f]+$/);
      const l1Fee = big(r.l1Fee);
      const opFee = operatorFee(gasUsed);
      // A failed transaction still pays all its fees, but moves no value.
      add(from, -((ok ? value : 0n) + gasUsed * price + l1Fee + opFee));
      expect(to, `recipient of ${String(tx.hash)}`).toBeDefined();
      add(to!, ok ? value : 0n);
      baseFees += baseFee * gasUsed;
      tips += (price - baseFee) * gasUsed;
      l1Fees += l1Fee;
      operatorFees += opFee;
    }
    add(BASE_FEE_VAULT, baseFees);
    add(SEQUENCER_FEE_VAULT, tips);
    add(L1_FEE_VAULT, l1Fees);
    add(OPERATOR_FEE_VAULT, operatorFees);

    let sum = 0n;
    for (const [addr, want] of expected) {
      const delta = (await balance(addr, hex(n))) - (await balance(addr, hex(n - 1n)));
      expect(delta, `balance change of ${addr} in block ${n}`).toBe(want);
      sum += delta;
    }
    // No ETH is created or destroyed in an OP block apart from deposit mints.
    expect(sum).toBe(minted);
    return receipts;
  }

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-opdevnet-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1"] });
    url = node.url;
  });

  afterAll(async () => {
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("serves the OP devnet chain id and opens every block with the L1-attributes deposit", async () => {
    expect(await call("eth_chainId")).toBe("0xce619");
    const head = await pollUntil("block 3", 15_000, async () => {
      const n = await blockNumber();
      return n >= 3n ? n : undefined;
    }, 200);
    for (let n = 1n; n <= head; n++) {
      const txs = (await block(n)).transactions as Obj[];
      expect(txs.length, `block ${n}`).toBeGreaterThanOrEqual(1);
      const first = txs[0]!;
      expect(first.type).toBe("0x7e");
      expect(lower(first.from)).toBe(L1_INFO_DEPOSITOR);
      expect(lower(first.to)).toBe(L1_BLOCK);
      expect(first.mint).toBe("0x0");
      expect(first.value).toBe("0x0");
      expect(big(first.gas)).toBe(L1_INFO_GAS);
      expect(first.gasPrice).toBe("0x0");
      expect(first.sourceHash).toMatch(/^0x[0-9a-f]{64}$/);
      const info = decodeL1Info(first.input as string);
      expect(info.operatorFeeScalar).toBe(OPERATOR_FEE_SCALAR);
      expect(info.operatorFeeConstant).toBe(OPERATOR_FEE_CONSTANT);
      const receipt = await waitReceipt(first.hash as string);
      expect(receipt.status).toBe("0x1");
      expect(receipt.transactionIndex).toBe("0x0");
      expect(receipt.depositReceiptVersion).toBe("0x1");
    }
  });

  let feeReceipts: Obj[] = [];
  let transferHash = "";
  let deployHash = "";
  let deployUnsignedSize = 0n;

  it("splits the fees of an EIP-1559 transfer and a contract deployment between the four vaults, to the wei", async () => {
    const sender = accounts[2]!;
    const recipient = accounts[3]!;
    const deployer = accounts[4]!;
    const deployValue = 777n;
    const estimate = big(await call("eth_estimateGas", [{ from: deployer.address, data: INIT_42, value: hex(deployValue) }]));
    expect(estimate).toBeGreaterThan(53_000n);
    // Send right after a new block so both usually share the next one (either way each block is checked).
    const start = await blockNumber();
    await pollUntil("a fresh block", 5_000, async () => ((await blockNumber()) > start ? true : undefined), 50);
    transferHash = await send(sign1559(sender, { nonce: 0n, to: recipient.address, value: ONE_ETHER, gasLimit: 21_000n, tip: 2n * GWEI }));
    const deployTx = signed1559(deployer, { nonce: 0n, value: deployValue, data: INIT_42, gasLimit: estimate, tip: 1n * GWEI });
    deployUnsignedSize = BigInt(deployTx.getMessageToSign().length);
    deployHash = await send(deployTx.serialize());
    const rTransfer = await waitReceipt(transferHash);
    const rDeploy = await waitReceipt(deployHash);
    expect(rTransfer.status).toBe("0x1");
    expect(rTransfer.gasUsed).toBe("0x5208");
    expect(rDeploy.status).toBe("0x1");
    expect(rDeploy.to).toBeNull();
    const contract = lower(rDeploy.contractAddress);
    expect(contract).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await call("eth_getCode", [contract, rDeploy.blockNumber as string])).toBe(RUNTIME_42);
    expect(await call("eth_getCode", [contract, hex(big(rDeploy.blockNumber) - 1n)])).toBe("0x");
    expect(await balance(contract, "latest")).toBe(deployValue);

    const blocks = [...new Set([big(rTransfer.blockNumber), big(rDeploy.blockNumber)])];
    feeReceipts = [];
    for (const n of blocks) {
      const receipts = await checkBlockAccounting(n);
      feeReceipts.push(...receipts.filter((r) => r.transactionHash === transferHash || r.transactionHash === deployHash));
      // User transactions follow the L1-attributes deposit.
      expect(receipts[0]!.type).toBe("0x7e");
    }
    expect(feeReceipts).toHaveLength(2);

    // Every vault actually received something and the transfer's own charges add up.
    const nT = big(rTransfer.blockNumber);
    const blkT = await block(nT);
    const paid = (await balance(sender.address, hex(nT - 1n))) - (await balance(sender.address, hex(nT)));
    const opFee = operatorFee(21_000n);
    expect(paid).toBe(ONE_ETHER + 21_000n * big(rTransfer.effectiveGasPrice) + big(rTransfer.l1Fee) + opFee);
    expect(big(rTransfer.effectiveGasPrice)).toBe(big(blkT.baseFeePerGas) + 2n * GWEI);
    for (const v of VAULTS) expect(await balance(v, "latest"), v).toBeGreaterThan(0n);
    expect(await nonceOf(sender.address)).toBe(1n);
    expect(await nonceOf(deployer.address)).toBe(1n);
  });

  it("suggests fees from blocks that all carry deposits: deposits tip 0, the 60th percentile of the last 20 blocks' tips, geth's reward percentiles", async () => {
    /** A transaction's tip over `base` (deposits pay no gas price: 0, never negative). */
    const tipOf = (tx: Obj, base: bigint): bigint => {
      if (tx.type === "0x7e") return 0n;
      if (tx.maxFeePerGas === undefined) return big(tx.gasPrice) - base;
      const room = big(tx.maxFeePerGas) - base;
      const tip = big(tx.maxPriorityFeePerGas);
      return room < tip ? room : tip;
    };
    // The head moves while the answers are read: retry until one head answers all of them.
    const answer = await pollUntil("fee answers at one head", 20_000, async () => {
      const head = await blockNumber();
      const blocks: Obj[] = [];
      for (let n = head; n >= 0n && n > head - 20n; n--) blocks.push(await block(n));
      const tip = big(await call("eth_maxPriorityFeePerGas"));
      const gasPrice = big(await call("eth_gasPrice"));
      const history = (await call("eth_feeHistory", ["0x4", hex(head), [10, 50, 90]])) as Obj;
      const receipts = (await Promise.all(blocks.slice(0, 4).map((b) => call("eth_getBlockReceipts", [b.hash as string])))) as Obj[][];
      return (await blockNumber()) === head ? { head, blocks, tip, gasPrice, history, receipts } : undefined;
    }, 200);
    const { blocks, tip, gasPrice, history, receipts } = answer;
    const tips = blocks.flatMap((b) => (b.transactions as Obj[]).map((tx) => tipOf(tx, big(b.baseFeePerGas)))).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    expect(tips.length).toBeGreaterThan(0);
    const expectedTip = tips[Math.floor(((tips.length - 1) * 60) / 100)]!;
    expect(tip).toBe(expectedTip);
    expect(gasPrice).toBe(expectedTip + big(blocks[0]!.baseFeePerGas));
    // geth's rewards: the block's tips sorted, each weighted by its gas used; a percentile is the
    // tip of the first transaction at which the running gas reaches that share of the block's gas.
    const expectedRewards = blocks
      .slice(0, 4)
      .reverse()
      .map((b, i) => {
        const rs = receipts[3 - i]!;
        const sorted = (b.transactions as Obj[]).map((tx, k) => ({ tip: tipOf(tx, big(b.baseFeePerGas)), gas: big(rs[k]!.gasUsed) })).sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
        return [10, 50, 90].map((p) => {
          const threshold = (big(b.gasUsed) * BigInt(p)) / 100n;
          let k = 0;
          let sum = sorted[0]!.gas;
          while (sum < threshold && k < sorted.length - 1) sum += sorted[++k]!.gas;
          return hex(sorted[k]!.tip);
        });
      });
    expect(history.reward).toEqual(expectedRewards);
  });

  it("gives user-transaction receipts the OP fields: L1 fee data, operator fee parameters, DA footprint", async () => {
    expect(feeReceipts).toHaveLength(2);
    for (const r of feeReceipts) {
      const info = await l1InfoOf(big(r.blockNumber));
      for (const k of OP_RECEIPT_QUANTITY_FIELDS) {
        expect(r[k], `${k} of ${String(r.transactionHash)}`).toMatch(/^0x(0|[1-9a-f][0-9a-f]*)$/);
      }
      // The per-block values come from the block's L1-attributes deposit.
      expect(big(r.l1GasPrice)).toBe(info.l1BaseFee);
      expect(big(r.l1BaseFeeScalar)).toBe(info.baseFeeScalar);
      expect(big(r.l1BlobBaseFee)).toBe(info.l1BlobBaseFee);
      expect(big(r.l1BlobBaseFeeScalar)).toBe(info.blobBaseFeeScalar);
      expect(r.operatorFeeScalar).toBe("0x1");
      expect(r.operatorFeeConstant).toBe("0x3e8");
      expect(big(r.daFootprintGasScalar)).toBe(info.daFootprintGasScalar);
      expect(big(r.l1Fee)).toBeGreaterThan(0n);
      // Fjord: nothing is charged below the 100-byte minimum size estimate.
      expect(big(r.l1Fee)).toBeGreaterThanOrEqual(minimumL1Fee(info));
      expect(r.l1FeeScalar).toBeUndefined();
      expect(r.depositNonce).toBeUndefined();
    }
    const transfer = feeReceipts.find((r) => r.transactionHash === transferHash)!;
    const info = await l1InfoOf(big(transfer.blockNumber));
    // A plain transfer compresses far below 170 bytes, so its size estimate is the 100-byte minimum:
    // L1 fee = 100 × (16 × baseFeeScalar × l1BaseFee + blobBaseFeeScalar × blobBaseFee) / 1e6,
    // l1GasUsed = 100 × 16, DA footprint = 100 × daFootprintGasScalar.
    expect(big(transfer.l1Fee)).toBe(minimumL1Fee(info));
    expect(big(transfer.l1GasUsed)).toBe(1_600n);
    expect(big(transfer.blobGasUsed)).toBe(100n * info.daFootprintGasScalar);

    // The GasPriceOracle predeploy agrees: its Fjord upper bound (by unsigned size) covers the charged fee.
    const deploy = feeReceipts.find((r) => r.transactionHash === deployHash)!;
    const unsignedSize = deployUnsignedSize;
    expect(unsignedSize).toBeGreaterThan(19n);
    const selector = rawHex(keccak_256(new TextEncoder().encode("getL1FeeUpperBound(uint256)")).subarray(0, 4));
    const upper = big(
      await call("eth_call", [{ to: GAS_PRICE_ORACLE, data: `${selector}${word(unsignedSize)}` }, deploy.blockNumber as string]),
    );
    expect(big(deploy.l1Fee)).toBeLessThanOrEqual(upper);
  });

  it("executes a dev_sendDeposit deposit: mint to the sender, value to the recipient, nonce bumped", async () => {
    const mint = 5n * ONE_ETHER;
    const value = ONE_ETHER;
    const headBefore = await blockNumber();
    const infoBefore = await l1InfoOf(headBefore);
    const hash = await sendDeposit(DEPOSITOR_OK, DEPOSIT_RECIPIENT, mint, value, 100_000n);
    const r = await waitReceipt(hash);
    const n = big(r.blockNumber);
    expect(r.status).toBe("0x1");
    expect(r.type).toBe("0x7e");
    expect(lower(r.from)).toBe(DEPOSITOR_OK);
    expect(lower(r.to)).toBe(DEPOSIT_RECIPIENT);
    expect(r.depositNonce).toBe("0x0");
    expect(r.depositReceiptVersion).toBe("0x1");
    expect(r.effectiveGasPrice).toBe("0x0");
    expect(big(r.gasUsed)).toBe(21_000n);
    // Deposits come right after the L1-attributes deposit, in a block with a new L1 origin.
    expect(r.transactionIndex).toBe("0x1");
    const info = await l1InfoOf(n);
    expect(info.sequenceNumber).toBe(0n);
    expect(info.l1Number).toBeGreaterThan(infoBefore.l1Number);

    const tx = (await call("eth_getTransactionByHash", [hash])) as Obj;
    expect(tx.type).toBe("0x7e");
    expect(tx.hash).toBe(hash);
    expect(tx.gasPrice).toBe("0x0");
    expect(big(tx.mint)).toBe(mint);
    expect(big(tx.value)).toBe(value);
    expect(tx.nonce).toBe("0x0");
    expect(tx.depositReceiptVersion).toBe("0x1");
    expect(tx.sourceHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(tx.blockNumber).toBe(r.blockNumber);

    expect(await balance(DEPOSIT_RECIPIENT, hex(n))).toBe(value);
    expect(await balance(DEPOSITOR_OK, hex(n))).toBe(mint - value);
    expect(await balance(DEPOSITOR_OK, hex(n - 1n))).toBe(0n);
    expect(await nonceOf(DEPOSITOR_OK, hex(n))).toBe(1n);
    expect(await nonceOf(DEPOSITOR_OK, hex(n - 1n))).toBe(0n);
    await checkBlockAccounting(n);
  });

  it("keeps the mint of failing deposits (revert, out of gas): status 0, nonce bumped, no value moved", async () => {
    const deployer = accounts[5]!;
    const deployHash = await send(sign1559(deployer, { nonce: 0n, data: INIT_REVERT, gasLimit: 100_000n, tip: 1n * GWEI }));
    const rd = await waitReceipt(deployHash);
    expect(rd.status).toBe("0x1");
    const reverter = lower(rd.contractAddress);
    expect(await call("eth_getCode", [reverter, "latest"])).toBe(RUNTIME_REVERT);

    const mint = 2n * ONE_ETHER;
    const value = ONE_ETHER / 2n;
    // (a) the call reverts; (b) 21000 gas leaves nothing for the contract's first opcode.
    const hashRevert = await sendDeposit(DEPOSITOR_REVERT, reverter, mint, value, 100_000n);
    const hashOog = await sendDeposit(DEPOSITOR_OOG, reverter, mint, value, 21_000n);
    for (const [hash, from, gas] of [
      [hashRevert, DEPOSITOR_REVERT, 100_000n],
      [hashOog, DEPOSITOR_OOG, 21_000n],
    ] as const) {
      const r = await waitReceipt(hash);
      const n = big(r.blockNumber);
      expect(r.status, hash).toBe("0x0");
      expect(r.type).toBe("0x7e");
      expect(r.depositNonce).toBe("0x0");
      expect(r.depositReceiptVersion).toBe("0x1");
      expect(r.effectiveGasPrice).toBe("0x0");
      expect(big(r.gasUsed)).toBeGreaterThanOrEqual(21_000n);
      expect(big(r.gasUsed)).toBeLessThanOrEqual(gas);
      expect(await balance(from, hex(n))).toBe(mint);
      expect(await balance(from, hex(n - 1n))).toBe(0n);
      expect(await nonceOf(from, hex(n))).toBe(1n);
      expect(await balance(reverter, hex(n))).toBe(0n);
      await checkBlockAccounting(n);
    }
  });

  it("rejects blob transactions, raw deposits and nonce-too-low transactions in eth_sendRawTransaction", async () => {
    const acct = accounts[6]!;
    const blob = createBlob4844Tx(
      {
        chainId: CHAIN_ID,
        nonce: 0n,
        maxPriorityFeePerGas: GWEI,
        maxFeePerGas: 20n * GWEI,
        maxFeePerBlobGas: GWEI,
        gasLimit: 21_000n,
        to: accounts[7]!.address as `0x${string}`,
        blobVersionedHashes: [`0x01${"ab".repeat(31)}`],
      },
      { common },
    ).sign(hexToBytes(acct.privateKey as `0x${string}`));
    const blobRes = await rpcCall(url, "eth_sendRawTransaction", [rawHex(blob.serialize())]);
    expect(blobRes.error, JSON.stringify(blobRes)).toBeDefined();
    expect(blobRes.result).toBeUndefined();

    // A deposit minting 1000 ETH to a fresh account: only the sequencer/derivation may create these.
    const thief = "0x000000000000000000000000000000000000d0ff";
    const deposit = new Uint8Array([
      0x7e,
      ...RLP.encode([
        keccak_256(new TextEncoder().encode("basalt e2e raw deposit")),
        hexToBytes(thief),
        hexToBytes(thief),
        bigIntToUnpaddedBytes(1000n * ONE_ETHER),
        bigIntToUnpaddedBytes(0n),
        bigIntToUnpaddedBytes(100_000n),
        new Uint8Array(0),
        new Uint8Array(0),
      ]),
    ]);
    const depRes = await rpcCall(url, "eth_sendRawTransaction", [rawHex(deposit)]);
    expect(depRes.error, JSON.stringify(depRes)).toBeDefined();
    expect(depRes.result).toBeUndefined();

    // accounts[2] already sent nonce 0 (the fee test): resending nonce 0 is too low.
    const stale = sign1559(accounts[2]!, { nonce: 0n, to: accounts[3]!.address, value: 1n, gasLimit: 21_000n, tip: GWEI });
    const staleRes = await rpcCall(url, "eth_sendRawTransaction", [rawHex(stale)]);
    expect(staleRes.error?.message).toMatch(/nonce too low/);

    // None of them is ever mined, and the deposit minted nothing.
    const head = await blockNumber();
    await pollUntil("two more blocks", 10_000, async () => ((await blockNumber()) >= head + 2n ? true : undefined), 200);
    for (const raw of [blob.serialize(), deposit, stale]) {
      expect(await call("eth_getTransactionByHash", [rawHex(keccak_256(raw))])).toBeNull();
    }
    expect(await balance(thief, "latest")).toBe(0n);
    expect(await nonceOf(acct.address)).toBe(0n);
  });

  it("keeps the L1-attributes deposit first in every block, with a consistent L1 origin sequence", async () => {
    const head = await blockNumber();
    const extraData = devnetGenesis().extraData as string;
    let prev: L1Info | undefined;
    let parent = await block(0n);
    for (let n = 1n; n <= head; n++) {
      const blk = await block(n);
      // Jovian header: the chain's EIP-1559 parameters and minimum base fee in extraData; the base fee
      // follows from the parent with elasticity 6, denominator 250, clamped to that minimum.
      expect(blk.extraData, `block ${n}`).toBe(extraData);
      expect(big(blk.baseFeePerGas), `base fee of block ${n}`).toBe(expectedBaseFee(parent));
      parent = blk;
      const txs = blk.transactions as Obj[];
      const first = txs[0]!;
      expect(first.type, `block ${n}`).toBe("0x7e");
      expect(lower(first.from)).toBe(L1_INFO_DEPOSITOR);
      expect(lower(first.to)).toBe(L1_BLOCK);
      for (const t of txs.slice(1)) expect(lower(t.from), `block ${n}`).not.toBe(L1_INFO_DEPOSITOR);
      const hashes = (await call("eth_getBlockByNumber", [hex(n), false])) as Obj;
      expect((hashes.transactions as string[])[0]).toBe(first.hash);
      const info = decodeL1Info(first.input as string);
      if (prev !== undefined) {
        if (info.l1Number === prev.l1Number) {
          expect(info.sequenceNumber, `block ${n}`).toBe(prev.sequenceNumber + 1n);
          expect(info.l1Hash).toBe(prev.l1Hash);
        } else {
          expect(info.l1Number, `block ${n}`).toBe(prev.l1Number + 1n);
          expect(info.sequenceNumber, `block ${n}`).toBe(0n);
          expect(info.l1Hash).not.toBe(prev.l1Hash);
        }
        // The L1 origin is never ahead of the L2 block.
        expect(info.l1Timestamp).toBeLessThanOrEqual(big(blk.timestamp));
      }
      // Blocks carrying user deposits start a new L1 origin.
      if (txs.some((t, i) => i > 0 && t.type === "0x7e")) expect(info.sequenceNumber, `block ${n}`).toBe(0n);
      prev = info;
    }
  });
});
