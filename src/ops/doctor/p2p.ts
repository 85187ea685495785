/**
 * `basalt doctor` check "p2p": the peer-to-peer ports of both layers.
 *
 * - Consensus layer (op-node's flags): libp2p on TCP `--p2p.listen.tcp` (9222) and discv5 on UDP
 *   `--p2p.listen.udp` (0 = the TCP port), bound to `--p2p.listen.ip`; off with `--p2p.disable`
 *   (discv5 alone with `--p2p.no-discovery`).
 * - Execution layer (reth's flags): RLPx on TCP `--port` (30303) at `--addr`; discovery at
 *   `--discovery.addr`: on OP chains (Base networks, the devnet, `--rollup.config`) discv5 under
 *   Base's protocol id `basev0` on UDP `--discovery.v5.port` (9200), plus discovery v4 on UDP
 *   `--discovery.port` (30303) with `--rollup.discovery.v4`; on plain Ethereum chains discovery v4
 *   only. Off with `--p2p.el.disable` (discovery alone with `--disable-discovery`).
 *
 * With no basalt node running (nothing answers `web3_clientVersion` as basalt on the HTTP port)
 * each port must be free to bind. With a node running, each must be reachable from the node's own
 * machine: a TCP connection to libp2p and RLPx, a discv5 PING→PONG to the record of `opp2p_self`
 * (rollup RPC), a `basev0` discv5 PING→PONG to the record (`enr`) of `admin_nodeInfo` and a discv4
 * PING→PONG to its enode (HTTP RPC). On Base mainnet and Sepolia an advertised address that is
 * loopback or private is a WARN: peers cannot dial back.
 *
 * The options are read by name: on a build whose option table lacks a layer's options, that
 * layer's check is SKIP "P2P options not available".
 */
import { DEFAULT_P2P_EL_DISCV5_PORT } from "../../config/constants.js";
import { OPTIONS, isBaseNetwork, isDevnet, type BasaltOptions } from "../../config/options.js";
import { BASE_PROTOCOL_ID } from "../../p2p/el/discv5Packet.js";
import { listenersOf, tryListen, clientVersionAt, isBasalt } from "./ports.js";
import { failureReason, jsonRpc, localUrl, loopbackFor, ms } from "./probe.js";
import {
  discv4Ping,
  discv5Ping,
  enrEndpoint,
  ipScope,
  parseEnode,
  parseSelfPeerInfo,
  tcpConnect,
  tcpPortOf,
  tryBindUdp,
  type Enode,
  type SelfPeerInfo,
} from "./p2pProbe.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";

/** The two P2P layers. */
type P2PLayer = "cl" | "el";

/** One socket a layer opens. */
interface P2PEndpoint {
  layer: P2PLayer;
  /** Protocol name used in ids and messages: `libp2p`, `discv5` (consensus), `rlpx`, `discv4`, `basev0` (execution discv5). */
  name: "libp2p" | "discv5" | "rlpx" | "discv4" | "basev0";
  transport: "tcp" | "udp";
  /** Human label, e.g. `"libp2p (consensus gossip)"`. */
  title: string;
  host: string;
  /** 0 = any free port, chosen at start. */
  port: number;
  /** The options setting the address and the port. */
  addrOption: string;
  portOption: string;
}

/** What the options say about one layer. */
interface P2PLayerSettings {
  layer: P2PLayer;
  /** The flag that turned the layer off, when it is off. */
  disabledBy?: string;
  endpoints: P2PEndpoint[];
  /** The address peers are told to dial, when the options fix it. */
  advertiseIp?: string;
  /** The option that sets it (`p2p.advertise.ip`, `nat`), for fixes. */
  advertiseOption: string;
}

/** Whether this build's option table declares `name` (the default of the `isDeclared` seams below). */
export function declared(name: string): boolean {
  return Object.hasOwn(OPTIONS, name);
}

/** The value of option `name` when it has type `kind`, else undefined (absent from the table, unset, or of another type). */
function read<K extends "string" | "number" | "boolean">(o: BasaltOptions, name: string, kind: K): (K extends "string" ? string : K extends "number" ? number : boolean) | undefined {
  const v = (o as unknown as Record<string, unknown>)[name];
  return typeof v === kind ? (v as K extends "string" ? string : K extends "number" ? number : boolean) : undefined;
}

/** Options the consensus layer's check cannot do without. */
const CL_REQUIRED = ["p2p.disable", "p2p.listen.ip", "p2p.listen.tcp", "p2p.listen.udp"] as const;
/** Options the execution layer's check cannot do without. */
const EL_REQUIRED = ["port", "addr", "discovery.port", "discovery.addr"] as const;

/** The consensus layer's sockets from the options; undefined when the option table has no `--p2p.*` options. */
export function clSettings(o: BasaltOptions, isDeclared: (name: string) => boolean = declared): P2PLayerSettings | undefined {
  if (!CL_REQUIRED.every((n) => isDeclared(n))) return undefined;
  const s: P2PLayerSettings = { layer: "cl", endpoints: [], advertiseOption: "p2p.advertise.ip" };
  const advertise = read(o, "p2p.advertise.ip", "string");
  if (advertise !== undefined && advertise !== "") s.advertiseIp = advertise;
  if (read(o, "p2p.disable", "boolean") === true) {
    s.disabledBy = "--p2p.disable";
    return s;
  }
  const host = read(o, "p2p.listen.ip", "string") ?? "0.0.0.0";
  const tcp = read(o, "p2p.listen.tcp", "number") ?? 0;
  // op-node: "UDP port to bind Discv5 to. Same as TCP port if left 0."
  const udp = read(o, "p2p.listen.udp", "number") || tcp;
  s.endpoints.push({ layer: "cl", name: "libp2p", transport: "tcp", title: "libp2p (consensus gossip)", host, port: tcp, addrOption: "p2p.listen.ip", portOption: "p2p.listen.tcp" });
  if (read(o, "p2p.no-discovery", "boolean") !== true) {
    s.endpoints.push({ layer: "cl", name: "discv5", transport: "udp", title: "discv5 (consensus discovery)", host, port: udp, addrOption: "p2p.listen.ip", portOption: "p2p.listen.udp" });
  }
  return s;
}

/** The execution layer's sockets from the options; undefined when the option table has no devp2p options. */
export function elSettings(o: BasaltOptions, isDeclared: (name: string) => boolean = declared): P2PLayerSettings | undefined {
  if (!EL_REQUIRED.every((n) => isDeclared(n))) return undefined;
  const s: P2PLayerSettings = { layer: "el", endpoints: [], advertiseOption: "nat" };
  const extip = /^extip:(.+)$/.exec(read(o, "nat", "string") ?? "");
  if (extip !== null) s.advertiseIp = extip[1] as string;
  if (read(o, "p2p.el.disable", "boolean") === true) {
    s.disabledBy = "--p2p.el.disable";
    return s;
  }
  const addr = read(o, "addr", "string") ?? "0.0.0.0";
  s.endpoints.push({ layer: "el", name: "rlpx", transport: "tcp", title: "RLPx (execution peers)", host: addr, port: read(o, "port", "number") ?? 0, addrOption: "addr", portOption: "port" });
  if (read(o, "disable-discovery", "boolean") !== true) {
    const host = read(o, "discovery.addr", "string") ?? addr;
    const op = elRunsBaseDiscovery(o);
    if (op) {
      const port = read(o, "discovery.v5.port", "number") ?? DEFAULT_P2P_EL_DISCV5_PORT;
      s.endpoints.push({ layer: "el", name: "basev0", transport: "udp", title: `discv5 '${BASE_PROTOCOL_ID}' (execution discovery)`, host, port, addrOption: "discovery.addr", portOption: "discovery.v5.port" });
    }
    if (!op || read(o, "rollup.discovery.v4", "boolean") === true) {
      const port = read(o, "discovery.port", "number") ?? 0;
      s.endpoints.push({ layer: "el", name: "discv4", transport: "udp", title: "discovery v4 (execution discovery)", host, port, addrOption: "discovery.addr", portOption: "discovery.port" });
    }
  }
  return s;
}

/**
 * Whether the node's execution layer runs Base's discovery (discv5 `basev0`, discovery v4 only
 * with `--rollup.discovery.v4`): on OP chains, which the doctor knows by the network (a Base
 * network, the devnet) or `--rollup.config` (a custom OP chain's genesis).
 */
function elRunsBaseDiscovery(o: BasaltOptions): boolean {
  const network = o.network;
  return isBaseNetwork(network) || isDevnet(network) || (read(o, "rollup.config", "string") ?? "") !== "";
}

/** The id of an endpoint's result: `p2p.libp2p`, `p2p.discv5`, `p2p.rlpx`, `p2p.discv4`. */
function idOf(e: P2PEndpoint): string {
  return `p2p.${e.name}`;
}

/** `0.0.0.0:9222/tcp`. */
function where(e: P2PEndpoint, host = e.host, port = e.port): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}/${e.transport}`;
}

/** Firewall rule lines for an endpoint, for fixes. */
function firewallFix(e: P2PEndpoint, port: number): string {
  return `allow ${e.transport} port ${port} in the host firewall and the cloud security group (nftables: \`${e.transport} dport ${port} accept\`; ufw: \`ufw allow ${port}/${e.transport}\`; deploy/README.md)`;
}

/** Whether two listen addresses overlap (the same address, or either is a wildcard). */
function overlaps(a: string, b: string): boolean {
  const wild = (h: string): boolean => h === "0.0.0.0" || h === "::" || h === "";
  return a === b || wild(a) || wild(b);
}

/** The result for one endpoint before the node runs: the port is free to bind, or FAIL saying what holds it. */
async function bindable(e: P2PEndpoint, taken: readonly { port: number; host: string; transport: string; option: string }[]): Promise<CheckResult> {
  const data = { host: e.host, port: e.port, transport: e.transport };
  if (e.port === 0) return result(idOf(e), e.title, "OK", `--${e.portOption} 0: any free ${e.transport.toUpperCase()} port is taken at start`, undefined, data);
  const clash = taken.find((t) => t.transport === e.transport && t.port === e.port && overlaps(t.host, e.host));
  if (clash !== undefined) {
    const fix = `give --${e.portOption} and --${clash.option} different ports`;
    return result(idOf(e), e.title, "FAIL", `${where(e)} is also the port of --${clash.option}`, fix, data);
  }
  const error = e.transport === "tcp" ? await tryListen(e.host, e.port) : await tryBindUdp(e.host, e.port);
  if (error === undefined) return result(idOf(e), e.title, "OK", `${where(e)} is free`, undefined, data);
  const fixes: Record<string, string> = {
    EADDRINUSE: `stop the program holding it (ss -${e.transport === "tcp" ? "lt" : "lu"}np 'sport = :${e.port}') or choose another port with --${e.portOption}`,
    EADDRNOTAVAIL: `${e.host} is not an address of this machine: set --${e.addrOption} to one of its addresses (or 0.0.0.0)`,
    EACCES: `ports below 1024 need privileges: choose a port above 1023 with --${e.portOption}`,
  };
  const what = error === "EADDRINUSE" ? `port ${e.port}/${e.transport} is in use by another program` : `cannot bind ${where(e)}: ${failureReason({ code: error, message: error })}`;
  return result(idOf(e), e.title, "FAIL", what, fixes[error] ?? `check --${e.addrOption} and --${e.portOption}`, data);
}

/** The FAIL or OK of a TCP connection to a running node's P2P port. */
async function tcpReachable(e: P2PEndpoint, port: number, timeoutMs: number): Promise<CheckResult> {
  const host = loopbackFor(e.host);
  const data: Record<string, unknown> = { host, port, transport: "tcp" };
  const r = await tcpConnect(host, port, timeoutMs);
  if (r.ok) {
    data.latencyMs = Math.round(r.latencyMs);
    return result(idOf(e), e.title, "OK", `${where(e, host, port)} accepts connections from this machine (${ms(r.latencyMs)})`, undefined, data);
  }
  if (r.code === "ECONNREFUSED") {
    const fix = `check the node's log for the ${e.name} listener and that the node runs with the same --${e.portOption} as this doctor`;
    return result(idOf(e), e.title, "FAIL", `nothing accepts connections on ${where(e, host, port)} although the node runs`, fix, data);
  }
  const detail = `${where(e, host, port)}: ${r.code === "ETIMEDOUT" ? `no answer within ${timeoutMs} ms (a firewall drops it)` : failureReason({ code: r.code, message: r.code })}`;
  return result(idOf(e), e.title, "FAIL", detail, firewallFix(e, port), data);
}

/** A running node's TCP endpoint: the connection probe, or SKIP when `--<port> 0` let the node choose and it does not say which (`why`). */
async function tcpEndpoint(e: P2PEndpoint, chosen: number | undefined, why: string, timeoutMs: number): Promise<CheckResult> {
  const port = e.port !== 0 ? e.port : chosen;
  if (port === undefined) return result(idOf(e), e.title, "SKIP", `--${e.portOption} 0 and the chosen port is unknown (${why})`);
  return tcpReachable(e, port, timeoutMs);
}

/** A running node's UDP endpoint: OK when `probe` gets its PONG at loopback `host:port`, else FAIL with the firewall fix and `flags` to check. */
async function udpRoundTrip(e: P2PEndpoint, host: string, port: number, data: Record<string, unknown>, probe: () => Promise<{ latencyMs: number; said: string }>, flags: string): Promise<CheckResult> {
  try {
    const pong = await probe();
    data.latencyMs = Math.round(pong.latencyMs);
    return result(idOf(e), e.title, "OK", `${where(e, host, port)} answered ${pong.said} (${ms(pong.latencyMs)})`, undefined, data);
  } catch (err) {
    return result(idOf(e), e.title, "FAIL", failureReason(err), `${firewallFix(e, port)}; check ${flags} of the running node`, data);
  }
}

/** The IP and ports of a node record, or the reason it does not decode. */
function recordOf(enrText: string): { ip?: string; tcp?: number; udp?: number } | string {
  try {
    return enrEndpoint(enrText);
  } catch (e) {
    return failureReason(e);
  }
}

/**
 * A running node's discv5 endpoint (under `protocolId` when given): a PING→PONG to its record
 * `enr`; WARN with `why` (and `fix`) when there is no record to probe, SKIP when the port is
 * unknown. `flags` name the options to check on a FAIL.
 */
async function discv5Endpoint(e: P2PEndpoint, enr: string | undefined, why: string, fix: string, flags: string, ctx: DoctorContext, protocolId?: string): Promise<CheckResult> {
  const record = enr === undefined ? why : recordOf(enr);
  if (enr === undefined || typeof record === "string") return result(idOf(e), e.title, "WARN", `cannot probe discv5: ${String(record)}`, fix);
  const port = e.port !== 0 ? e.port : record.udp;
  if (port === undefined) return result(idOf(e), e.title, "SKIP", `--${e.portOption} 0 and the node's ENR has no UDP port`);
  const host = loopbackFor(e.host);
  const ping = async (): Promise<{ latencyMs: number; said: string }> => {
    const pong = await discv5Ping(enr, host, port, ctx.timeoutMs, protocolId);
    return { latencyMs: pong.latencyMs, said: `a ${protocolId === undefined ? "" : `'${protocolId}' `}discv5 PING (it saw us as ${pong.observed})` };
  };
  return udpRoundTrip(e, host, port, { host, port, transport: "udp", enr }, ping, flags);
}

/** Asks the running node's rollup RPC for `opp2p_self`; a string is the reason it could not. */
async function selfInfo(o: BasaltOptions, timeoutMs: number): Promise<SelfPeerInfo | string> {
  if (!o.rollup) return "the rollup RPC is off (--no-rollup), so opp2p_self cannot be asked";
  try {
    const a = await jsonRpc(localUrl(o["rollup.addr"], o["rollup.port"]), "opp2p_self", [], timeoutMs);
    if (a.error !== undefined) return `opp2p_self answered error ${a.error.code} ${a.error.message}`;
    return parseSelfPeerInfo(a.result);
  } catch (e) {
    return `opp2p_self on the rollup port ${o["rollup.port"]} failed: ${failureReason(e)}`;
  }
}

/** Asks the running node's HTTP RPC for `admin_nodeInfo`'s enode (and record); a string is the reason it could not. */
async function nodeEnode(o: BasaltOptions, timeoutMs: number): Promise<{ enode: Enode; enr?: string; ports?: { discovery?: number; listener?: number } } | string> {
  try {
    const a = await jsonRpc(localUrl(o["http.addr"], o["http.port"]), "admin_nodeInfo", [], timeoutMs);
    if (a.error !== undefined) return `admin_nodeInfo answered error ${a.error.code} ${a.error.message}`;
    const r = a.result as { enode?: unknown; enr?: unknown; ports?: { discovery?: unknown; listener?: unknown } } | null;
    if (typeof r?.enode !== "string") return `admin_nodeInfo answered ${JSON.stringify(a.result)?.slice(0, 200)}, expected an object with an enode`;
    const ports: { discovery?: number; listener?: number } = {};
    if (typeof r.ports?.discovery === "number") ports.discovery = r.ports.discovery;
    if (typeof r.ports?.listener === "number") ports.listener = r.ports.listener;
    return { enode: parseEnode(r.enode), ports, ...(typeof r.enr === "string" ? { enr: r.enr } : {}) };
  } catch (e) {
    return `admin_nodeInfo failed: ${failureReason(e)}`;
  }
}

/** The WARN or OK of an advertised address on `network`: loopback, private or unspecified on a Base network is a WARN. */
export function advertisedVerdict(layer: P2PLayer, ip: string | undefined, network: string, option: string, from: string): CheckResult {
  const id = `p2p.${layer}.advertise`;
  const title = layer === "cl" ? "Consensus P2P advertised address" : "Execution P2P advertised address";
  const flag = option === "nat" ? "--nat extip:<public IP>" : `--${option} <public IP>`;
  const publicNet = isBaseNetwork(network);
  if (ip === undefined) {
    if (!publicNet) return result(id, title, "SKIP", `no advertised address (${from}); ${network} needs none`);
    return result(id, title, "WARN", `${from} carries no IP: peers of ${network} cannot dial this node`, `set ${flag}`, { network });
  }
  const scope = ipScope(ip);
  const data = { ip, scope, network };
  if (scope === "public" || !publicNet) return result(id, title, "OK", `${from} advertises ${ip} (${scope})`, undefined, data);
  const ports = layer === "cl" ? "9222 TCP+UDP" : "30303 TCP and the discovery UDP port (9200 for discv5 'basev0', 30303 for discovery v4)";
  const fix = `set ${flag} to the address peers reach this machine at (behind NAT: the public IP, with ${ports} forwarded)`;
  return result(id, title, "WARN", `${from} advertises ${ip}, a ${scope} address on ${network}: peers cannot dial back`, fix, data);
}

/** Checks of one layer while no node runs: every socket free, and the advertised address the options fix. */
async function layerBeforeStart(s: P2PLayerSettings, ctx: DoctorContext, taken: { port: number; host: string; transport: string; option: string }[]): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const e of s.endpoints) {
    out.push(await bindable(e, taken));
    if (e.port !== 0) taken.push({ port: e.port, host: e.host, transport: e.transport, option: e.portOption });
  }
  if (s.advertiseIp !== undefined) out.push(advertisedVerdict(s.layer, s.advertiseIp, ctx.options.network, s.advertiseOption, `--${s.advertiseOption}`));
  return out;
}

/** Checks of the consensus layer of a running node. */
async function clRunning(s: P2PLayerSettings, ctx: DoctorContext): Promise<CheckResult[]> {
  const info = await selfInfo(ctx.options, ctx.timeoutMs);
  const record = typeof info === "string" ? info : info.ENR === "" ? "opp2p_self returned no ENR (discovery off in the running node?)" : recordOf(info.ENR);
  const out: CheckResult[] = [];
  for (const e of s.endpoints) {
    if (e.name === "libp2p") {
      out.push(await tcpEndpoint(e, typeof info === "string" ? undefined : tcpPortOf(info.addresses), typeof info === "string" ? info : "no TCP address in opp2p_self", ctx.timeoutMs));
      continue;
    }
    const enr = typeof info === "string" || info.ENR === "" ? undefined : info.ENR;
    const why = typeof info === "string" ? info : String(record);
    out.push(await discv5Endpoint(e, enr, why, "run doctor with the node's own options (env file) and the rollup RPC on", "--p2p.listen.udp and --p2p.no-discovery", ctx));
  }
  if (typeof info !== "string") {
    if (info.ENR === "") out.push(advertisedVerdict("cl", s.advertiseIp, ctx.options.network, s.advertiseOption, `--${s.advertiseOption}`));
    else if (typeof record !== "string") out.push(advertisedVerdict("cl", record.ip, ctx.options.network, s.advertiseOption, "the node's ENR (opp2p_self)"));
  }
  return out;
}

/** Checks of the execution layer of a running node. */
async function elRunning(s: P2PLayerSettings, ctx: DoctorContext): Promise<CheckResult[]> {
  const info = await nodeEnode(ctx.options, ctx.timeoutMs);
  const out: CheckResult[] = [];
  for (const e of s.endpoints) {
    if (e.name === "rlpx") {
      out.push(await tcpEndpoint(e, typeof info === "string" ? undefined : (info.ports?.listener ?? info.enode.tcpPort), String(info), ctx.timeoutMs));
      continue;
    }
    if (typeof info === "string") {
      out.push(result(idOf(e), e.title, "WARN", `cannot probe ${e.name === "basev0" ? "discv5" : "discovery v4"}: ${info}`, "run doctor where the admin namespace answers on the HTTP RPC (not with --public)"));
      continue;
    }
    if (e.name === "basev0") {
      // discv5 under basev0: a PING→PONG to the node's own record, as the consensus layer's check.
      const why = "admin_nodeInfo has no enr (discv5 off in the running node?)";
      out.push(await discv5Endpoint(e, info.enr, why, "run doctor with the node's own options (env file)", "--discovery.v5.port and --disable-discovery", ctx, BASE_PROTOCOL_ID));
      continue;
    }
    const host = loopbackFor(e.host);
    const port = e.port !== 0 ? e.port : (info.ports?.discovery ?? info.enode.udpPort);
    const ping = async (): Promise<{ latencyMs: number; said: string }> => {
      const pong = await discv4Ping(info.enode.publicKey, host, port, info.enode.tcpPort, ctx.timeoutMs);
      return { latencyMs: pong.latencyMs, said: "a discv4 PING from the enode's key" };
    };
    out.push(await udpRoundTrip(e, host, port, { host, port, transport: "udp" }, ping, "--discovery.port and --disable-discovery"));
  }
  if (typeof info !== "string") out.push(advertisedVerdict("el", info.enode.host, ctx.options.network, s.advertiseOption, "the node's enode (admin_nodeInfo)"));
  return out;
}

/**
 * Check "p2p": see the module comment. One result per socket and per advertised address; SKIP for
 * a layer turned off or unknown to this build. `isDeclared` says which options the table has
 * (a seam for tests of options not yet in the table).
 */
export async function checkP2P(ctx: DoctorContext, isDeclared: (name: string) => boolean = declared): Promise<CheckResult[]> {
  const o = ctx.options;
  const layers: [P2PLayer, P2PLayerSettings | undefined][] = [
    ["cl", clSettings(o, isDeclared)],
    ["el", elSettings(o, isDeclared)],
  ];
  const http = listenersOf(o)[0];
  const running = http !== undefined && isBasalt(await clientVersionAt(http.host, http.port, ctx.timeoutMs));
  // Before start, the P2P ports must not clash with the node's TCP listeners or with each other.
  const taken = listenersOf(o).map((l) => ({ port: l.port, host: l.host, transport: "tcp", option: l.portOption as string }));
  const out: CheckResult[] = [];
  for (const [layer, s] of layers) {
    const title = layer === "cl" ? "Consensus P2P" : "Execution P2P";
    if (s === undefined) {
      out.push(result(`p2p.${layer}`, title, "SKIP", "P2P options not available"));
      continue;
    }
    if (s.disabledBy !== undefined) {
      out.push(result(`p2p.${layer}`, title, "SKIP", `turned off by ${s.disabledBy}`));
      continue;
    }
    if (!running) out.push(...(await layerBeforeStart(s, ctx, taken)));
    else out.push(...(layer === "cl" ? await clRunning(s, ctx) : await elRunning(s, ctx)));
  }
  return out;
}
