/**
 * Holds eth/69 peers to the block range they announce (EIP-7642 Status and BlockRangeUpdate):
 * for the latest block of every range a peer announces, basalt asks the peer for that block's
 * header (by the announced hash), then, when the block has transactions, its body and its
 * receipts, and checks each answer against the header: the header's hash and number are the ones
 * announced, the body's transactions root and the receipts' root (eth/69 receipts come without
 * blooms: they are recomputed first) are the header's. A peer that cannot serve what it announced,
 * answers something else, sends receipts with a bloom, or does not answer in time is disconnected,
 * and the reason counted (`dropped:<reason>`). One check runs per peer at a time; a range
 * announced meanwhile is checked once the running check ends.
 */
import { RLP } from "@ethereumjs/rlp";
import type { Logger } from "pino";
import { orderedTrieRoot } from "../../chain/orderedTrie.js";
import type { Counters } from "../../util/counters.js";
import { BasaltError } from "../../util/errors.js";
import { keccak256 } from "../../util/keccak.js";
import { EthPeerFaultError, EthProtocolError } from "./errors.js";
import { decodeResponse, encodeGetBlockHeaders, encodeHashesRequest, EthCode, ethMessageName } from "./ethMessages.js";
import type { EthSession } from "./ethSession.js";
import { decodeReceipt69, verifyReceipts } from "./receipts.js";
import { rlpUint, txRawOfItem } from "./rlpItems.js";
import type { BlockRange } from "./status.js";

/** Root of an empty trie (keccak256 of RLP("")): a block without transactions (and so without receipts). */
const EMPTY_TRIE_ROOT = Buffer.from("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421", "hex");

/** Options of a {@link RangeChecker}. */
interface RangeCheckOptions {
  /** How long a peer has to answer one request. */
  timeoutMs: number;
  /** Whether the receipts root of a block at `timestamp` leaves deposit nonces out (Regolith ≤ t < Canyon). */
  stripDepositNonce(timestamp: bigint): boolean;
  counters: Counters;
  log: Logger;
}

interface Pending {
  session: EthSession;
  code: number;
  resolve(items: unknown[]): void;
  reject(err: BasaltError): void;
  timer: NodeJS.Timeout;
}

/** The header fields a check needs. */
interface CheckedHeader {
  number: bigint;
  timestamp: bigint;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
}

const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;

function headerOf(item: unknown): CheckedHeader {
  if (!Array.isArray(item) || item.length < 15 || !item.slice(0, 15).every((f) => f instanceof Uint8Array)) throw new EthProtocolError("BlockHeaders", "a header is not a list of at least 15 byte strings");
  const f = item as Uint8Array[];
  const number = rlpUint(f[8]);
  const timestamp = rlpUint(f[11]);
  if (number === undefined || timestamp === undefined) throw new EthProtocolError("BlockHeaders", "header number or timestamp is not an integer");
  return { number, timestamp, transactionsRoot: f[4]!, receiptsRoot: f[5]!, logsBloom: f[6]! };
}

/** See the module comment. */
export class RangeChecker {
  private readonly pending = new Map<bigint, Pending>();
  private readonly running = new WeakSet<EthSession>();
  private readonly queued = new WeakMap<EthSession, BlockRange>();
  private nextId = 1n;

  constructor(private readonly opts: RangeCheckOptions) {}

  /** Checks that `session`'s peer serves the latest block of `range` (after the running check, if any). */
  check(session: EthSession, range: BlockRange): void {
    if (this.running.has(session)) {
      this.queued.set(session, range);
      return;
    }
    this.running.add(session);
    void this.run(session, range)
      .then(() => this.opts.counters.inc("rangeChecks:ok"))
      .catch((e: unknown) => {
        if (session.isClosed) return;
        const err = e instanceof BasaltError ? e : new EthProtocolError("range check", e instanceof Error ? e.message : String(e));
        this.opts.log.debug({ err, latest: range.latest.toString() }, "eth/69 peer failed its range check");
        session.refuse(err, "range check");
      })
      .finally(() => {
        this.running.delete(session);
        const next = this.queued.get(session);
        this.queued.delete(session);
        if (next !== undefined && !session.isClosed) this.check(session, next);
      });
  }

  /** A BlockHeaders, BlockBodies or Receipts message: true when it answered a request of this checker (and was taken). */
  onResponse(session: EthSession, code: number, payload: Uint8Array): boolean {
    const { id, items } = decodeResponse(ethMessageName(code), payload);
    const p = this.pending.get(id);
    if (p === undefined || p.session !== session || p.code !== code) return false;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve(items);
    return true;
  }

  /** Fails the requests of a closed session. */
  sessionClosed(session: EthSession): void {
    for (const [id, p] of this.pending) {
      if (p.session !== session) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new EthPeerFaultError("closed", "the session closed"));
    }
  }

  private request(session: EthSession, code: number, answer: number, body: (id: bigint) => Uint8Array): Promise<unknown[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new EthPeerFaultError("rangeNoAnswer", `no ${ethMessageName(answer)} within ${this.opts.timeoutMs} ms`));
      }, this.opts.timeoutMs);
      timer.unref();
      this.pending.set(id, { session, code: answer, resolve, reject, timer });
      session.send(code, body(id));
      this.opts.counters.inc(`messages:out:${ethMessageName(code)}`);
    });
  }

  private async run(session: EthSession, range: BlockRange): Promise<void> {
    const hash = range.latestHash;
    const at = `block ${range.latest} (${hex(hash)})`;
    const headers = await this.request(session, EthCode.GetBlockHeaders, EthCode.BlockHeaders, (id) => encodeGetBlockHeaders(id, { origin: hash, amount: 1n, skip: 0n, reverse: false }));
    if (headers.length === 0) throw new EthPeerFaultError("rangeUnservable", `announced ${at} as its latest but does not serve its header`);
    const got = keccak256(RLP.encode(headers[0] as never));
    const header = headerOf(headers[0]);
    if (!Buffer.from(got).equals(Buffer.from(hash)) || header.number !== range.latest) {
      throw new EthPeerFaultError("rangeHeaderMismatch", `asked for the header of ${at}, got block ${header.number} (${hex(got)})`);
    }
    if (Buffer.from(header.transactionsRoot).equals(EMPTY_TRIE_ROOT)) return;

    const bodies = await this.request(session, EthCode.GetBlockBodies, EthCode.BlockBodies, (id) => encodeHashesRequest(id, [hash]));
    if (bodies.length === 0) throw new EthPeerFaultError("rangeUnservable", `announced ${at} but does not serve its body`);
    const body = bodies[0];
    if (!Array.isArray(body) || !Array.isArray(body[0])) throw new EthProtocolError("BlockBodies", "a body is not [transactions, …]");
    const txRoot = orderedTrieRoot((body[0] as unknown[]).map((t) => txRawOfItem(t as Uint8Array | unknown[])));
    if (!Buffer.from(txRoot).equals(Buffer.from(header.transactionsRoot))) throw new EthPeerFaultError("bodyMismatch", `the body of ${at} does not match the header's transactions root`);

    const lists = await this.request(session, EthCode.GetReceipts, EthCode.Receipts, (id) => encodeHashesRequest(id, [hash]));
    if (lists.length === 0) throw new EthPeerFaultError("rangeUnservable", `announced ${at} but does not serve its receipts`);
    const list = lists[0];
    if (!Array.isArray(list)) throw new EthProtocolError("Receipts", "a block's receipts are not a list");
    const receipts = list.map(decodeReceipt69);
    verifyReceipts(receipts, { receiptsRoot: header.receiptsRoot, logsBloom: header.logsBloom, stripDepositNonce: this.opts.stripDepositNonce(header.timestamp) });
  }
}
