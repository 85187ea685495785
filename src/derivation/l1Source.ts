/**
 * What derivation reads from the L1 execution RPC (`--l1.rpc`): blocks (the header fields
 * derivation uses, and the batcher's transactions to the batch inbox, each sender recovered from
 * its signature, never taken from the RPC's `from`), receipts (deposits and system-config
 * updates), and the `safe`/`finalized` tags. Reads are cached by hash, and every request is
 * counted by method so derivation can report its L1 requests per L2 block.
 */
import { createCustomCommon, Hardfork, Mainnet, type Common } from "@ethereumjs/common";
import { createTxFromRPC } from "@ethereumjs/tx";
import { equalsBytes, hexToBytes } from "@ethereumjs/util";
import { customCrypto } from "../chain/crypto.js";
import type { JsonRpcClient } from "../util/rpcClient.js";
import { L1_SOURCE_CACHE_BLOCKS } from "./constants.js";
import { LruMap } from "../util/lru.js";
import { TypedError } from "../util/errors.js";
import type { L1BlockRef } from "./batchValidity.js";

/** An L1 block's header fields derivation uses (specs derivation.md "L1 Traversal"). */
export interface L1BlockInfo extends L1BlockRef {
  parentHash: Uint8Array;
  baseFeePerGas: bigint;
  /** prevRandao. */
  mixHash: Uint8Array;
  /** Cancun+: blob gas fields; undefined before. */
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
  /** Cancun+ (EIP-4788). */
  parentBeaconBlockRoot?: Uint8Array;
  /** The block's logs bloom (lets derivation skip the receipts of blocks that cannot hold its contracts' logs). */
  logsBloom?: Uint8Array;
}

/** One data item a batcher transaction carries, in block order: its calldata, or its blobs by versioned hash. */
type BatcherData =
  | { kind: "calldata"; txIndex: number; data: Uint8Array }
  | { kind: "blobs"; txIndex: number; versionedHashes: Uint8Array[]; /** index of the first among all blob hashes of the block (the beacon's blob index) */ firstBlobIndex: number };

/** A successful receipt's logs, with block-level log indexes (deposits' source hashes use them). */
export interface L1ReceiptLogs {
  txIndex: number;
  status: boolean;
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array; logIndex: number }[];
}

/** An L1 block: header fields and the batcher data it carries for a given inbox and batcher. */
export interface L1Block {
  info: L1BlockInfo;
  /** Every transaction to the inbox in order, with its recovered sender (filtering by batcher is the caller's, per L1 block's system config). */
  inboxTxs: { txIndex: number; from: Uint8Array; type: number; data: BatcherData }[];
}

/** Stable code of {@link L1SourceError}. */
const L1SourceErrorCode = { L1_SOURCE: "DERIVATION_L1_SOURCE" } as const;
/** A {@link L1SourceError}'s code with its metadata. */
type L1SourceErrorType = { code: typeof L1SourceErrorCode.L1_SOURCE; what: string };

/** Errors of the L1 source. */
export class L1SourceError extends TypedError<L1SourceErrorType> {
  constructor(what: string, message: string) {
    super({ code: L1SourceErrorCode.L1_SOURCE, what }, message);
  }
}

type RpcTx = { type: string; to: string | null; input: string; hash: string; blobVersionedHashes?: string[] } & Record<string, unknown>;
type RpcBlock = {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  baseFeePerGas?: string;
  mixHash: string;
  excessBlobGas?: string;
  blobGasUsed?: string;
  parentBeaconBlockRoot?: string;
  logsBloom?: string;
  transactions: RpcTx[];
};
type RpcReceipt = { transactionIndex: string; status: string; logs: { address: string; topics: string[]; data: string; logIndex: string }[] };

const hex = (s: string): Uint8Array => hexToBytes(s as `0x${string}`);

/** Reads L1 for derivation (see the module comment). */
export class L1Source {
  /** Requests made, by JSON-RPC method. */
  readonly requests = new Map<string, number>();
  private readonly blocks = new LruMap<string, L1Block>(L1_SOURCE_CACHE_BLOCKS);
  private readonly common: Common;
  private readonly inbox: Uint8Array;

  constructor(
    private readonly rpc: JsonRpcClient,
    opts: { l1ChainId: bigint; batchInbox: string },
  ) {
    // Any fork with every transaction type the L1 carries (blob transactions included); only the chain id signs.
    // @ethereumjs refuses to build a blob transaction without a KZG implementation in its Common, even with no blobs
    // attached: without it every blob batcher transaction would be skipped as undecodable.
    this.common = createCustomCommon({ chainId: Number(opts.l1ChainId) }, Mainnet, { hardfork: Hardfork.Prague, customCrypto: customCrypto() });
    this.inbox = hex(opts.batchInbox);
  }

  /** Total requests made. */
  get requestCount(): number {
    let n = 0;
    for (const v of this.requests.values()) n += v;
    return n;
  }

  private async call<T>(method: string, params: unknown[]): Promise<T> {
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
    return this.rpc.call<T>(method, params);
  }

  /** The L1 chain id the RPC serves (checked against the rollup's at start). */
  async chainId(): Promise<bigint> {
    return BigInt(await this.call<string>("eth_chainId", []));
  }

  /** The block at `number` (or a tag: latest, safe, finalized), undefined when the L1 does not have it (yet). */
  async blockByNumber(number: bigint | "latest" | "safe" | "finalized"): Promise<L1Block | undefined> {
    const raw = await this.call<RpcBlock | null>("eth_getBlockByNumber", [typeof number === "bigint" ? "0x" + number.toString(16) : number, true]);
    return raw === null ? undefined : await this.decode(raw);
  }

  /** The block with `hash` (from the cache when read before). */
  async blockByHash(hash: Uint8Array): Promise<L1Block | undefined> {
    const key = Buffer.from(hash).toString("hex");
    const cached = this.blocks.get(key);
    if (cached !== undefined) return cached;
    const raw = await this.call<RpcBlock | null>("eth_getBlockByHash", ["0x" + key, true]);
    return raw === null ? undefined : await this.decode(raw);
  }

  /** The receipts of block `hash`, in transaction order. */
  async receipts(hash: Uint8Array): Promise<L1ReceiptLogs[]> {
    const raw = await this.call<RpcReceipt[] | null>("eth_getBlockReceipts", ["0x" + Buffer.from(hash).toString("hex")]);
    if (raw === null) throw new L1SourceError("receipts", `L1 RPC ${this.rpc.endpoint} has no receipts for block 0x${Buffer.from(hash).toString("hex")}: expected the block's receipts (was it reorged out?)`);
    return raw.map((r) => ({
      txIndex: Number(r.transactionIndex),
      status: r.status === "0x1",
      logs: r.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data), logIndex: Number(l.logIndex) })),
    }));
  }

  private async decode(raw: RpcBlock): Promise<L1Block> {
    const info: L1BlockInfo = {
      number: BigInt(raw.number),
      hash: hex(raw.hash),
      parentHash: hex(raw.parentHash),
      timestamp: BigInt(raw.timestamp),
      baseFeePerGas: BigInt(raw.baseFeePerGas ?? "0x0"),
      mixHash: hex(raw.mixHash),
    };
    if (raw.excessBlobGas !== undefined) info.excessBlobGas = BigInt(raw.excessBlobGas);
    if (raw.blobGasUsed !== undefined) info.blobGasUsed = BigInt(raw.blobGasUsed);
    if (raw.parentBeaconBlockRoot !== undefined) info.parentBeaconBlockRoot = hex(raw.parentBeaconBlockRoot);
    if (raw.logsBloom !== undefined) info.logsBloom = hex(raw.logsBloom);
    const inboxTxs: L1Block["inboxTxs"] = [];
    let blobIndex = 0;
    for (const [txIndex, t] of raw.transactions.entries()) {
      const type = Number(t.type);
      const hashes = (t.blobVersionedHashes ?? []).map(hex);
      const first = blobIndex;
      // The beacon indexes blobs across every blob transaction of the block, batcher's or not.
      blobIndex += hashes.length;
      if (t.to === null || !equalsBytes(hex(t.to), this.inbox)) continue;
      const from = await this.sender(t);
      if (from === undefined) continue;
      const data: BatcherData = type === 3 ? { kind: "blobs", txIndex, versionedHashes: hashes, firstBlobIndex: first } : { kind: "calldata", txIndex, data: hex(t.input) };
      inboxTxs.push({ txIndex, from, type, data });
    }
    const block = { info, inboxTxs };
    this.blocks.set(Buffer.from(info.hash).toString("hex"), block);
    return block;
  }

  /** The signer of an inbox transaction, recovered from its signature; undefined (skipped) when it has none that recovers. */
  private async sender(t: RpcTx): Promise<Uint8Array | undefined> {
    try {
      const tx = await createTxFromRPC(t as never, { common: this.common });
      // The rebuilt transaction must be the one the RPC named: a mismatch means fields were lost or altered.
      if (!equalsBytes(tx.hash(), hex(t.hash))) return undefined;
      return tx.getSenderAddress().bytes;
    } catch {
      // A transaction type derivation does not read, or one that does not decode: not batcher data.
      return undefined;
    }
  }
}
