/**
 * Transaction senders without @ethereumjs's re-encoding: for EIP-2930 and EIP-1559
 * transactions (types 1 and 2, nearly every transaction on Base) the signing hash is taken from
 * the envelope bytes — `type ‖ rlp(list of the fields before yParity, r, s)`: the envelope's own
 * field bytes under a new list header — and the key is recovered by the native addon's
 * libsecp256k1, the address hashed by the native keccak.
 *
 * @ethereumjs builds the same hash from the decoded fields (`raw().slice(0, n)`, RLP-encoded
 * again), which is byte-identical because its decoder accepts only canonical RLP and integers
 * without leading zeros; the tests compare both on random transactions. Anything else (legacy
 * and other types, no addon, a signature this path refuses: high s, yParity other than 0/1, no
 * recoverable key) goes to @ethereumjs, which gives its usual result or error.
 *
 * Measured per ERC-20 transfer on the 2-core dev machine: @ethereumjs's signing hash
 * (`getHashedMessageToSign`) ~12 µs and `publicToAddress` (@noble keccak) ~9 µs, against ~2 µs
 * here.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { keccak256 } from "../util/keccak.js";
import { nativeAddon } from "../util/nativeAddon.js";
import { envelopeOf } from "./envelope.js";
import { isDeposit } from "./op/depositTx.js";

/** secp256k1's group order halved (EIP-2: signatures with a larger s are invalid), big-endian. */
const HALF_N = Uint8Array.from(Buffer.from("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0", "hex"));
/** Fields before yParity, r, s in each handled envelope type. */
const UNSIGNED_FIELDS: Record<number, number> = { 1: 8, 2: 9 };
/** Items of the longest handled envelope (type 2: 9 fields and yParity, r, s). */
const MAX_ITEMS = 12;

const recover = nativeAddon()?.secp256k1Recover;

interface RlpItem {
  /** Offset of the item's header. */
  start: number;
  /** Offset of its content. */
  content: number;
  /** Offset just past it. */
  end: number;
  list: boolean;
}

/** The RLP item at `p` (undefined when it does not fit before `limit`). */
function itemAt(e: Uint8Array, p: number, limit: number): RlpItem | undefined {
  if (p >= limit) return undefined;
  const b = e[p]!;
  let content: number;
  let len: number;
  if (b < 0x80) {
    content = p;
    len = 1;
  } else if (b < 0xb8 || (b >= 0xc0 && b < 0xf8)) {
    content = p + 1;
    len = b - (b < 0xc0 ? 0x80 : 0xc0);
  } else {
    const lenOfLen = b - (b < 0xc0 ? 0xb7 : 0xf7);
    if (lenOfLen > 4 || p + 1 + lenOfLen > limit) return undefined;
    len = 0;
    for (let i = 0; i < lenOfLen; i++) len = len * 256 + e[p + 1 + i]!;
    content = p + 1 + lenOfLen;
  }
  const end = content + len;
  return end > limit ? undefined : { start: p, content, end, list: b >= 0xc0 };
}

/**
 * The signing hash, compact signature (r ‖ s) and recovery id of a type-1 or type-2 envelope,
 * or undefined for other types, malformed bytes, a yParity other than 0/1, r or s longer than
 * 32 bytes, or s above n/2.
 */
export function typedSignature(envelope: Uint8Array): { hash: Uint8Array; sig: Uint8Array; recid: number } | undefined {
  const fields = UNSIGNED_FIELDS[envelope[0] ?? -1];
  if (fields === undefined) return undefined;
  const outer = itemAt(envelope, 1, envelope.length);
  if (outer === undefined || !outer.list || outer.end !== envelope.length) return undefined;
  const starts: RlpItem[] = [];
  for (let p = outer.content; p < outer.end; ) {
    const it = itemAt(envelope, p, outer.end);
    if (it === undefined || starts.length === MAX_ITEMS) return undefined;
    starts.push(it);
    p = it.end;
  }
  if (starts.length !== fields + 3) return undefined;
  const [v, r, s] = [starts[fields]!, starts[fields + 1]!, starts[fields + 2]!];
  if (v.list || r.list || s.list) return undefined;
  const vLen = v.end - v.content;
  let recid: number;
  if (vLen === 0 && v.start !== v.content) recid = 0;
  else if (vLen === 1 && v.start === v.content && envelope[v.content] === 1) recid = 1;
  else return undefined;
  const rLen = r.end - r.content;
  const sLen = s.end - s.content;
  if (rLen > 32 || sLen > 32) return undefined;
  const sig = new Uint8Array(64);
  sig.set(envelope.subarray(r.content, r.end), 32 - rLen);
  sig.set(envelope.subarray(s.content, s.end), 64 - sLen);
  for (let i = 0; i < 32; i++) {
    const d = sig[32 + i]! - HALF_N[i]!;
    if (d < 0) break;
    if (d > 0) return undefined;
  }
  // type ‖ list header ‖ the unsigned fields' bytes.
  const bodyLen = v.start - outer.content;
  const headerLen = bodyLen <= 55 ? 1 : 1 + byteLength(bodyLen);
  const msg = new Uint8Array(1 + headerLen + bodyLen);
  msg[0] = envelope[0]!;
  if (bodyLen <= 55) msg[1] = 0xc0 + bodyLen;
  else {
    const n = headerLen - 1;
    msg[1] = 0xf7 + n;
    for (let i = 0, x = bodyLen; i < n; i++, x = Math.floor(x / 256)) msg[1 + n - i] = x % 256;
  }
  msg.set(envelope.subarray(outer.content, v.start), 1 + headerLen);
  return { hash: keccak256(msg), sig, recid };
}

function byteLength(x: number): number {
  let n = 0;
  for (; x > 0; x = Math.floor(x / 256)) n++;
  return n;
}

/**
 * The sender's 64-byte public key from a type-1/2 envelope through the native addon, or
 * undefined when this path does not apply (see the module doc; the caller then asks
 * @ethereumjs).
 */
export function fastSenderKey(envelope: Uint8Array): Uint8Array | undefined {
  if (recover === undefined) return undefined;
  const parts = typedSignature(envelope);
  return parts === undefined ? undefined : recover(parts.sig, parts.recid, parts.hash);
}

interface TxCache {
  cache: { senderPubKey?: Uint8Array };
}

/**
 * The sender's public key (64 bytes) of `tx`: a key already recovered (by the pool, or earlier),
 * else the fast path, else @ethereumjs's `getSenderPublicKey` (which throws for an invalid
 * signature). The key is kept in the transaction's cache when the transaction is frozen (as
 * @ethereumjs does).
 */
export function senderKeyOf(tx: TypedTransaction): Uint8Array {
  const cache = (tx as unknown as TxCache).cache;
  let key = cache.senderPubKey;
  if (key !== undefined) return key;
  key = (UNSIGNED_FIELDS[tx.type] !== undefined ? fastSenderKey(envelopeOf(tx)) : undefined) ?? tx.getSenderPublicKey();
  if (Object.isFrozen(tx)) cache.senderPubKey = key;
  return key;
}

const addresses = new WeakMap<object, Address>();

/**
 * The sender of a signed transaction (deposits: their `from`), computed once per transaction
 * object: {@link senderKeyOf} hashed by the native keccak. Throws @ethereumjs's error for an
 * invalid signature.
 */
export function senderOf(tx: TypedTransaction): Address {
  let a = addresses.get(tx);
  if (a === undefined) {
    a = isDeposit(tx as { type: number }) ? tx.getSenderAddress() : new Address(keccak256(senderKeyOf(tx)).subarray(12));
    if (Object.isFrozen(tx)) addresses.set(tx, a);
  }
  return a;
}
