/**
 * The devnet block producer: seals a block every `blockTimeS` seconds with the mempool's
 * executable transactions ordered by effective tip, through the same build path as the
 * Engine API.
 */
import type { Logger } from "pino";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Chain } from "../chain/chain.js";
import type { TxPool } from "../txpool/txpool.js";
import { buildOnHead } from "./blockBuilder.js";
import { to0x } from "../util/bytes.js";

/** Periodic local block production. */
export class DevBlockProducer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly blockTimeS: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.blockTimeS <= 0) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sealOne()
        .catch((e: unknown) => this.log.error({ err: (e as Error).message }, "devnet block production failed"))
        .finally(() => this.schedule());
    }, this.blockTimeS * 1000);
  }

  /** Seals one block now (also used by tests and on-demand sealing). */
  async sealOne(): Promise<void> {
    const head = this.chain.head;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const timestamp = now > head.header.timestamp ? now : head.header.timestamp + 1n;
    const ex = await buildOnHead(
      this.chain,
      this.pool,
      {
        timestamp,
        feeRecipient: new Uint8Array(20),
        prevRandao: keccak_256(head.hash()),
        withdrawals: [],
        parentBeaconBlockRoot: new Uint8Array(32),
      },
      this.log,
    );
    this.chain.commitCanonical(ex, { safe: ex.block.hash(), finalized: ex.block.hash() });
    this.pool.prune();
    this.log.debug({ number: ex.block.header.number.toString(), hash: to0x(ex.block.hash()), txs: ex.block.transactions.length }, "sealed block");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }
}
