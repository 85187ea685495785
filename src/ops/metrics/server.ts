/**
 * The Prometheus endpoint (`--metrics`, `--metrics.addr`, `--metrics.port`): `GET /metrics` (and
 * HEAD) answers prom-client's default registry in the text exposition format; every other path
 * is a 404. A plain node:http server: one scrape every few seconds needs nothing faster.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "pino";
import { scrapeAllMetrics } from "../../util/workerMetrics.js";
import { TypedError } from "../../util/errors.js";
import { registerAllMetrics } from "./families.js";

/** Path of the scrape endpoint (Prometheus' default `metrics_path`). */
const METRICS_PATH = "/metrics";

/** Options of {@link startMetricsServer}. */
interface MetricsServerOptions {
  /** Address to bind, e.g. "127.0.0.1". */
  host: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Optional logger (listening line at info, scrape failures at warn). */
  logger?: Logger;
}

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** The port bound (the real one when 0 was asked). */
  readonly port: number;
  /** `http://host:port/metrics`. */
  readonly url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Stable code of {@link MetricsServerError}. */
const MetricsServerErrorCode = { LISTEN_FAILED: "METRICS_LISTEN_FAILED" } as const;
/** A {@link MetricsServerError}'s code with its metadata. */
type MetricsServerErrorType = { code: typeof MetricsServerErrorCode.LISTEN_FAILED; host: string; port: number };

/** The metrics endpoint could not be bound. */
export class MetricsServerError extends TypedError<MetricsServerErrorType> {
  constructor(message: string, host: string, port: number, cause?: unknown) {
    super({ code: MetricsServerErrorCode.LISTEN_FAILED, host, port }, message, { cause });
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, log: Logger | undefined): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(404, { "content-type": "text/plain" }).end(`not found: metrics are served at GET ${METRICS_PATH}\n`);
    return;
  }
  try {
    const { text, contentType } = await scrapeAllMetrics();
    res.writeHead(200, { "content-type": contentType });
    res.end(req.method === "HEAD" ? undefined : text);
  } catch (err) {
    log?.warn({ err }, "metrics scrape failed");
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("metrics collection failed\n");
  }
}

/**
 * Registers every metric family ({@link registerAllMetrics}) and serves them on `host:port`.
 * Rejects with {@link MetricsServerError} when the address is taken or invalid.
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  registerAllMetrics();
  const log = opts.logger?.child({ subsystem: "metrics" });
  const server: Server = createServer((req, res) => void handle(req, res, log));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => {
      reject(new MetricsServerError(`cannot listen on ${opts.host}:${opts.port} (metrics): ${err.message}`, opts.host, opts.port, err));
    });
    server.listen({ host: opts.host, port: opts.port, exclusive: true }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : opts.port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${port}${METRICS_PATH}`;
  log?.info({ url }, "metrics server listening");
  let closing: Promise<void> | undefined;
  return {
    port,
    url,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
