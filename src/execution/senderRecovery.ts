/**
 * Sender recovery for block import, spread over the execution pool. secp256k1 public-key
 * recovery is the one per-transaction cost of import that does not depend on state, so it runs
 * on the pool's threads — for the next blocks while the current one executes (lookahead in
 * `basalt import`), and split between the pool and the importing thread for a single block
 * (follow mode, Engine API newPayload).
 *
 * A recovered key is installed in the transaction's own cache (`cache.senderPubKey`, where
 * @ethereumjs/tx keeps what it recovered itself), so execution reads it instead of recovering
 * again. When the pool cannot recover a key (an invalid signature, a lost worker), nothing is
 * installed and execution recovers on its own, failing the block with the usual error.
 */
import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { isDeposit } from "../chain/op/depositTx.js";
import { envelopeOf } from "../chain/envelope.js";
import { senderKeyOf } from "../chain/sender.js";
import { SENDER_RECOVERY_MIN_POOL_TXS } from "./constants.js";

/** Recovers the senders' 64-byte public keys of raw transactions (the execution pool). */
export interface SenderKeyRecoverer {
  /** Worker threads available (the split of one block follows it). */
  readonly threadCount: number;
  recoverSenders(number: bigint, timestamp: bigint, txs: Uint8Array[]): Promise<Uint8Array[]>;
}

interface TxCache {
  cache: { senderPubKey?: Uint8Array };
}

function signedTxs(block: Block): TypedTransaction[] {
  return block.transactions.filter((tx) => !isDeposit(tx as { type: number }));
}

function hasKey(tx: TypedTransaction): boolean {
  return (tx as unknown as TxCache).cache.senderPubKey !== undefined;
}

/** Starts and awaits sender recovery of blocks on the pool. */
export class SenderRecovery {
  private readonly inFlight = new WeakMap<Block, Promise<void>>();

  constructor(private readonly pool: SenderKeyRecoverer) {}

  /**
   * Starts recovering every signed transaction's sender of `block` on the pool (lookahead: call it
   * for the blocks after the one executing). Never rejects.
   */
  prefetch(block: Block): Promise<void> {
    let p = this.inFlight.get(block);
    if (p === undefined) {
      p = this.recover(block, signedTxs(block).filter((tx) => !hasKey(tx)));
      this.inFlight.set(block, p);
    }
    return p;
  }

  /**
   * Makes sure the senders of `block` are recovered before it executes: awaits a prefetch, or
   * splits the block between the pool's threads and this thread. Never rejects.
   */
  async ensure(block: Block): Promise<void> {
    const started = this.inFlight.get(block);
    if (started !== undefined) return started;
    const txs = signedTxs(block).filter((tx) => !hasKey(tx));
    if (txs.length < SENDER_RECOVERY_MIN_POOL_TXS) return;
    // This thread takes one share, the pool's threads the others.
    const shares = this.pool.threadCount + 1;
    const mine = Math.floor(txs.length / shares);
    const pooled = this.recover(block, txs.slice(mine));
    for (const tx of txs.slice(0, mine)) {
      try {
        senderKeyOf(tx);
      } catch {
        // Left to execution, which reports it with the block.
      }
    }
    await pooled;
  }

  private async recover(block: Block, txs: TypedTransaction[]): Promise<void> {
    if (txs.length === 0) return;
    try {
      const keys = await this.pool.recoverSenders(block.header.number, block.header.timestamp, txs.map((tx) => envelopeOf(tx)));
      txs.forEach((tx, i) => {
        (tx as unknown as TxCache).cache.senderPubKey = keys[i];
      });
    } catch {
      // An invalid signature or a lost worker: execution recovers (and reports) on its own.
    }
  }
}
