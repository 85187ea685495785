/**
 * The blocks of the scale benchmark, sealed by the devnet sequencer on a copy of the synthesized
 * datadir (which the import passes then replay on the original): each block's user
 * transactions interleave ERC-20 transfers from the senders to random existing holders (cold
 * token slots), ETH transfers to random existing holders (cold accounts) and ETH transfers to
 * new random addresses (new accounts), 2 : 1 : 1, all signed EIP-1559 transactions.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { pino } from "pino";
import { Chain } from "../../src/blockchain/chain.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { transferCalldata } from "../workload/contracts.js";
import { DEFAULT_MAX_FEE_PER_GAS, DEFAULT_MAX_PRIORITY_FEE_PER_GAS, TRANSFER_GAS } from "../workload/workload.js";
import { Rng } from "./rng.js";
import { StateScaleError, TOKEN_ADDRESS, holderAddress, type StatePlan } from "./synth.js";

/**
 * Gas limit of a benchmark ERC-20 transfer: it uses ~35–50 k (21 k intrinsic, calldata, two cold
 * SLOADs of 2,100, two SSTOREs, LOG3); 60 k leaves margin and lets ~1,000 transactions of the
 * mix fit the devnet's 60 M gas limit.
 */
const TOKEN_TRANSFER_GAS = 60_000n;
/** Token units per benchmark transfer (plus the transaction's index, so amounts differ). */
const TOKEN_AMOUNT = 1000n;
/** Wei per ETH transfer to a holder (plus the index). */
const HOLDER_PAYMENT_WEI = 10n ** 9n;
/** Wei per ETH transfer to a new address. */
const NEW_ACCOUNT_WEI = 10n ** 12n;
/** The kinds of a block's transactions in repeating order: half ERC-20, a quarter each ETH to holders and to new accounts. */
const KIND_CYCLE = ["erc20", "ethHolder", "erc20", "ethNew"] as const;
/** Seed stream of the blocks' random choices (holders, new addresses). */
const BLOCKS_STREAM = 4;

/** The sealed blocks and what they touched. */
export interface BuiltBlocks {
  /** RLP of blocks 1..B. */
  rlps: Uint8Array[];
  /** Holders whose ETH or token balance the blocks changed. */
  touchedHolders: Set<number>;
  /** User transactions per kind over all blocks. */
  kinds: Record<(typeof KIND_CYCLE)[number], number>;
  /** Seconds to seal them (signing, pool, execution, commit). */
  seconds: number;
}

/** Copies a datadir keeping LMDB's sparse map sparse (`cp --sparse=always -r`). */
export function copyDatadir(from: string, to: string): void {
  const r = spawnSync("cp", ["-r", "--sparse=always", from, to], { encoding: "utf8" });
  if (r.status !== 0) throw new StateScaleError("BENCH_STATE_SCALE_BLOCKS", `copying ${from} to ${to} failed: ${r.stderr || r.error?.message || `exit ${r.status}`}`);
}

/**
 * Seals `blocks` blocks of `txs` user transactions each on a copy of `synthDir` at `buildDir`
 * (deleted afterwards) and returns their RLP. Sender k of a block is sender (b·T + k) mod S
 * (nonces tracked here); holders and new addresses are seeded random choices.
 * @throws StateScaleError `BENCH_STATE_SCALE_BLOCKS` when a block did not take all its
 *   transactions (too many for the gas limit) or one of them failed.
 */
export async function buildBlocks(synthDir: string, buildDir: string, plan: StatePlan, blocks: number, txs: number): Promise<BuiltBlocks> {
  const t0 = performance.now();
  copyDatadir(synthDir, buildDir);
  const silent = pino({ level: "silent" });
  const chain = Chain.open(buildDir, { archive: false, logger: silent });
  try {
    const pool = new TxPool(chain);
    const seq = new OpDevSequencer(chain, pool, 0, silent);
    const rng = new Rng(plan.shape.seed, BLOCKS_STREAM);
    const nonces = new Array<bigint>(plan.senders.length).fill(0n);
    const touchedHolders = new Set<number>();
    const kinds = { erc20: 0, ethHolder: 0, ethNew: 0 };
    const holders = plan.shape.holders;
    let next = 0;
    for (let b = 0; b < blocks; b++) {
      for (let k = 0; k < txs; k++) {
        const from = next++ % plan.senders.length;
        const s = plan.senders[from]!;
        const kind = KIND_CYCLE[k % KIND_CYCLE.length]!;
        kinds[kind]++;
        let to: Uint8Array;
        let value = 0n;
        let data: Uint8Array = new Uint8Array(0);
        let gasLimit = TRANSFER_GAS;
        if (kind === "ethNew" || holders === 0) {
          to = rng.bytes(20);
          value = NEW_ACCOUNT_WEI;
        } else {
          const h = rng.int(holders);
          touchedHolders.add(h);
          if (kind === "erc20") {
            to = TOKEN_ADDRESS;
            data = transferCalldata(holderAddress(h), TOKEN_AMOUNT + BigInt(k));
            gasLimit = TOKEN_TRANSFER_GAS;
          } else {
            to = holderAddress(h);
            value = HOLDER_PAYMENT_WEI + BigInt(k);
          }
        }
        const tx = createFeeMarket1559Tx(
          {
            chainId: chain.chainId,
            nonce: nonces[from]!++,
            maxFeePerGas: DEFAULT_MAX_FEE_PER_GAS,
            maxPriorityFeePerGas: DEFAULT_MAX_PRIORITY_FEE_PER_GAS,
            gasLimit,
            to: new Address(to),
            value,
            data,
          },
          { common: chain.common },
        ).sign(s.key);
        await pool.addRaw(tx.serialize());
      }
      const number = await seq.sealOne();
      const block = chain.getBlockByNumber(number)!;
      // The first transaction of an OP block is the L1 attributes deposit.
      if (block.transactions.length !== txs + 1) {
        throw new StateScaleError(
          "BENCH_STATE_SCALE_BLOCKS",
          `block ${number} took ${block.transactions.length - 1} of its ${txs} transactions (gas limit ${block.header.gasLimit}): expected all of them; lower --txs`,
        );
      }
      const failed = (chain.getReceipts(block.hash()) ?? []).filter((r) => r.status === 0).length;
      if (failed > 0) throw new StateScaleError("BENCH_STATE_SCALE_BLOCKS", `block ${number}: ${failed} transactions failed: expected every benchmark transaction to succeed`);
    }
    const rlps: Uint8Array[] = [];
    for (let n = 1n; n <= chain.head.header.number; n++) rlps.push(chain.getBlockByNumber(n)!.serialize());
    return { rlps, touchedHolders, kinds, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await chain.close();
    rmSync(buildDir, { recursive: true, force: true });
  }
}
