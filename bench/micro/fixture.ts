/**
 * The data the micro-benchmarks run on: a real OP devnet chain built in-process on a temp
 * datadir, exactly as the devnet sequencer builds it (`OpDevSequencer.sealOne` over a `TxPool`,
 * as bench/opDevnet.ts does), from the shared benchmark workload (`buildWorkload`: ETH
 * transfers, ERC-20 transfers and swaps of the ten dev accounts and more). The workload's setup
 * rounds (deployments, funding) are sealed first, one round per block, then its one block round
 * is sealed as ONE block: the block every micro-benchmark encodes, decodes, hashes and imports.
 */
import type { Block } from "@ethereumjs/block";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Chain } from "../../src/blockchain/chain.js";
import { devnetGenesis } from "../../src/chain/devnet.js";
import { isDeposit } from "../../src/chain/op/depositTx.js";
import type { StoredReceipt } from "../../src/storage/types.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { BasaltError } from "../../src/util/errors.js";
import { buildWorkload, type Workload } from "../workload/workload.js";

/**
 * Default user transactions of the benchmark block: the "200-transaction block"
 * (under the pool's 80-per-sender cap with the workload's senders, and far under the devnet's
 * 60M gas / Jovian DA-footprint limits, so they all fit one block).
 */
export const DEFAULT_BLOCK_TXS = 200;

/** The in-process chain and its benchmark block. */
export interface MicroFixture {
  /** Temp datadir of {@link chain}; removed by {@link close}. */
  readonly datadir: string;
  /** Archive devnet chain; its head is {@link block}. */
  readonly chain: Chain;
  readonly workload: Workload;
  /** The benchmark block: the L1-attributes deposit, then the workload's transactions. */
  readonly block: Block;
  /** `block.serialize()`: the block's RLP as import and the p2p/Engine paths see it. */
  readonly rlp: Uint8Array;
  readonly receipts: StoredReceipt[];
  /** Recovered senders, one per transaction (as stored). */
  readonly senders: Uint8Array[];
  /** Transactions of the block, deposits included. */
  readonly txCount: number;
  /** Closes the chain and removes the datadir. */
  close(): Promise<void>;
}

/** The benchmark fixture could not be built as intended (a transaction left out or failed). */
export class MicroFixtureError extends BasaltError {
  constructor(message: string) {
    super("MICRO_FIXTURE_FAILED", message);
  }
}

/** Options of {@link buildMicroFixture}. */
export interface MicroFixtureOptions {
  /** User transactions of the benchmark block (default {@link DEFAULT_BLOCK_TXS}). */
  txs?: number;
}

/**
 * Seals the pool's transactions into blocks until it is empty; checks that the `expected`
 * transactions were included and every one succeeded. Returns the sealed blocks' numbers.
 */
async function sealAll(chain: Chain, pool: TxPool, sequencer: OpDevSequencer, expected: number, what: string): Promise<bigint[]> {
  const numbers: bigint[] = [];
  let included = 0;
  while (pool.size > 0) {
    const number = await sequencer.sealOne();
    numbers.push(number);
    const block = chain.getBlockByNumber(number);
    const receipts = block === undefined ? undefined : chain.getReceipts(block.hash());
    if (block === undefined || receipts === undefined) throw new MicroFixtureError(`${what}: block ${number} or its receipts missing after sealing`);
    let user = 0;
    block.transactions.forEach((tx, i) => {
      if (isDeposit(tx)) return;
      user++;
      if (receipts[i]?.status !== 1) {
        throw new MicroFixtureError(`${what}: transaction ${i} of block ${number} failed (status ${receipts[i]?.status}), success expected`);
      }
    });
    if (user === 0) throw new MicroFixtureError(`${what}: block ${number} took none of the ${pool.size} pooled transactions`);
    included += user;
  }
  if (included !== expected) throw new MicroFixtureError(`${what}: ${included} transactions included, ${expected} expected`);
  return numbers;
}

/**
 * Builds the devnet chain and its benchmark block of `opts.txs` workload transactions (plus the
 * L1-attributes deposit) on a fresh temp datadir. Call `close()` when done.
 * @throws MicroFixtureError when the block does not hold exactly the workload's transactions, or one failed.
 */
export async function buildMicroFixture(opts: MicroFixtureOptions = {}): Promise<MicroFixture> {
  const txs = opts.txs ?? DEFAULT_BLOCK_TXS;
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-micro-"));
  let chain: Chain | undefined;
  try {
    // The devnet runs as an archive node (the `archive` default of `--network devnet`).
    await Chain.init(datadir, devnetGenesis(), { archive: true });
    chain = Chain.open(datadir, { archive: true });
    const pool = new TxPool(chain);
    const sequencer = new OpDevSequencer(chain, pool, 0, pino({ level: "silent" }));
    const workload = buildWorkload({ chainId: chain.chainId, blocks: 1, txsPerBlock: txs });
    for (const [r, round] of workload.setup.entries()) {
      for (const raw of round) await pool.addRaw(raw);
      await sealAll(chain, pool, sequencer, round.length, `workload setup round ${r}`);
    }
    const round = workload.blocks[0] ?? [];
    for (const raw of round) await pool.addRaw(raw);
    const sealed = await sealAll(chain, pool, sequencer, round.length, "benchmark block");
    if (sealed.length !== 1) {
      throw new MicroFixtureError(`benchmark block: its ${round.length} transactions took ${sealed.length} blocks, 1 expected`);
    }
    const block = chain.getBlockByNumber(sealed[0]!)!;
    const receipts = chain.getReceipts(block.hash())!;
    const c = chain;
    return {
      datadir,
      chain,
      workload,
      block,
      rlp: block.serialize(),
      receipts,
      senders: chain.getSenders(block.hash()),
      txCount: block.transactions.length,
      async close() {
        await c.close();
        rmSync(datadir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await chain?.close();
    rmSync(datadir, { recursive: true, force: true });
    throw e;
  }
}
