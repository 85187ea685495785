/**
 * The batcher's view of the L1 chain: the canonical headers from where it started, read one
 * block at a time (`eth_getBlockByNumber` with transaction hashes), each checked to build on the
 * one before. A block that does not — or a head that went back or changed — is an L1 reorg: the
 * tracker walks back over the headers it remembers (`BATCHER_L1_REORG_WINDOW_BLOCKS`) to the
 * last one still canonical and reports the first block number that was replaced, then reads the
 * new branch. Every block of the chain passes through {@link L1Heads.poll} once, so whoever reads
 * its `blocks` sees every transaction hash included, in order.
 */
import { BATCHER_L1_REORG_WINDOW_BLOCKS, BATCHER_MAX_L1_BLOCKS_PER_ROUND } from "./constants.js";
import { BatcherError, BatcherErrorCode } from "./errors.js";

/** The fields of an L1 block the batcher uses. */
export interface L1Header {
  number: bigint;
  /** 0x-hex, lower case. */
  hash: string;
  parentHash: string;
  timestamp: bigint;
  /** Hashes of the block's transactions (0x-hex, lower case). */
  txHashes: string[];
}

/** What one {@link L1Heads.poll} found. */
interface L1Advance {
  /** The first block number whose block was replaced (an L1 reorg), if any. */
  reorgedFrom?: bigint;
  /** New canonical blocks, in order (after the fork point when there was a reorg). */
  blocks: L1Header[];
  /** The tracker's head after the poll. */
  head: L1Header;
}

/** Calls the L1 RPC (counted by the caller). */
type L1Call = <T>(method: string, params: unknown[]) => Promise<T>;

type RpcHeader = { number: string; hash: string; parentHash: string; timestamp: string; transactions: string[] };

function headerOf(raw: RpcHeader): L1Header {
  return {
    number: BigInt(raw.number),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: BigInt(raw.timestamp),
    txHashes: raw.transactions.map((h) => h.toLowerCase()),
  };
}

/** Follows L1 block by block (see the module comment). */
export class L1Heads {
  /** Remembered canonical headers, oldest first, consecutive. */
  private chain: L1Header[] = [];

  constructor(private readonly call: L1Call) {}

  /** The newest block read. */
  get head(): L1Header {
    const h = this.chain[this.chain.length - 1];
    if (h === undefined) throw new BatcherError({ code: BatcherErrorCode.L1_BLOCK_MISSING, block: "head" }, "the L1 head was read before L1Heads.start()");
    return h;
  }

  /** Starts at the L1's current head. */
  async start(): Promise<L1Header> {
    this.chain = [await this.byTag("latest")];
    return this.head;
  }

  private async byTag(tag: string): Promise<L1Header> {
    const raw = await this.call<RpcHeader | null>("eth_getBlockByNumber", [tag, false]);
    if (raw === null) throw new BatcherError({ code: BatcherErrorCode.L1_BLOCK_MISSING, block: tag }, `the L1 RPC has no block ${tag}: expected it to (did L1 shrink between two requests?)`);
    return headerOf(raw);
  }

  private byNumber(n: bigint): Promise<L1Header> {
    return this.byTag("0x" + n.toString(16));
  }

  /** The remembered header at `n`, if any. */
  private known(n: bigint): L1Header | undefined {
    const first = this.chain[0];
    if (first === undefined || n < first.number) return undefined;
    return this.chain[Number(n - first.number)];
  }

  /** Forgets the headers above `n`. */
  private truncateAbove(n: bigint): void {
    const first = this.chain[0]!;
    this.chain.length = Math.max(0, Number(n - first.number) + 1);
  }

  private push(h: L1Header): void {
    this.chain.push(h);
    if (this.chain.length > BATCHER_L1_REORG_WINDOW_BLOCKS) this.chain.splice(0, this.chain.length - BATCHER_L1_REORG_WINDOW_BLOCKS);
  }

  /**
   * Walks back from `from` to the newest remembered header that is still canonical and keeps
   * only the headers up to it. When none is (a reorg deeper than the window), starts again from
   * the block just below the window, read as it is now.
   */
  private async rewind(from: bigint, latest: L1Header): Promise<bigint> {
    const first = this.chain[0]!;
    for (let n = from; n >= first.number; n--) {
      const canonical = n === latest.number ? latest : await this.byNumber(n);
      if (canonical.hash === this.known(n)?.hash) {
        this.truncateAbove(n);
        return n + 1n;
      }
    }
    const base = await this.byNumber(first.number - 1n > 0n ? first.number - 1n : 0n);
    this.chain = [base];
    return base.number + 1n;
  }

  /** Reads the blocks since the last poll (at most `BATCHER_MAX_L1_BLOCKS_PER_ROUND`), noticing reorgs. */
  async poll(): Promise<L1Advance> {
    const latest = await this.byTag("latest");
    const out: L1Advance = { blocks: [], head: this.head };
    const reorg = (from: bigint): void => {
      out.reorgedFrom = out.reorgedFrom === undefined || from < out.reorgedFrom ? from : out.reorgedFrom;
      out.blocks = out.blocks.filter((b) => b.number < from);
    };
    // The head went back, or was replaced at the same height.
    if (latest.number <= this.head.number && latest.hash !== this.known(latest.number)?.hash) {
      reorg(await this.rewind(latest.number, latest));
    }
    let reads = 0;
    while (this.head.number < latest.number && reads < BATCHER_MAX_L1_BLOCKS_PER_ROUND) {
      const n = this.head.number + 1n;
      const b = n === latest.number ? latest : await this.byNumber(n);
      reads++;
      if (b.parentHash !== this.head.hash) {
        reorg(await this.rewind(this.head.number, latest));
        continue;
      }
      this.push(b);
      out.blocks.push(b);
    }
    out.head = this.head;
    return out;
  }
}
