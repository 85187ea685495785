/**
 * Public-endpoint mode (`--public`): what a node open to anyone serves, and how much of it.
 *
 * - Rate limit: a token bucket per client IP ({@link TokenBucketLimiter}); a request costs one
 *   token per JSON-RPC call (a batch of n costs n). HTTP answers 429 with a `Retry-After` header;
 *   WebSocket answers a -32005 message and closes (1008) a connection that keeps ignoring it.
 * - eth_getBlockReceipts: HTTP 403 for the whole request when any call of it names the method, as
 *   Base's public endpoints do (reference specification, "Errors": "eth_getBlockReceipts on public
 *   endpoints — HTTP 403 — the method is unavailable on public endpoints; a dedicated or
 *   third-party provider is required").
 * - Namespaces: debug_*, admin_*, engine_*, dev_*, evm_*, miner_*, personal_*, testing_* and the pool dumps
 *   (txpool_content, txpool_contentFrom, txpool_inspect) answer -32601 with geth's text; see
 *   {@link isServedOnPublicEndpoints}. The authenticated Engine port never gets a policy.
 * - Connection cap: in-flight HTTP requests plus open WebSockets (the uWebSockets.js build in use
 *   has no per-socket HTTP open/close events, so idle keep-alive sockets cannot be counted).
 *
 * The client is the socket's remote address: no `X-Forwarded-For` is trusted (no setting says
 * which proxy to trust), so behind a reverse proxy every client shares the proxy's bucket — the
 * proxy must rate limit itself or the limit must be raised for it.
 */
import { MethodNotFoundError, RpcCode, RpcError } from "./errors.js";
import { TokenBucketLimiter, type Clock } from "./rateLimit.js";
import type { MethodTable } from "./types.js";
import { rpcConnectionsRejectedTotal, rpcForbiddenTotal, rpcOpenConnections, rpcRateLimitedTotal } from "./publicMetrics.js";
import { WS_RATE_LIMIT_CLOSE_AFTER } from "./constants.js";

/** The method refused with HTTP 403 on public endpoints (reference specification, "Errors"). */
const PUBLIC_FORBIDDEN_METHOD = "eth_getBlockReceipts";
/** Message of the 403 body (and of the per-call error on WebSocket): the reference's reason, with its advice. */
const PUBLIC_FORBIDDEN_MESSAGE =
  `the method ${PUBLIC_FORBIDDEN_METHOD} is not available on public endpoints: use a dedicated node or a third-party provider`;
/**
 * Namespaces not served on public endpoints: node internals and tracing (debug, admin), the
 * consensus interface (engine, which has its own authenticated port), Parity-style tracing (trace:
 * each call replays blocks), and devnet/wallet controls
 * that change the chain or hold keys (dev, evm, miner, personal), and block building for tests
 * (testing: each call executes a whole block). geth's public-facing defaults
 * serve none of them either (`--http.api` defaults to eth, net, web3).
 */
const PUBLIC_DISABLED_PREFIXES = ["debug_", "admin_", "engine_", "dev_", "evm_", "miner_", "personal_", "testing_", "trace_"] as const;
/**
 * txpool methods not served on public endpoints. Their answers grow with the pool (a one-token
 * request buying a many-megabyte answer, which a per-request limit cannot bound) and list other
 * users' transactions before inclusion. txpool_status (two counters) stays served: it is
 * constant-size and tells wallets whether the node is backed up.
 */
const PUBLIC_DISABLED_METHODS: ReadonlySet<string> = new Set([
  "txpool_content",
  "txpool_contentFrom",
  "txpool_inspect",
  // Base v0.5.1's pool administration (admin_* under their later names is off with its namespace).
  "txpool_removeAll",
  "txpool_removeSender",
  "txpool_removeTransaction",
]);

/** HTTP status lines of the public-mode refusals. */
export const STATUS_TOO_MANY_REQUESTS = "429 Too Many Requests";
/** 403: the request names a method that public endpoints refuse. */
export const STATUS_FORBIDDEN = "403 Forbidden";
/** 503: the connection cap is reached. */
export const STATUS_UNAVAILABLE = "503 Service Unavailable";

/** Options of a {@link PublicPolicy} (`--public.rate`, `--public.burst`, `--public.max-connections`). */
interface PublicPolicyOptions {
  /** Sustained requests per second per client IP. */
  rate: number;
  /** Requests a client IP may send at once. */
  burst: number;
  /** Most connections: in-flight HTTP requests plus open WebSockets. */
  maxConnections: number;
  /** Limiter clock in milliseconds (tests inject one). */
  now?: Clock;
  /** Most client buckets held (default: the limiter's). */
  maxClients?: number;
}

/** Verdict of {@link PublicPolicy.admit} on one HTTP body or WebSocket message. */
export type Admission =
  | { kind: "ok" }
  | { kind: "limited"; retryAfterS: number; body: string }
  | { kind: "forbidden"; method: string; body: string };

/** True when `method` is served on public endpoints (see the module comment for the list and reasons). */
function isServedOnPublicEndpoints(method: string): boolean {
  if (PUBLIC_DISABLED_METHODS.has(method)) return false;
  return !PUBLIC_DISABLED_PREFIXES.some((p) => method.startsWith(p));
}

/** What a body holds, as far as the policy cares: the number of calls and whether one names the forbidden method. */
interface BodySummary {
  cost: number;
  forbidden: boolean;
}

/**
 * Counts the calls of a body (a batch of n costs n; anything that is not a batch costs 1) and
 * finds {@link PUBLIC_FORBIDDEN_METHOD} in any of them. Only batches and bodies that contain the
 * method's name are parsed; malformed JSON costs 1 (the envelope answers its parse error).
 */
export function summarizeBody(text: string, checkForbidden: boolean): BodySummary {
  let i = 0;
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  const batch = text[i] === "[";
  const mayForbid = checkForbidden && text.includes(PUBLIC_FORBIDDEN_METHOD);
  if (!batch && !mayForbid) return { cost: 1, forbidden: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { cost: 1, forbidden: false };
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed];
  const forbidden =
    checkForbidden &&
    entries.some((e) => typeof e === "object" && e !== null && (e as { method?: unknown }).method === PUBLIC_FORBIDDEN_METHOD);
  return { cost: Math.max(1, entries.length), forbidden };
}

/**
 * Leading 16-bit groups of an IPv6 address that name one client: a /64 is the smallest block an
 * ISP assigns to one subscriber (RFC 6177), who can use any of its 2^64 addresses — keying by the
 * full address would hand each of them a fresh bucket.
 */
const IPV6_CLIENT_GROUPS = 4;
/** uWebSockets.js writes IPv4 peers of a dual-stack listener in this IPv4-mapped form. */
const IPV4_MAPPED_PREFIX = "0000:0000:0000:0000:0000:ffff:";

/**
 * The rate-limit key of a remote address (uWebSockets.js's text form): an IPv4 address (plain or
 * IPv4-mapped) as is, an IPv6 address by its /64 prefix.
 */
export function clientKey(remote: string): string {
  if (!remote.includes(":") || remote.toLowerCase().startsWith(IPV4_MAPPED_PREFIX)) return remote;
  return `${remote.split(":").slice(0, IPV6_CLIENT_GROUPS).join(":")}::/64`;
}

function errorBody(code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":null,"error":{"code":${code},"message":${JSON.stringify(message)}}}`;
}

/** The public-endpoint policy shared by the public HTTP and WebSocket servers of one node. */
export class PublicPolicy {
  readonly limiter: TokenBucketLimiter;
  readonly maxConnections: number;
  private open = 0;

  /** Throws RateLimitConfigError for a rate ≤ 0 or a burst < 1. */
  constructor(opts: PublicPolicyOptions) {
    this.limiter = new TokenBucketLimiter({ rate: opts.rate, burst: opts.burst, now: opts.now, maxClients: opts.maxClients });
    this.maxConnections = opts.maxConnections;
  }

  /**
   * The method table served publicly: methods of refused namespaces answer -32601 ("the method X
   * does not exist/is not available", geth's text) and eth_getBlockReceipts answers -32601 with
   * {@link PUBLIC_FORBIDDEN_MESSAGE} (reached over WebSocket, where there is no HTTP status).
   */
  filterMethods(methods: MethodTable): MethodTable {
    const out: MethodTable = {};
    for (const [name, handler] of Object.entries(methods)) {
      if (name === PUBLIC_FORBIDDEN_METHOD) {
        out[name] = () => {
          rpcForbiddenTotal.inc({ method: name });
          throw new RpcError(RpcCode.MethodNotFound, PUBLIC_FORBIDDEN_MESSAGE, undefined, "RPC_PUBLIC_FORBIDDEN");
        };
      } else if (!isServedOnPublicEndpoints(name)) {
        out[name] = () => {
          rpcForbiddenTotal.inc({ method: name });
          throw new MethodNotFoundError(name);
        };
      } else {
        out[name] = handler;
      }
    }
    return out;
  }

  /**
   * Admits one HTTP body or WebSocket message from `remote`: spends one token per call, then (HTTP
   * only) refuses a body naming eth_getBlockReceipts. The refusal bodies are complete JSON-RPC
   * error responses (id null): -32005 "rate limit exceeded: …" or -32601 {@link PUBLIC_FORBIDDEN_MESSAGE}.
   */
  admit(remote: string, text: string, transport: "http" | "ws"): Admission {
    const summary = summarizeBody(text, transport === "http");
    const taken = this.limiter.take(clientKey(remote), summary.cost);
    if (!taken.allowed) {
      rpcRateLimitedTotal.inc({ transport });
      const message = `rate limit exceeded: ${this.limiter.rate} requests/s per client; retry after ${taken.retryAfterS} s`;
      return { kind: "limited", retryAfterS: taken.retryAfterS, body: errorBody(RpcCode.LimitExceeded, message) };
    }
    if (summary.forbidden) {
      rpcForbiddenTotal.inc({ method: PUBLIC_FORBIDDEN_METHOD });
      return { kind: "forbidden", method: PUBLIC_FORBIDDEN_METHOD, body: errorBody(RpcCode.MethodNotFound, PUBLIC_FORBIDDEN_MESSAGE) };
    }
    return { kind: "ok" };
  }

  /** An HTTP request starts: counts it, or refuses it (false) at the connection cap. Pair a true with {@link release}. */
  tryAcquire(): boolean {
    if (!this.hasCapacity()) return false;
    this.opened();
    return true;
  }

  /** A WebSocket upgrade is asked for: false (counted as a rejection) at the connection cap. */
  hasCapacity(): boolean {
    if (this.open < this.maxConnections) return true;
    rpcConnectionsRejectedTotal.inc();
    return false;
  }

  /** A WebSocket opened (after {@link hasCapacity} allowed its upgrade). Pair with {@link release}. */
  opened(): void {
    this.open++;
    rpcOpenConnections.inc();
  }

  /** An HTTP request ended or a WebSocket closed. */
  release(): void {
    if (this.open === 0) return;
    this.open--;
    rpcOpenConnections.dec();
  }

  /** Connections counted now. */
  get openConnections(): number {
    return this.open;
  }

  /** True once a WebSocket has had `consecutiveLimited` messages refused in a row: close it (1008). */
  shouldCloseWs(consecutiveLimited: number): boolean {
    return consecutiveLimited >= WS_RATE_LIMIT_CLOSE_AFTER;
  }
}
