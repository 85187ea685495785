/**
 * `basalt doctor` check "ports": every port the node would listen on (HTTP JSON-RPC, Engine API,
 * and when enabled WebSocket, rollup, metrics and the devnet flashblocks stream) is free, or is
 * held by a basalt node that is already running (it answers `web3_clientVersion` with "basalt").
 */
import net from "node:net";
import { CLIENT_NAME } from "../../rpc/constants.js";
import { isDevnet, type BasaltOptions, type OptionName } from "../../config/options.js";
import { failureReason, jsonRpc, localUrl } from "./probe.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";

/** One listener the node would open. */
interface Listener {
  /** Short name used in ids and messages, e.g. `"http"`. */
  name: string;
  /** Human label. */
  title: string;
  /** The options naming its address and port. */
  addrOption: OptionName;
  portOption: OptionName;
  host: string;
  port: number;
}

/** The listeners `basalt node` opens with these options (mirrors src/cli/commands/node.ts). */
export function listenersOf(o: BasaltOptions): Listener[] {
  const at = (name: string, title: string, addrOption: OptionName, portOption: OptionName): Listener => ({
    name,
    title,
    addrOption,
    portOption,
    host: String(o[addrOption]),
    port: Number(o[portOption]),
  });
  const out: Listener[] = [at("http", "HTTP JSON-RPC", "http.addr", "http.port"), at("authrpc", "Engine API", "authrpc.addr", "authrpc.port")];
  if (o.ws) out.push(at("ws", "WebSocket JSON-RPC", "ws.addr", "ws.port"));
  if (o.rollup) out.push(at("rollup", "Rollup RPC", "rollup.addr", "rollup.port"));
  if (o.metrics) out.push(at("metrics", "Metrics", "metrics.addr", "metrics.port"));
  // The devnet publishes flashblocks only while it seals on a timer with a flashblock interval (as node.ts decides).
  if (isDevnet(o.network) && o["follow-rpc"] === undefined && o["dev.block-time"] > 0 && o["flashblocks.interval"] > 0) {
    out.push(at("flashblocks", "Devnet flashblocks stream", "flashblocks.addr", "flashblocks.port"));
  }
  return out;
}

/** Tries to listen on `host:port` exclusively; resolves undefined when it could, else the socket error code. */
export function tryListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** The `web3_clientVersion` of whatever answers JSON-RPC at `host:port`, or undefined when nothing does. */
export async function clientVersionAt(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  try {
    const a = await jsonRpc(localUrl(host, port), "web3_clientVersion", [], timeoutMs);
    return typeof a.result === "string" ? a.result : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a client version string is basalt's (`basalt/v0.1.0/linux-x64/node20...`). */
export function isBasalt(version: string | undefined): boolean {
  return version !== undefined && version.toLowerCase().startsWith(CLIENT_NAME);
}

/** Check "port.<name>" for every listener: free → OK, held by a running basalt → OK, held by anything else → FAIL. */
export async function checkPorts(ctx: DoctorContext): Promise<CheckResult[]> {
  const listeners = listenersOf(ctx.options);
  const httpListener = listeners[0] as Listener;
  // Asked once: whether a basalt node answers on the configured HTTP port (then it holds the other ports too).
  let runningBasalt: Promise<string | undefined> | undefined;
  const basaltOnHttp = (): Promise<string | undefined> => (runningBasalt ??= clientVersionAt(httpListener.host, httpListener.port, ctx.timeoutMs));
  const seen = new Map<number, Listener>();
  const out: CheckResult[] = [];
  for (const l of listeners) {
    const id = `port.${l.name}`;
    const title = `${l.title} port`;
    const where = `${l.host}:${l.port}`;
    const data = { host: l.host, port: l.port };
    if (l.port === 0) {
      out.push(result(id, title, "OK", `--${l.portOption} 0: any free port is taken at start`, undefined, data));
      continue;
    }
    const clash = seen.get(l.port);
    if (clash !== undefined) {
      const fix = `give --${l.portOption} and --${clash.portOption} different ports`;
      out.push(result(id, title, "FAIL", `${where} is also the ${clash.title} port (--${clash.portOption})`, fix, data));
      continue;
    }
    seen.set(l.port, l);
    const error = await tryListen(l.host, l.port);
    if (error === undefined) {
      out.push(result(id, title, "OK", `${where} is free`, undefined, data));
      continue;
    }
    if (error === "EADDRINUSE") {
      const own = await clientVersionAt(l.host, l.port, ctx.timeoutMs);
      if (isBasalt(own)) {
        out.push(result(id, title, "OK", `${where} in use by basalt (running): ${own}`, undefined, { ...data, inUseBy: own }));
        continue;
      }
      const node = await basaltOnHttp();
      if (isBasalt(node)) {
        const detail = `${where} in use by basalt (running; its HTTP port ${httpListener.port} answers ${node})`;
        out.push(result(id, title, "OK", detail, undefined, { ...data, inUseBy: node }));
        continue;
      }
      const fix = `stop the process holding port ${l.port} (ss -ltnp 'sport = :${l.port}') or choose another with --${l.portOption}`;
      out.push(result(id, title, "FAIL", `port ${l.port} (${where}) is in use by another program`, fix, data));
      continue;
    }
    const fixes: Record<string, string> = {
      EADDRNOTAVAIL: `${l.host} is not an address of this machine: set --${l.addrOption} to one of its addresses (or 0.0.0.0)`,
      EACCES: `ports below 1024 need privileges: choose a port above 1023 with --${l.portOption}`,
    };
    const fix = fixes[error] ?? `check --${l.addrOption} and --${l.portOption}`;
    out.push(result(id, title, "FAIL", `cannot listen on ${where}: ${failureReason({ code: error, message: error })}`, fix, data));
  }
  return out;
}
