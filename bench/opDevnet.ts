/**
 * Bench: execution speed of the OP devnet, in-process (no HTTP). Builds blocks exactly as the
 * devnet sequencer does (`OpDevSequencer.sealOne`: L1-attributes deposit, then mempool
 * transactions, executed, sealed and committed) from a TxPool filled with pre-signed
 * transactions of the ten dev accounts, for two workloads:
 * - ETH transfers between the dev accounts;
 * - ERC-20 `transfer(address,uint256)` calls on a minimal hand-assembled token (balance mapping
 *   updates + a `Transfer` event), one token per account, minted to its deployer.
 * Reports transactions/s and Mgas/s of sealing (wall time of `sealOne`, including commit), plus
 * the machine. Signing and pool admission are outside the timed region.
 *
 * Usage: node dist/bench/opDevnet.js [transactionsPerWorkload=2000] [transactionsPerBlock=500]
 */
import { cpus, totalmem, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address, bigIntToBytes, createContractAddress, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { pino } from "pino";
import { Chain } from "../src/blockchain/chain.js";
import { commonFromGenesis } from "../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { DEPOSIT_TX_TYPE } from "../src/chain/op/depositTx.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";
import { WorkloadError } from "./workload/errors.js";
import { to0x } from "../src/util/bytes.js";
import { balanceSlot, tokenInitCode, TOTAL_SUPPLY_SLOT, transferCalldata } from "./workload/contracts.js";

/** Default transactions per workload: enough for several full-ish blocks, well under a minute. */
const DEFAULT_TXS_PER_WORKLOAD = 2000;
/**
 * Default user transactions per block: 500 (50 per dev account), under the mempool's 80-per-sender
 * cap (`TXPOOL_MAX_PER_SENDER`) and the Jovian DA-footprint limit (60M gas / (100 × 400) = 1500 txs).
 */
const DEFAULT_TXS_PER_BLOCK = 500;
/** Unmeasured warm-up transfers (JIT, caches) before the first workload. */
const WARMUP_TXS = 200;
/** Fee caps of the benchmark transactions: far above the devnet base fee (≈1 gwei), so none is priced out. */
const MAX_FEE_PER_GAS = 10_000_000_000n;
const MAX_PRIORITY_FEE_PER_GAS = 1_000_000_000n;
/** Gas limit of an ETH transfer (intrinsic gas). */
const TRANSFER_GAS = 21_000n;
/** Gas limit of a token transfer: ~30k execution (2 SSTOREs, cold SLOADs, LOG3) + 21k + calldata, with margin. */
const ERC20_TRANSFER_GAS = 100_000n;
/** Gas limit of a token deployment: init code + 2 SSTOREs + ~200 bytes of code deposit, with margin. */
const ERC20_DEPLOY_GAS = 500_000n;
/** Token supply minted to each deployer: 10^9 tokens of 18 decimals. */
const ERC20_SUPPLY = 10n ** 27n;

// ---- the benchmark ---------------------------------------------------------------------------

interface Signer {
  address: Uint8Array;
  key: Uint8Array;
  nonce: bigint;
}

interface TxSpec {
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
}

interface WorkloadResult {
  workload: string;
  blocks: number;
  transactions: number;
  gasUsed: bigint;
  seconds: number;
}

class Bench {
  private readonly signers: Signer[];

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly sequencer: OpDevSequencer,
    private readonly common: Common,
  ) {
    this.signers = devAccounts().map((a) => ({
      address: hexToBytes(a.address as `0x${string}`),
      key: hexToBytes(a.privateKey as `0x${string}`),
      nonce: 0n,
    }));
  }

  get accounts(): readonly Signer[] {
    return this.signers;
  }

  private sign(s: Signer, spec: TxSpec): Uint8Array {
    const tx = createFeeMarket1559Tx(
      {
        chainId: this.chain.chainId,
        nonce: s.nonce++,
        maxFeePerGas: MAX_FEE_PER_GAS,
        maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS,
        gasLimit: spec.gasLimit,
        to: spec.to === undefined ? undefined : new Address(spec.to),
        value: spec.value,
        data: spec.data,
      },
      { common: this.common },
    );
    return tx.sign(s.key).serialize();
  }

  /**
   * Runs `total` transactions (`make(sender index, k-th tx of that sender)`), `perBlock` per block
   * (split evenly over the accounts): pre-signs all of them, then per block adds them to the pool
   * (untimed) and seals (timed) until the pool is empty. Checks every transaction succeeded.
   */
  async run(workload: string, total: number, perBlock: number, make: (sender: number, k: number) => TxSpec, expectLogs = 0): Promise<WorkloadResult> {
    const n = this.signers.length;
    const perSender = Math.max(1, Math.floor(perBlock / n));
    const rounds = Math.ceil(total / (perSender * n));
    const batches: Uint8Array[][] = [];
    let made = 0;
    for (let r = 0; r < rounds; r++) {
      const batch: Uint8Array[] = [];
      for (let k = 0; k < perSender; k++) {
        for (let i = 0; i < n && made < total; i++, made++) batch.push(this.sign(this.signers[i]!, make(i, r * perSender + k)));
      }
      batches.push(batch);
    }
    let seconds = 0;
    let blocks = 0;
    let transactions = 0;
    let gasUsed = 0n;
    for (const batch of batches) {
      for (const raw of batch) await this.pool.addRaw(raw);
      while (this.pool.size > 0) {
        const t0 = performance.now();
        const number = await this.sequencer.sealOne();
        seconds += (performance.now() - t0) / 1000;
        const { txs, gas } = this.check(number, workload, expectLogs);
        if (txs === 0) throw new WorkloadError({ code: "BENCH_STALLED", workload, block: number.toString(), pooled: this.pool.size }, `${workload}: block ${number} took none of the ${this.pool.size} pooled transactions`);
        blocks++;
        transactions += txs;
        gasUsed += gas;
      }
    }
    if (transactions !== total) throw new WorkloadError({ code: "BENCH_COUNT", workload, included: transactions, expected: total }, `${workload}: ${transactions} transactions included, ${total} expected`);
    return { workload, blocks, transactions, gasUsed, seconds };
  }

  /** User transactions and their gas in block `number`; throws if one failed or logged unexpectedly. */
  private check(number: bigint, workload: string, expectLogs: number): { txs: number; gas: bigint } {
    const block = this.chain.getBlockByNumber(number);
    const receipts = block === undefined ? undefined : this.chain.getReceipts(block.hash());
    if (block === undefined || receipts === undefined) {
      throw new WorkloadError({ code: "BENCH_BLOCK_MISSING", block: number.toString() }, `block ${number} or its receipts missing after sealing`);
    }
    let txs = 0;
    let gas = 0n;
    let prev = 0n;
    for (const r of receipts) {
      const used = r.cumulativeGasUsed - prev;
      prev = r.cumulativeGasUsed;
      if (r.type === DEPOSIT_TX_TYPE) continue;
      if (r.status !== 1) {
        throw new WorkloadError({ code: "BENCH_TX_FAILED", workload, block: number.toString(), status: Number(r.status) }, `${workload}: a transaction of block ${number} failed (status ${r.status}), success expected`);
      }
      if (r.logs.length !== expectLogs) {
        throw new WorkloadError({ code: "BENCH_TX_LOGS", workload, block: number.toString(), logs: r.logs.length, expected: expectLogs }, `${workload}: a transaction of block ${number} emitted ${r.logs.length} logs, ${expectLogs} expected`);
      }
      txs++;
      gas += used;
    }
    return { txs, gas };
  }
}

/**
 * Checks the token state after the workload: totalSupply unchanged, each deployer's balance is the
 * supply minus what it sent, and the balances of the accounts add up to the supply (nothing lost).
 */
function verifyTokens(chain: Chain, tokens: Uint8Array[], holders: Uint8Array[], sent: bigint[]): void {
  const state = chain.stateAt(chain.head.header);
  const word = (token: Uint8Array, slot: Uint8Array): bigint => {
    const v = state.storage(token, slot);
    return v.length === 0 ? 0n : BigInt(to0x(v));
  };
  tokens.forEach((token, i) => {
    const supply = word(token, setLengthLeft(bigIntToBytes(BigInt(TOTAL_SUPPLY_SLOT)), 32));
    const own = word(token, balanceSlot(holders[i]!));
    const sum = holders.reduce((acc, h) => acc + word(token, balanceSlot(h)), 0n);
    if (supply !== ERC20_SUPPLY || own !== ERC20_SUPPLY - sent[i]! || sum !== ERC20_SUPPLY) {
      throw new WorkloadError(
        { code: "BENCH_TOKEN_STATE", token: to0x(token) },
        `token ${to0x(token)}: totalSupply ${supply}, deployer balance ${own}, sum of balances ${sum}; ` +
          `expected ${ERC20_SUPPLY}, ${ERC20_SUPPLY - sent[i]!}, ${ERC20_SUPPLY}`,
      );
    }
  });
}

function fmt(n: number, digits: number): string {
  return n.toFixed(digits);
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? DEFAULT_TXS_PER_WORKLOAD);
  const perBlock = Number(process.argv[3] ?? DEFAULT_TXS_PER_BLOCK);
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-opdevnet-"));
  const started = performance.now();
  try {
    const genesis = devnetGenesis();
    // The devnet runs as an archive node (the `archive` default of `--network devnet`).
    await Chain.init(datadir, genesis, { archive: true });
    const chain = Chain.open(datadir, { archive: true });
    const pool = new TxPool(chain);
    const sequencer = new OpDevSequencer(chain, pool, 0, pino({ level: "silent" }));
    const bench = new Bench(chain, pool, sequencer, commonFromGenesis(genesis));
    const accts = bench.accounts;
    const n = accts.length;
    const peer = (i: number, k: number): Uint8Array => accts[(i + 1 + (k % (n - 1))) % n]!.address;

    const transfer = (i: number, k: number): TxSpec => ({
      to: peer(i, k),
      value: 1_000_000_000n + BigInt(k),
      data: new Uint8Array(0),
      gasLimit: TRANSFER_GAS,
    });
    await bench.run("warm-up", WARMUP_TXS, WARMUP_TXS, transfer);
    const results: WorkloadResult[] = [];
    results.push(await bench.run("eth-transfer", total, perBlock, transfer));

    // One token per account, minted to its deployer; then transfers of each account's own token.
    const tokens = accts.map((a) => createContractAddress(new Address(a.address), a.nonce).bytes);
    const initCode = tokenInitCode(ERC20_SUPPLY);
    await bench.run("erc20-deploy", n, n, () => ({ value: 0n, data: initCode, gasLimit: ERC20_DEPLOY_GAS }), 1);
    const state = chain.stateAt(chain.head.header);
    for (const t of tokens) {
      if (state.account(t) === undefined) throw new WorkloadError({ code: "BENCH_DEPLOY", token: to0x(t) }, `token ${to0x(t)} was not deployed`);
    }
    const sent = accts.map(() => 0n);
    const tokenTransfer = (i: number, k: number): TxSpec => {
      const amount = 1_000n + BigInt(k);
      sent[i]! += amount;
      return { to: tokens[i]!, value: 0n, data: transferCalldata(peer(i, k), amount), gasLimit: ERC20_TRANSFER_GAS };
    };
    results.push(await bench.run("erc20-transfer", total, perBlock, tokenTransfer, 1));
    verifyTokens(chain, tokens, accts.map((a) => a.address), sent);
    await chain.close();

    const cpu = cpus()[0]?.model ?? "unknown";
    const memGiB = (totalmem() / 2 ** 30).toFixed(1);
    console.log(`machine: ${cpu} × ${cpus().length}, ${memGiB} GiB, node ${process.version}, ${process.platform}-${process.arch}`);
    console.log(`OP devnet block building (OpDevSequencer.sealOne, execution + commit), ${perBlock} txs/block`);
    console.log("workload        blocks    txs      Mgas   seconds      tx/s    Mgas/s");
    for (const r of results) {
      const mgas = Number(r.gasUsed) / 1e6;
      const cells = [
        r.workload.padEnd(14),
        String(r.blocks).padStart(6),
        String(r.transactions).padStart(6),
        fmt(mgas, 2).padStart(9),
        fmt(r.seconds, 3).padStart(9),
        fmt(r.transactions / r.seconds, 1).padStart(9),
        fmt(mgas / r.seconds, 2).padStart(9),
      ];
      console.log(cells.join(" "));
    }
    for (const r of results) {
      console.log(
        JSON.stringify({
          bench: "op-devnet",
          workload: r.workload,
          blocks: r.blocks,
          transactions: r.transactions,
          gasUsed: r.gasUsed.toString(),
          seconds: Number(r.seconds.toFixed(3)),
          txPerSecond: Number((r.transactions / r.seconds).toFixed(1)),
          mgasPerSecond: Number((Number(r.gasUsed) / 1e6 / r.seconds).toFixed(2)),
        }),
      );
    }
    console.log(`total run time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
