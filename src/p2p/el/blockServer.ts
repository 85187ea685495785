/**
 * Answers the eth/68 and eth/69 block requests of peers from the chain store (opened read-only in
 * the devp2p worker): GetBlockHeaders (by hash or number, skip, reverse), GetBlockBodies and
 * GetReceipts (receipts in the form of the session's version: with blooms on eth/68, without on
 * eth/69), each capped as reth and geth cap them (1024 items, and a soft limit of 2 MiB: the item
 * that crosses it is the last one). Unknown blocks end a header walk and are skipped in body and
 * receipt answers, as geth does. It also says which blocks it serves (eth/69's range).
 */
import { RLP } from "@ethereumjs/rlp";
import { ETH_MAX_BODIES_SERVE, ETH_MAX_HEADERS_SERVE, ETH_MAX_RECEIPTS_SERVE, ETH_SOFT_RESPONSE_BYTES } from "../constants.js";
import type { ChainStore } from "../../storage/store.js";
import type { ForkHead } from "./forkId.js";
import { blockReceipts69Item, blockReceiptsItem } from "./receipts.js";
import { rlpUint } from "./rlpItems.js";
import { ETH_69, type BlockRange } from "./status.js";

/** A GetBlockHeaders query: origin (hash or number), how many, how many to skip between, direction. */
export interface HeadersQuery {
  origin: Uint8Array | bigint;
  amount: bigint;
  skip: bigint;
  reverse: boolean;
}

/** The chain head as the worker last read it. */
export interface HeadInfo extends ForkHead {
  hash: Uint8Array;
}

/** Reads number, parent hash and timestamp out of header RLP. */
function headerFields(rlp: Uint8Array): { parent: Uint8Array; number: bigint; timestamp: bigint } {
  const f = RLP.decode(rlp) as Uint8Array[];
  return { parent: f[0]!, number: rlpUint(f[8]) ?? 0n, timestamp: rlpUint(f[11]) ?? 0n };
}

/** See the module comment. */
export class BlockServer {
  constructor(private readonly store: ChainStore) {}

  /** Takes a fresh read snapshot (the main thread keeps committing blocks). */
  refresh(): void {
    this.store.root.resetReadTxn();
  }

  /** The canonical head. */
  head(): HeadInfo {
    const hash = this.store.getPointer("head");
    const rlp = hash === undefined ? undefined : this.store.getHeaderRlp(hash);
    if (hash === undefined || rlp === undefined) throw new Error("chain store has no head block");
    const { number, timestamp } = headerFields(rlp);
    return { hash, number, timestamp };
  }

  /**
   * The blocks served: from the lowest block of the canonical index (the genesis, unless the
   * store was started from a later block) to the head.
   */
  range(): BlockRange {
    const head = this.head();
    let earliest = head.number;
    for (const key of this.store.canonical.getKeys({ limit: 1 })) earliest = BigInt("0x" + Buffer.from(key as Uint8Array).toString("hex"));
    return { earliest: earliest > head.number ? head.number : earliest, latest: head.number, latestHash: head.hash };
  }

  /** Encoded headers answering `q` (each item is header RLP). */
  headers(q: HeadersQuery): Uint8Array[] {
    const out: Uint8Array[] = [];
    const max = q.amount < BigInt(ETH_MAX_HEADERS_SERVE) ? Number(q.amount) : ETH_MAX_HEADERS_SERVE;
    if (max <= 0) return out;
    let bytes = 0;
    const push = (rlp: Uint8Array): boolean => {
      out.push(rlp);
      bytes += rlp.length;
      return out.length < max && bytes < ETH_SOFT_RESPONSE_BYTES;
    };
    let number: bigint;
    if (typeof q.origin === "bigint") {
      number = q.origin;
    } else {
      const first = this.store.getHeaderRlp(q.origin);
      if (first === undefined) return out;
      const f = headerFields(first);
      const canonical = this.store.getCanonicalHash(f.number);
      if (canonical === undefined || !Buffer.from(canonical).equals(Buffer.from(q.origin))) {
        // A side-chain origin: only its ancestors can be walked (reverse, no skip), by parent hash.
        if (!push(first) || !q.reverse || q.skip !== 0n) return out;
        let parent = f.parent;
        for (;;) {
          const rlp = this.store.getHeaderRlp(parent);
          if (rlp === undefined || !push(rlp)) return out;
          parent = headerFields(rlp).parent;
        }
      }
      number = f.number;
    }
    const step = q.skip + 1n;
    // Nothing above the head exists (and a u64 skip must not reach the store's 8-byte keys).
    const top = this.head().number;
    for (;;) {
      if (number < 0n || number > top) return out;
      const hash = this.store.getCanonicalHash(number);
      const rlp = hash === undefined ? undefined : this.store.getHeaderRlp(hash);
      if (rlp === undefined || !push(rlp)) return out;
      number = q.reverse ? number - step : number + step;
    }
  }

  /** Encoded bodies (`[txs, uncles, withdrawals?]` RLP) of the known blocks among `hashes`. */
  bodies(hashes: readonly Uint8Array[]): Uint8Array[] {
    return this.collect(hashes, ETH_MAX_BODIES_SERVE, (h) => this.store.getBodyRlp(h));
  }

  /** Receipt lists of the known blocks among `hashes`, in the network form of eth `version`. */
  receipts(hashes: readonly Uint8Array[], version: number): Uint8Array[] {
    const item = version >= ETH_69 ? blockReceipts69Item : blockReceiptsItem;
    return this.collect(hashes, ETH_MAX_RECEIPTS_SERVE, (h) => {
      const r = this.store.getReceipts(h);
      return r === undefined ? undefined : item(r);
    });
  }

  private collect(hashes: readonly Uint8Array[], cap: number, read: (h: Uint8Array) => Uint8Array | undefined): Uint8Array[] {
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (const h of hashes) {
      if (out.length >= cap || bytes >= ETH_SOFT_RESPONSE_BYTES) break;
      const item = read(h);
      if (item === undefined) continue;
      out.push(item);
      bytes += item.length;
    }
    return out;
  }
}
