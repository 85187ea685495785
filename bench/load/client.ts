/**
 * The HTTP client of the load generator: a minimal HTTP/1.1 client over `net.Socket` (or
 * `tls.TLSSocket` for https) that writes pre-encoded request bytes and parses only what a
 * benchmark needs — the status, the framing (content-length, chunked, or until close) and, when
 * asked, the body — with several requests in flight per connection (pipelining) where the
 * server allows it. Plain sockets read into one reused 256 KiB buffer per thread (`onread`), so
 * answers that are not parsed cost no allocation: only the bytes the check needs are copied.
 *
 * Throughput of the generator itself (2 worker threads, 32 connections), measured by the run's
 * own calibration against a bare uWebSockets.js handler answering basalt's bytes on the 2-core
 * development machine (Node 20), next to wrk in the same runs; the machine was shared (load
 * average 13–15), so absolute figures varied several-fold between runs:
 * - a 110,725-byte full block: 6,716–11,947 req/s at 0.44–0.55 cores, 1.06–2.01× wrk's figure
 *   (~40 µs of CPU per answer against wrk's ~83: bigger reads, 1 in ~55 answers parsed);
 * - a 39-byte `eth_blockNumber` answer: 9,915–15,303 req/s at 0.41–0.53 cores, about 0.7× wrk
 *   (back-to-back pairs; 0.23–0.54 in single runs) — Node's cost per socket read and write,
 *   1.5–3× wrk's CPU per answer, comes out of the server's share of the two cores; pipelined 4
 *   deep, 68,430–73,084 req/s, 0.65–0.85× wrk.
 * The node:http client this replaced saturated near 1,100 req/s on full blocks (one thread,
 * every ~120 KB answer parsed, ~0.5 ms each), which the scenario reported as the servers' limit.
 */
import net from "node:net";
import tls from "node:tls";
import { LoadError } from "./errors.js";

/** The answer to one request: the HTTP status and (when captured) the body, or why there was none. */
export type HttpOutcome =
  | { status: number; body?: Buffer; bytes: number; error?: undefined }
  | { error: string; status?: undefined; body?: undefined; bytes?: undefined };

/** Longest error text kept as a failure kind (kinds are map keys; long messages would bloat reports). */
const MAX_ERROR_KIND_CHARS = 60;
/** The failure kind of a request lost because the server closed its connection. */
export const CONNECTION_CLOSED = "connection closed";
/** Largest response head accepted (status line + headers): far above any JSON-RPC server's, small enough to bound memory. */
const MAX_HEAD_BYTES = 64 * 1024;
/** Longest chunk-size or trailer line accepted in a chunked body. */
const MAX_LINE_BYTES = 4096;
/** Bytes read per socket read into the thread's shared buffer: several ~100 KB answers per read, few syscalls. */
const READ_BUFFER_BYTES = 256 * 1024;
/** The end of a response head. */
const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
/** The end of a header line. */
const CRLF = Buffer.from("\r\n", "latin1");
/** The start of a status line, minor version aside. */
const STATUS_PREFIX = Buffer.from("HTTP/1.", "latin1");
const SPACE = 0x20;
const COLON = 0x3a;
const ZERO = 0x30;
/** Header names the parser reads (lower case); the others are skipped unread. */
const CONTENT_LENGTH = Buffer.from("content-length", "latin1");
const TRANSFER_ENCODING = Buffer.from("transfer-encoding", "latin1");
const CONNECTION = Buffer.from("connection", "latin1");
/** ASCII letters to lower case: OR 0x20 (harmless on '-'). */
const LOWER = 0x20;

const enum Header {
  Other,
  ContentLength,
  TransferEncoding,
  Connection,
}

/** Whether `b[at…]` starts with `prefix`. */
function startsWith(b: Buffer, at: number, prefix: Buffer): boolean {
  for (let i = 0; i < prefix.length; i++) if (b[at + i] !== prefix[i]) return false;
  return true;
}

/** The value of an ASCII digit byte, NaN for any other. */
function digit(byte: number | undefined): number {
  return byte !== undefined && byte >= ZERO && byte <= ZERO + 9 ? byte - ZERO : NaN;
}

/** Which framing header `b[from, to)` names (case-insensitive, surrounding spaces not allowed, as in RFC 9112). */
function headerName(b: Buffer, from: number, to: number): Header {
  const n = to - from;
  const want = n === CONTENT_LENGTH.length ? CONTENT_LENGTH : n === TRANSFER_ENCODING.length ? TRANSFER_ENCODING : n === CONNECTION.length ? CONNECTION : undefined;
  if (want === undefined) return Header.Other;
  for (let i = 0; i < n; i++) if ((b[from + i]! | LOWER) !== want[i]) return Header.Other;
  return want === CONTENT_LENGTH ? Header.ContentLength : want === TRANSFER_ENCODING ? Header.TransferEncoding : Header.Connection;
}

/** The failure kind of a transport error: its lower-case code (`econnrefused`, `econnreset`…) or a clipped message. */
export function errorKind(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code.toLowerCase();
  const msg = e instanceof Error ? e.message : String(e);
  return msg.slice(0, MAX_ERROR_KIND_CHARS);
}

/** Where requests go: parsed once from the endpoint URL. */
export interface HttpTarget {
  host: string;
  port: number;
  secure: boolean;
  /** path and query of the URL, e.g. "/" or "/rpc?key=v" */
  path: string;
  /** the Host header value */
  hostHeader: string;
  /** `Basic …` from user:password in the URL, if any */
  authorization?: string;
}

/** Parses an endpoint URL; throws `BENCH_LOAD_PLAN` for one that is not http(s). */
export function parseTarget(url: string): HttpTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch (e) {
    const message = `invalid endpoint URL ${JSON.stringify(url)}: expected http://host:port/path or https://…`;
    throw new LoadError("BENCH_LOAD_PLAN", message, { url }, { cause: e });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new LoadError("BENCH_LOAD_PLAN", `unsupported protocol ${u.protocol} in ${JSON.stringify(url)}: expected http: or https:`, { url });
  }
  const secure = u.protocol === "https:";
  const target: HttpTarget = {
    host: u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname,
    port: u.port === "" ? (secure ? 443 : 80) : Number(u.port),
    secure,
    path: `${u.pathname === "" ? "/" : u.pathname}${u.search}`,
    hostHeader: u.host,
  };
  if (u.username !== "") {
    const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    target.authorization = `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
  }
  return target;
}

/** The complete bytes of a keep-alive JSON-RPC POST of `body` to `target` (head and body in one buffer, written with one call). */
export function encodeRequest(target: HttpTarget, body: string | Buffer): Buffer {
  const payload = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const auth = target.authorization === undefined ? "" : `Authorization: ${target.authorization}\r\n`;
  const head =
    `POST ${target.path} HTTP/1.1\r\nHost: ${target.hostHeader}\r\n${auth}` +
    `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), payload]);
}

/** One response as the parser delivers it. */
export interface ParsedResponse {
  status: number;
  /** the body, when {@link ResponseParserHooks.wantBody} asked for it */
  body?: Buffer;
  /** body bytes received */
  bytes: number;
  /** false when the server will close the connection after this response */
  keepAlive: boolean;
  /** true when the body was framed by content-length (its size known before it arrived) */
  sized: boolean;
}

/** What the parser asks and tells its owner. */
export interface ResponseParserHooks {
  /** whether to keep the body of a response with this status and content length (-1: not known in advance) */
  wantBody(status: number, contentLength: number): boolean;
  /** a response is complete */
  onResponse(response: ParsedResponse): void;
}

const enum State {
  Head,
  Body,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailer,
  UntilClose,
}

/**
 * An incremental HTTP/1.1 response parser: feed it bytes as they arrive (any split, several
 * pipelined responses in one read); it calls {@link ResponseParserHooks.onResponse} for each
 * complete response in order. Throws a {@link ProtocolError} for bytes that are not HTTP/1.x.
 */
export class ResponseParser {
  private state = State.Head;
  /** bytes of an incomplete head or chunk line carried over from the previous read */
  private carry: Buffer | undefined;
  private status = 0;
  private keepAlive = true;
  private remaining = 0;
  private bytes = 0;
  /** the body being captured (content-length) */
  private body: Buffer | undefined;
  /** the body being captured (chunked / until close) */
  private parts: Buffer[] | undefined;
  private capture = false;
  private sized = false;

  constructor(private readonly hooks: ResponseParserHooks) {}

  /** True between responses (nothing partial buffered). */
  get idle(): boolean {
    return this.state === State.Head && this.carry === undefined;
  }

  /** Parses `buf[start, end)`. Data beyond `end` is never read (the buffer may be reused). */
  feed(buf: Buffer, start: number, end: number): void {
    let at = start;
    while (at < end) {
      switch (this.state) {
        case State.Head:
          at = this.head(buf, at, end);
          break;
        case State.Body: {
          const take = Math.min(this.remaining, end - at);
          if (this.body !== undefined) buf.copy(this.body, this.bytes, at, at + take);
          this.bytes += take;
          this.remaining -= take;
          at += take;
          if (this.remaining === 0) this.complete();
          break;
        }
        case State.ChunkSize:
        case State.Trailer:
        case State.ChunkDataEnd:
          at = this.line(buf, at, end);
          break;
        case State.ChunkData: {
          const take = Math.min(this.remaining, end - at);
          this.keep(buf, at, at + take);
          this.remaining -= take;
          at += take;
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        }
        case State.UntilClose:
          this.keep(buf, at, end);
          at = end;
          break;
      }
    }
  }

  /** The connection ended: completes a response framed by the close; false if one was cut short. */
  end(): boolean {
    if (this.state === State.UntilClose) {
      this.complete();
      return true;
    }
    return this.idle;
  }

  private keep(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.bytes += to - from;
    if (this.parts !== undefined) this.parts.push(Buffer.from(buf.subarray(from, to)));
  }

  /** Consumes head bytes from `at`; returns where parsing continues. */
  private head(buf: Buffer, at: number, end: number): number {
    if (this.carry === undefined) {
      // The first match at or after `at`; one at or past `end` is stale bytes of the reused buffer.
      const i = buf.indexOf(HEAD_END, at);
      if (i >= 0 && i + HEAD_END.length <= end) {
        this.startResponse(buf, at, i);
        return i + HEAD_END.length;
      }
      this.carry = Buffer.from(buf.subarray(at, end));
      this.checkHeadSize(this.carry.length);
      return end;
    }
    const carried = this.carry.length;
    const joined = Buffer.concat([this.carry, buf.subarray(at, end)]);
    const i = joined.indexOf(HEAD_END, Math.max(0, carried - HEAD_END.length + 1));
    if (i < 0) {
      this.carry = joined;
      this.checkHeadSize(joined.length);
      return end;
    }
    this.carry = undefined;
    this.startResponse(joined, 0, i);
    return at + i + HEAD_END.length - carried;
  }

  private checkHeadSize(n: number): void {
    if (n > MAX_HEAD_BYTES) throw new ProtocolError(`response head over ${MAX_HEAD_BYTES} bytes`);
  }

  /** Reads the status line and the framing headers of the head `b[from, to)` (bytes, no strings on the common path), and picks the body state. */
  private startResponse(b: Buffer, from: number, to: number): void {
    if (to - from < 12 || !startsWith(b, from, STATUS_PREFIX) || b[from + 8] !== SPACE) {
      throw new ProtocolError(`not an HTTP/1.x status line: ${JSON.stringify(b.toString("latin1", from, Math.min(to, from + 40)))}`);
    }
    const status = digit(b[from + 9]) * 100 + digit(b[from + 10]) * 10 + digit(b[from + 11]);
    if (!(status >= 100)) throw new ProtocolError(`bad status in ${JSON.stringify(b.toString("latin1", from, Math.min(to, from + 40)))}`);
    let contentLength = -1;
    let chunked = false;
    let keepAlive = b[from + 7] !== ZERO; // HTTP/1.1 keeps the connection by default, 1.0 closes it
    let line = b.indexOf(CRLF, from);
    while (line >= 0 && line < to) {
      const ls = line + 2;
      let le = b.indexOf(CRLF, ls);
      if (le < 0 || le > to) le = to;
      const colon = b.indexOf(COLON, ls);
      if (colon > ls && colon < le) {
        const name = headerName(b, ls, colon);
        if (name !== Header.Other) {
          const value = b.toString("latin1", colon + 1, le).trim().toLowerCase();
          if (name === Header.ContentLength) {
            contentLength = /^\d+$/.test(value) ? Number(value) : NaN;
            if (!Number.isSafeInteger(contentLength)) throw new ProtocolError(`bad content-length ${JSON.stringify(value)}`);
          } else if (name === Header.TransferEncoding) chunked = value.split(",").some((v) => v.trim() === "chunked");
          else if (value.includes("close")) keepAlive = false;
          else if (value.includes("keep-alive")) keepAlive = true;
        }
      }
      line = le === to ? -1 : le;
    }
    if (status < 200 && status !== 101) return; // an interim answer (100 Continue): the real one follows
    this.status = status;
    this.keepAlive = keepAlive;
    this.bytes = 0;
    this.body = undefined;
    this.parts = undefined;
    this.sized = !chunked && contentLength >= 0;
    const noBody = status === 204 || status === 304 || (!chunked && contentLength === 0);
    // An empty body is still asked about: a kept empty 200 answer then fails as "invalid json".
    this.capture = this.hooks.wantBody(status, noBody ? 0 : chunked ? -1 : contentLength);
    if (noBody) return this.complete();
    if (chunked) {
      if (this.capture) this.parts = [];
      this.state = State.ChunkSize;
    } else if (contentLength > 0) {
      if (this.capture) this.body = Buffer.allocUnsafe(contentLength);
      this.remaining = contentLength;
      this.state = State.Body;
    } else {
      if (this.capture) this.parts = [];
      this.keepAlive = false;
      this.state = State.UntilClose;
    }
  }

  /** Consumes a CRLF-terminated line of the chunked framing (size, end of data, trailer). */
  private line(buf: Buffer, at: number, end: number): number {
    const view = buf.subarray(at, end);
    const nl = view.indexOf(10); // "\n"
    const part = view.subarray(0, nl < 0 ? view.length : nl + 1);
    const text = (this.carry === undefined ? part : Buffer.concat([this.carry, part])).toString("latin1");
    if (nl < 0) {
      if (text.length > MAX_LINE_BYTES) throw new ProtocolError(`chunked line over ${MAX_LINE_BYTES} bytes`);
      this.carry = Buffer.from(text, "latin1");
      return end;
    }
    this.carry = undefined;
    const content = text.endsWith("\r\n") ? text.slice(0, -2) : text.slice(0, -1);
    if (this.state === State.ChunkDataEnd) {
      if (content !== "") throw new ProtocolError("chunk data longer than its size");
      this.state = State.ChunkSize;
    } else if (this.state === State.Trailer) {
      if (content === "") this.complete();
    } else {
      const size = parseInt(content.split(";")[0]!.trim(), 16);
      if (!Number.isSafeInteger(size) || size < 0) throw new ProtocolError(`bad chunk size ${JSON.stringify(content.slice(0, 20))}`);
      if (size === 0) this.state = State.Trailer;
      else {
        this.remaining = size;
        this.state = State.ChunkData;
      }
    }
    return at + nl + 1;
  }

  private complete(): void {
    let body = this.body;
    if (this.parts !== undefined) body = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    const response: ParsedResponse = { status: this.status, bytes: this.bytes, keepAlive: this.keepAlive, sized: this.sized };
    if (this.capture && body !== undefined) response.body = body;
    else if (this.capture && this.bytes === 0) response.body = Buffer.alloc(0);
    this.state = State.Head;
    this.body = undefined;
    this.parts = undefined;
    this.capture = false;
    this.hooks.onResponse(response);
  }
}

/** Bytes that are not a valid HTTP/1.x response: the connection cannot be used further. */
export class ProtocolError extends Error {}

/** A request written on a connection and not answered yet. */
export interface Pending {
  bodyIndex: number;
  /** when latency is counted from (scheduled time in open loop, send time in closed loop), ms (performance.now) */
  origin: number;
  /** when the request times out, ms (performance.now) */
  deadline: number;
}

/** What a connection tells its owner. */
export interface ConnectionHooks {
  wantBody(status: number, contentLength: number): boolean;
  /** the answer to `pending` (the oldest request in flight) */
  onAnswer(conn: Connection, pending: Pending, response: ParsedResponse): void;
  /** the connection is gone; `lost` are the requests it had in flight, failed with `kind` */
  onClosed(conn: Connection, lost: Pending[], kind: string): void;
}

/** The thread's shared read buffer (one per thread: a read's bytes are parsed before the next read). */
let sharedReadBuffer: Buffer | undefined;

/**
 * One keep-alive connection: requests written in order, answers matched to them in order (HTTP/1.1
 * pipelining). Never throws to its owner: every end (error, close by the server, protocol error,
 * {@link destroy}) fails the requests in flight through {@link ConnectionHooks.onClosed}, once.
 */
export class Connection {
  /** requests in flight, oldest first */
  readonly inFlight: Pending[] = [];
  private readonly socket: net.Socket;
  private readonly parser: ResponseParser;
  private closed = false;
  /** the server announced it will close after the current answer: no more requests on this connection */
  private draining = false;
  /** writes made while a read is being parsed, flushed together after it */
  private batch: Buffer[] | undefined;

  constructor(
    target: HttpTarget,
    private readonly hooks: ConnectionHooks,
  ) {
    this.parser = new ResponseParser({
      wantBody: (status, length) => hooks.wantBody(status, length),
      onResponse: (r) => this.answer(r),
    });
    if (target.secure) {
      this.socket = tls.connect({ host: target.host, port: target.port, servername: net.isIP(target.host) === 0 ? target.host : undefined });
      this.socket.on("data", (chunk: Buffer) => this.read(chunk, chunk.length));
    } else {
      sharedReadBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES);
      this.socket = net.connect({
        host: target.host,
        port: target.port,
        onread: {
          buffer: sharedReadBuffer,
          callback: (n: number, buf: Uint8Array) => {
            this.read(buf as Buffer, n);
            return true; // keep reading
          },
        },
      });
    }
    this.socket.setNoDelay(true);
    this.socket.on("error", (e) => this.close(errorKind(e)));
    this.socket.on("end", () => {
      // A body framed by the close is complete now; anything else still in flight is lost.
      if (!this.closed) this.parseEnd();
      this.close(CONNECTION_CLOSED);
    });
    this.socket.on("close", () => this.close(CONNECTION_CLOSED));
  }

  /** True while requests may be written. */
  get usable(): boolean {
    return !this.closed && !this.draining;
  }

  /** Writes `bytes` (one or more complete requests) for `pending` (one entry per request, in order). */
  send(bytes: Buffer, pending: Pending | Pending[]): void {
    if (Array.isArray(pending)) this.inFlight.push(...pending);
    else this.inFlight.push(pending);
    if (this.batch !== undefined) this.batch.push(bytes);
    else this.socket.write(bytes);
  }

  /** Ends the connection now; requests in flight fail with `kind`. */
  destroy(kind: string): void {
    this.close(kind);
  }

  private read(buf: Buffer, n: number): void {
    if (this.closed) return;
    this.batch = [];
    try {
      this.parser.feed(buf, 0, n);
    } catch (e) {
      this.batch = undefined;
      this.close(e instanceof ProtocolError ? "bad response" : errorKind(e));
      return;
    }
    const writes = this.batch;
    this.batch = undefined;
    if (this.closed || writes.length === 0) return;
    this.socket.write(writes.length === 1 ? writes[0]! : Buffer.concat(writes));
  }

  private parseEnd(): void {
    try {
      this.parser.end();
    } catch (e) {
      this.close(e instanceof ProtocolError ? "bad response" : errorKind(e));
    }
  }

  private answer(r: ParsedResponse): void {
    if (this.closed) return;
    const pending = this.inFlight.shift();
    if (pending === undefined) throw new ProtocolError("an answer to no request");
    if (!r.keepAlive) this.draining = true;
    this.hooks.onAnswer(this, pending, r);
    if (this.draining && this.inFlight.length === 0) this.close(CONNECTION_CLOSED);
  }

  private close(kind: string): void {
    if (this.closed) return;
    this.closed = true;
    this.batch = undefined;
    this.socket.destroy();
    const lost = this.inFlight.splice(0);
    this.hooks.onClosed(this, lost, kind);
  }
}
