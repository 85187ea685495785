/**
 * The HTTP client of the load tool: JSON-RPC POSTs over a bounded pool of keep-alive sockets
 * (node:http / node:https), each with a whole-request timeout.
 *
 * Throughput of the generator itself, measured once against a node:http server in another
 * process answering a fixed 40-byte body (2 cores shared with other work, Node 20): the open loop
 * at 5,000 req/s sent and had answered every request (none dropped) using ~0.45 of a core, i.e.
 * ~11,000 req/s per core; a closed loop of 64 clients reached 4,800–7,200 req/s with the
 * generator at 0.6–0.9 core (the server, on the same cores, being the limit).
 */
import http from "node:http";
import https from "node:https";
import { LoadError } from "./errors.js";

/** Sockets per endpoint by default: enough for thousands of req/s at millisecond latencies, few enough not to exhaust the server's accept queue. */
export const DEFAULT_MAX_SOCKETS = 64;

/** The answer to one request: the HTTP status and body, or why there was none. */
export type HttpOutcome = { status: number; body: string; error?: undefined } | { error: string; status?: undefined; body?: undefined };

/** Longest error text kept as a failure kind (kinds are map keys; long messages would bloat reports). */
const MAX_ERROR_KIND_CHARS = 60;

/** The failure kind of a transport error: its lower-case code (`econnrefused`, `econnreset`…) or a clipped message. */
export function errorKind(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code.toLowerCase();
  const msg = e instanceof Error ? e.message : String(e);
  return msg.slice(0, MAX_ERROR_KIND_CHARS);
}

/** Options of {@link RpcHttpClient}. */
export interface RpcHttpClientOptions {
  /** keep-alive sockets at most (default {@link DEFAULT_MAX_SOCKETS}); requests beyond wait in the agent's queue */
  maxSockets?: number;
  /** whole-request timeout (queueing + connect + send + answer), ms */
  timeoutMs: number;
}

/**
 * POSTs JSON-RPC bodies to one URL over keep-alive sockets. Never rejects: transport errors and
 * timeouts come back as `{ error: kind }`. Call {@link close} when done (it destroys the sockets).
 */
export class RpcHttpClient {
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  private readonly base: http.RequestOptions;
  private readonly timeoutMs: number;

  constructor(url: string, opts: RpcHttpClientOptions) {
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
    const maxSockets = opts.maxSockets ?? DEFAULT_MAX_SOCKETS;
    const agentOpts: http.AgentOptions = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "fifo" };
    this.agent = secure ? new https.Agent(agentOpts) : new http.Agent(agentOpts);
    this.request = secure ? https.request : http.request;
    this.timeoutMs = opts.timeoutMs;
    const auth = u.username !== "" ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined;
    this.base = {
      agent: this.agent,
      protocol: u.protocol,
      hostname: u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname,
      port: u.port === "" ? undefined : Number(u.port),
      path: `${u.pathname}${u.search}`,
      method: "POST",
      auth,
    };
  }

  /** Sends one request body (a serialized JSON-RPC request or batch) and resolves with the outcome. */
  send(payload: Buffer): Promise<HttpOutcome> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (o: HttpOutcome): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(o);
      };
      const req = this.request(
        { ...this.base, headers: { "content-type": "application/json", "content-length": payload.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8");
            finish({ status: res.statusCode ?? 0, body });
          });
          res.on("error", (e) => finish({ error: errorKind(e) }));
          res.on("close", () => {
            if (!res.complete) finish({ error: "connection closed" });
          });
        },
      );
      const timer = setTimeout(() => {
        finish({ error: "timeout" });
        req.destroy();
      }, this.timeoutMs);
      req.on("error", (e) => finish({ error: errorKind(e) }));
      req.end(payload);
    });
  }

  /** Destroys every socket of the pool (in-flight requests fail). */
  close(): void {
    this.agent.destroy();
  }
}
