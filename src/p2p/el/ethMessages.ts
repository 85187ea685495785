/**
 * eth/68 and eth/69 message codes and the decoding of the messages basalt answers or reads
 * (devp2p caps/eth.md; EIP-7642 for eth/69's BlockRangeUpdate). Every decoder checks the shape it
 * needs and raises {@link EthProtocolError} otherwise; responses are built from already-encoded items.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { EthProtocolError } from "./errors.js";
import type { HeadersQuery } from "./blockServer.js";
import { rlpListOfEncoded, rlpUint, txRawOfItem } from "./rlpItems.js";
import type { BlockRange } from "./status.js";

/** eth message codes (relative to the eth capability's offset); BlockRangeUpdate is eth/69's. */
export const EthCode = {
  Status: 0x00,
  NewBlockHashes: 0x01,
  Transactions: 0x02,
  GetBlockHeaders: 0x03,
  BlockHeaders: 0x04,
  GetBlockBodies: 0x05,
  BlockBodies: 0x06,
  NewBlock: 0x07,
  NewPooledTransactionHashes: 0x08,
  GetPooledTransactions: 0x09,
  PooledTransactions: 0x0a,
  GetReceipts: 0x0f,
  Receipts: 0x10,
  BlockRangeUpdate: 0x11,
} as const;

/** Message codes the eth/68 capability spans (0x00–0x10). */
export const ETH_68_LENGTH = 17;
/** Message codes the eth/69 capability spans (0x00–0x11: BlockRangeUpdate added, EIP-7642). */
export const ETH_69_LENGTH = 18;

/** The name of a message code (for metrics labels and logs); "unknown" for codes eth/69 does not define. */
export function ethMessageName(code: number): string {
  for (const [name, c] of Object.entries(EthCode)) if (c === code) return name;
  return "unknown";
}

function decode(name: string, payload: Uint8Array): unknown {
  try {
    return RLP.decode(payload);
  } catch {
    throw new EthProtocolError(name, "not valid RLP");
  }
}

function hashList(name: string, v: unknown): Uint8Array[] {
  if (!Array.isArray(v) || !v.every((h) => h instanceof Uint8Array && h.length === 32)) throw new EthProtocolError(name, "expected a list of 32-byte hashes");
  return v as Uint8Array[];
}

/** `[request-id, payload]` of a request or response. */
function requestPair(name: string, payload: Uint8Array): { id: bigint; body: unknown } {
  const v = decode(name, payload);
  if (!Array.isArray(v) || v.length !== 2) throw new EthProtocolError(name, "expected [request-id, …]");
  const id = rlpUint(v[0]);
  if (id === undefined) throw new EthProtocolError(name, "request id is not a 64-bit integer");
  return { id, body: v[1] };
}

/** GetBlockHeaders: `[request-id, [origin, amount, skip, reverse]]`, origin a hash or a number. */
export function decodeGetBlockHeaders(payload: Uint8Array): { id: bigint; query: HeadersQuery } {
  const { id, body } = requestPair("GetBlockHeaders", payload);
  if (!Array.isArray(body) || body.length !== 4) throw new EthProtocolError("GetBlockHeaders", "expected [origin, amount, skip, reverse]");
  const [o, a, s, r] = body as unknown[];
  const amount = rlpUint(a);
  const skip = rlpUint(s);
  const reverse = rlpUint(r);
  if (amount === undefined || skip === undefined || reverse === undefined || reverse > 1n) throw new EthProtocolError("GetBlockHeaders", "amount, skip or reverse is not an integer (reverse 0 or 1)");
  let origin: Uint8Array | bigint;
  if (o instanceof Uint8Array && o.length === 32) origin = o;
  else {
    const n = rlpUint(o);
    if (n === undefined) throw new EthProtocolError("GetBlockHeaders", "origin is neither a 32-byte hash nor a 64-bit number");
    origin = n;
  }
  return { id, query: { origin, amount, skip, reverse: reverse === 1n } };
}

/** GetBlockBodies, GetReceipts, GetPooledTransactions: `[request-id, [hash, …]]`. */
export function decodeHashesRequest(name: string, payload: Uint8Array): { id: bigint; hashes: Uint8Array[] } {
  const { id, body } = requestPair(name, payload);
  return { id, hashes: hashList(name, body) };
}

/** NewPooledTransactionHashes (eth/68): `[types, [size, …], [hash, …]]`, three lists of one length. */
export function decodeAnnouncement(payload: Uint8Array): { types: Uint8Array; sizes: number[]; hashes: Uint8Array[] } {
  const name = "NewPooledTransactionHashes";
  const v = decode(name, payload);
  if (!Array.isArray(v) || v.length !== 3 || !(v[0] instanceof Uint8Array) || !Array.isArray(v[1])) throw new EthProtocolError(name, "expected [types, sizes, hashes]");
  const types = v[0];
  const sizes = (v[1] as unknown[]).map((s) => rlpUint(s));
  const hashes = hashList(name, v[2]);
  if (sizes.some((s) => s === undefined || s > 0xffffffffn)) throw new EthProtocolError(name, "a size is not a 32-bit integer");
  if (types.length !== hashes.length || sizes.length !== hashes.length) throw new EthProtocolError(name, `${types.length} types, ${sizes.length} sizes and ${hashes.length} hashes: expected as many of each`);
  return { types, sizes: sizes.map(Number), hashes };
}

/** A list of transactions (network form) as their canonical bytes. */
function txList(name: string, v: unknown): Uint8Array[] {
  if (!Array.isArray(v)) throw new EthProtocolError(name, "expected a list of transactions");
  return v.map((item: unknown) => {
    if (!(item instanceof Uint8Array) && !Array.isArray(item)) throw new EthProtocolError(name, "a transaction is neither a list nor a byte string");
    if (item instanceof Uint8Array && (item.length === 0 || item[0]! >= 0x80)) throw new EthProtocolError(name, "a typed transaction does not start with its type byte");
    return txRawOfItem(item as Uint8Array | unknown[]);
  });
}

/** Transactions: `[tx, …]`. */
export function decodeTransactions(payload: Uint8Array): Uint8Array[] {
  return txList("Transactions", decode("Transactions", payload));
}

/** PooledTransactions: `[request-id, [tx, …]]`. */
export function decodePooledTransactions(payload: Uint8Array): { id: bigint; raw: Uint8Array[] } {
  const { id, body } = requestPair("PooledTransactions", payload);
  return { id, raw: txList("PooledTransactions", body) };
}

/** A response `[request-id, [item, …]]` (BlockHeaders, BlockBodies, Receipts) with its items decoded. */
export function decodeResponse(name: string, payload: Uint8Array): { id: bigint; items: unknown[] } {
  const { id, body } = requestPair(name, payload);
  if (!Array.isArray(body)) throw new EthProtocolError(name, "expected [request-id, [item, …]]");
  return { id, items: body as unknown[] };
}

/** GetBlockHeaders by hash or number: `[request-id, [origin, amount, skip, reverse]]`. */
export function encodeGetBlockHeaders(id: bigint, q: HeadersQuery): Uint8Array {
  const origin = typeof q.origin === "bigint" ? bigIntToUnpaddedBytes(q.origin) : q.origin;
  return RLP.encode([bigIntToUnpaddedBytes(id), [origin, bigIntToUnpaddedBytes(q.amount), bigIntToUnpaddedBytes(q.skip), bigIntToUnpaddedBytes(q.reverse ? 1n : 0n)]]);
}

/** BlockRangeUpdate (eth/69): `[earliestBlock, latestBlock, latestBlockHash]`. */
export function encodeBlockRangeUpdate(r: BlockRange): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(r.earliest), bigIntToUnpaddedBytes(r.latest), r.latestHash]);
}

/** Decodes a BlockRangeUpdate (trailing items ignored, as EIP-8 asks); the range itself is checked by the session. */
export function decodeBlockRangeUpdate(payload: Uint8Array): BlockRange {
  const name = "BlockRangeUpdate";
  const v = decode(name, payload);
  if (!Array.isArray(v) || v.length < 3) throw new EthProtocolError(name, "expected [earliestBlock, latestBlock, latestBlockHash]");
  const earliest = rlpUint(v[0]);
  const latest = rlpUint(v[1]);
  if (earliest === undefined || latest === undefined) throw new EthProtocolError(name, "earliest or latest block is not a 64-bit integer");
  if (!(v[2] instanceof Uint8Array) || v[2].length !== 32) throw new EthProtocolError(name, "latest block hash is not a 32-byte hash");
  return { earliest, latest, latestHash: v[2] };
}

/** `[request-id, [item, …]]` with already-encoded items (a response). */
export function encodeResponse(id: bigint, items: readonly Uint8Array[]): Uint8Array {
  return rlpListOfEncoded([RLP.encode(bigIntToUnpaddedBytes(id)), rlpListOfEncoded(items)]);
}

/** `[request-id, [hash, …]]` (GetPooledTransactions, GetBlockBodies, GetReceipts). */
export function encodeHashesRequest(id: bigint, hashes: readonly Uint8Array[]): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(id), [...hashes]]);
}

/** NewPooledTransactionHashes (eth/68). */
export function encodeAnnouncement(types: Uint8Array, sizes: readonly number[], hashes: readonly Uint8Array[]): Uint8Array {
  return RLP.encode([types, sizes.map((s) => bigIntToUnpaddedBytes(BigInt(s))), [...hashes]]);
}
