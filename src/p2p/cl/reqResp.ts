/**
 * op-node's `payload_by_number` req/resp protocol on libp2p streams (op-node/p2p/sync.go), both
 * sides. Server: global and per-peer rate limits (20/s burst 40, 4/s burst 15, waiting at most
 * 20 s), the request read within 10 s, the payload asked of the main thread, the answer written
 * within 10 s; any failure answers a result code. Client: a stream opened within 5 s, the request
 * written and the response read (at most 10 MiB) within 10 s each, and the payload checked
 * (decodes, has the requested number and a consistent block hash); the peer's application score
 * records how it answered. Every stream is handled in its own try/catch: a peer cannot crash the
 * worker, and each read is bounded in size and time.
 */
import type { Stream } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import type { Logger } from "pino";
import { GOSSIP_MAX_MESSAGE_BYTES, P2P_REQRESP_CLIENT_TIMEOUT_MS, P2P_REQRESP_GLOBAL_RATE, P2P_REQRESP_MAX_THROTTLE_MS, P2P_REQRESP_PEER_LIMITERS, P2P_REQRESP_PEER_RATE, P2P_REQRESP_SERVER_TIMEOUT_MS, P2P_REQRESP_STREAM_TIMEOUT_MS } from "../constants.js";
import { P2PError, P2PErrorCode } from "../errors.js";
import type { AppScores } from "./appScores.js";
import type { P2PHost } from "./host.js";
import {
  ResultCode,
  blocksVersionsOf,
  decodePayloadRequest,
  decodePayloadResponse,
  encodeErrorResponse,
  encodePayloadRequest,
  encodeSuccessResponse,
  payloadByNumberProtocol,
  resultName,
} from "./payloadByNumber.js";
import type { BlocksVersion } from "../gossip/topics.js";
import type { P2PStats } from "./stats.js";
import { TokenBucket } from "./tokenBucket.js";

/** What the payload source answers: a payload, or a result code (1 not found, 2 invalid request, 3 other). */
export type PayloadAnswer = { version: BlocksVersion; payloadBytes: Uint8Array } | { result: number };

/** A fetched, checked payload. */
export interface FetchedPayload {
  version: BlocksVersion;
  payloadBytes: Uint8Array;
  peer: string;
}

/** Checks a served payload: undefined when it decodes at `version` as block `n` with a consistent hash, else why not. */
type PayloadCheck = (version: BlocksVersion, payloadBytes: Uint8Array, n: bigint) => string | undefined;

/** Reads `stream` until EOF or `max` bytes; throws past `max` or after `timeoutMs`. */
async function readAll(stream: Stream, max: number, timeoutMs: number, stopAt?: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const timer = setTimeout(() => stream.abort(new Error(`read timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    for await (const chunk of stream.source) {
      const b = chunk.subarray();
      total += b.length;
      if (total > max) throw new Error(`more than ${max} bytes`);
      parts.push(b);
      if (stopAt !== undefined && total >= stopAt) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(parts);
}

async function writeAll(stream: Stream, data: Uint8Array, timeoutMs: number): Promise<void> {
  const timer = setTimeout(() => stream.abort(new Error(`write timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    await stream.sink([data]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@link PayloadByNumber} needs. */
interface PayloadByNumberOptions {
  host: P2PHost;
  chainId: bigint;
  /** Asks the main thread for a payload. */
  source: (n: bigint) => Promise<PayloadAnswer>;
  check: PayloadCheck;
  appScores: AppScores;
  stats: P2PStats;
  log: Logger;
}

/** See the module comment. */
export class PayloadByNumber {
  readonly protocol: string;
  private readonly global = new TokenBucket(P2P_REQRESP_GLOBAL_RATE.perSecond, P2P_REQRESP_GLOBAL_RATE.burst);
  /** Per-peer limiters, least recently used first (op-node keeps an LRU of 1000). */
  private readonly perPeer = new Map<string, TokenBucket>();

  constructor(private readonly o: PayloadByNumberOptions) {
    this.protocol = payloadByNumberProtocol(o.chainId);
  }

  /** Registers the server side. */
  async start(): Promise<void> {
    await this.o.host.handle(
      this.protocol,
      ({ stream, connection }) => {
        void this.serve(stream, connection.remotePeer.toString());
      },
      { runOnLimitedConnection: false },
    );
  }

  private limiterOf(peer: string): TokenBucket {
    let l = this.perPeer.get(peer);
    if (l !== undefined) {
      this.perPeer.delete(peer);
    } else {
      l = new TokenBucket(P2P_REQRESP_PEER_RATE.perSecond, P2P_REQRESP_PEER_RATE.burst);
      if (this.perPeer.size >= P2P_REQRESP_PEER_LIMITERS) this.perPeer.delete(this.perPeer.keys().next().value!);
    }
    this.perPeer.set(peer, l);
    return l;
  }

  private async serve(stream: Stream, peer: string): Promise<void> {
    let code: number = ResultCode.unknownError;
    let label = "unknownError";
    let n: bigint | undefined;
    try {
      const g = this.global.reserve();
      const p = this.limiterOf(peer).reserve();
      const wait = Math.max(g, p);
      if (wait > P2P_REQRESP_MAX_THROTTLE_MS) {
        this.global.cancel();
        label = "rateLimited";
        throw new Error(`rate limited (would wait ${wait} ms)`);
      }
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const req = await readAll(stream, 64, P2P_REQRESP_SERVER_TIMEOUT_MS, 8);
      n = decodePayloadRequest(req);
      if (n === undefined) {
        code = ResultCode.invalidRequest;
        throw new Error(`request of ${req.length} bytes, expected an 8-byte block number`);
      }
      await stream.closeRead().catch(() => undefined);
      const answer = await this.o.source(n);
      if ("result" in answer) {
        code = answer.result;
        throw new Error(`payload ${n} not served: ${resultName(answer.result)}`);
      }
      await writeAll(stream, encodeSuccessResponse(answer.version, answer.payloadBytes), P2P_REQRESP_SERVER_TIMEOUT_MS);
      code = ResultCode.success;
      label = "success";
      await stream.close().catch(() => undefined);
    } catch (e) {
      if (label !== "rateLimited") label = resultName(code);
      this.o.log.debug({ err: e, peer, number: n?.toString() }, "payload_by_number request not served");
      try {
        if (code !== ResultCode.success) await writeAll(stream, encodeErrorResponse(code), P2P_REQRESP_SERVER_TIMEOUT_MS);
        await stream.close();
      } catch {
        stream.abort(new Error("payload_by_number: response failed"));
      }
    }
    this.o.stats.inc("reqresp_requests", { side: "server", result: label });
  }

  /** Asks one peer for block `n`; throws what went wrong (and scores the peer). */
  async requestFrom(peer: string, n: bigint): Promise<FetchedPayload> {
    const id = peerIdFromString(peer);
    let stream: Stream;
    try {
      stream = await this.o.host.dialProtocol(id, this.protocol, { signal: AbortSignal.timeout(P2P_REQRESP_STREAM_TIMEOUT_MS) });
    } catch (e) {
      this.o.stats.inc("reqresp_requests", { side: "client", result: "noStream" });
      throw new P2PError({ code: P2PErrorCode.BAD_RESPONSE, reason: "noStream" }, `cannot open a payload_by_number stream to ${peer}: ${(e as Error).message}`);
    }
    let bytes: Uint8Array;
    try {
      await writeAll(stream, encodePayloadRequest(n), P2P_REQRESP_CLIENT_TIMEOUT_MS);
      bytes = await readAll(stream, GOSSIP_MAX_MESSAGE_BYTES, P2P_REQRESP_CLIENT_TIMEOUT_MS);
      await stream.close().catch(() => undefined);
    } catch (e) {
      stream.abort(e as Error);
      this.o.appScores.onResponseError(peer);
      this.o.stats.inc("reqresp_requests", { side: "client", result: "streamError" });
      throw new P2PError({ code: P2PErrorCode.BAD_RESPONSE, reason: "stream" }, `payload_by_number ${n} from ${peer}: ${(e as Error).message}`);
    }
    const reject = (reason: string, why: string): P2PError => {
      this.o.appScores.onRejectedPayload(peer);
      this.o.stats.inc("reqresp_requests", { side: "client", result: "rejected" });
      return new P2PError({ code: P2PErrorCode.BAD_RESPONSE, reason }, `payload_by_number ${n} from ${peer}: ${why}`);
    };
    let res;
    try {
      res = decodePayloadResponse(bytes);
    } catch (e) {
      throw reject("malformed", `malformed response (${(e as Error).message})`);
    }
    if (!("payloadBytes" in res)) {
      this.o.appScores.onResponseError(peer);
      this.o.stats.inc("reqresp_requests", { side: "client", result: resultName(res.result) });
      throw new P2PError({ code: P2PErrorCode.BAD_RESPONSE, reason: resultName(res.result) }, `payload_by_number ${n} from ${peer}: result ${res.result} (${resultName(res.result)})`);
    }
    const versions = blocksVersionsOf(res.responseVersion);
    if (versions.length === 0) throw reject("unknownVersion", `unknown response version ${res.responseVersion}`);
    let why = "";
    for (const v of versions) {
      const problem = this.o.check(v, res.payloadBytes, n);
      if (problem === undefined) {
        this.o.appScores.onValidResponse(peer);
        this.o.stats.inc("reqresp_requests", { side: "client", result: "success" });
        return { version: v, payloadBytes: res.payloadBytes, peer };
      }
      why = problem;
    }
    throw reject("invalidPayload", `invalid payload: ${why}`);
  }
}
