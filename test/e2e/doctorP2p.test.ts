/**
 * End-to-end: the `basalt doctor` P2P probes and check against real peers started in the test on
 * 127.0.0.1 — a discv5 node (@chainsafe/discv5), a `basev0` discv5 node (Base's execution
 * discovery, `p2p/el/discv5Transport.ts`), a discovery v4 node (@ethereumjs/devp2p DPT), TCP
 * listeners standing for libp2p and RLPx, and a JSON-RPC server answering as a running basalt
 * (`web3_clientVersion`, `admin_nodeInfo` with the DPT's enode and the basev0 record,
 * `opp2p_self` with the discv5 record). No basalt process: the check's options are given by name, as the merged option table
 * will give them.
 */
import "../../src/p2p/polyfills.js";
import dgram from "node:dgram";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { Discv5, UDPTransportService } from "@chainsafe/discv5";
import { SignableENR } from "@chainsafe/enr";
import { DPT } from "@ethereumjs/devp2p";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli/args.js";
import type { BasaltOptions } from "../../src/config/options.js";
import { checkP2P } from "../../src/ops/doctor/p2p.js";
import { ProtocolIdTransport, withProtocolId } from "../../src/p2p/el/discv5Transport.js";
import { discv4Ping, discv5Ping, tcpConnect, tryBindUdp } from "../../src/ops/doctor/p2pProbe.js";
import type { CheckResult, DoctorContext } from "../../src/ops/doctor/types.js";
import { LOCALHOST, getFreePorts } from "../helpers/ports.js";

/** Time limit of one probe in these tests (loopback answers in milliseconds). */
const PROBE_MS = 1_500;

type Discv5Key = Parameters<typeof Discv5.create>[0]["privateKey"];

let discv5: Discv5;
let discv5Port = 0;
let enrText = "";
/** Base's execution discovery: discv5 under basev0. */
let based: Discv5;
let basedPort = 0;
let basedEnr = "";
let undoBased: () => void = () => undefined;
let dpt: DPT;
let dptPort = 0;
let dptKey: Uint8Array;
/** A UDP socket that reads and never answers (a port a firewall would make silent). */
let silentUdp: dgram.Socket;
let silentPort = 0;
const tcpServers: net.Server[] = [];
const httpServers: http.Server[] = [];

function listenTcp(server: net.Server, port = 0): Promise<number> {
  tcpServers.push(server);
  return new Promise((resolve) => server.listen(port, LOCALHOST, () => resolve((server.address() as AddressInfo).port)));
}

function bindUdp(socket: dgram.Socket): Promise<number> {
  return new Promise((resolve) => socket.bind(0, LOCALHOST, () => resolve(socket.address().port)));
}

/** A JSON-RPC server answering `answers[method]`, and method-not-found otherwise. */
function rpcServer(answers: Record<string, unknown>): Promise<number> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const call = JSON.parse(body) as { id: number; method: string };
      const known = Object.hasOwn(answers, call.method);
      const answer = known ? { jsonrpc: "2.0", id: call.id, result: answers[call.method] } : { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "method not found" } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  httpServers.push(server);
  return new Promise((resolve) => server.listen(0, LOCALHOST, () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  const key = (await generateKeyPair("secp256k1")) as unknown as Discv5Key;
  const enr = SignableENR.createFromPrivateKey(key);
  enr.ip = LOCALHOST;
  const bindAddrs = { ip4: multiaddr(`/ip4/${LOCALHOST}/udp/0`) };
  const transport = new UDPTransportService({ bindAddrs, nodeId: enr.nodeId });
  discv5 = Discv5.create({ enr, privateKey: key, bindAddrs, transport, config: { enrUpdate: false } });
  await discv5.start();
  // The transport binds port 0 itself and does not expose the port chosen: read it from its socket.
  discv5Port = (transport as unknown as { ip4: { socket: dgram.Socket } }).ip4.socket.address().port;
  discv5.enr.udp = discv5Port;
  enrText = discv5.enr.encodeTxt();

  const baseKey = (await generateKeyPair("secp256k1")) as unknown as Discv5Key;
  const baseEnr = SignableENR.createFromPrivateKey(baseKey);
  baseEnr.ip = LOCALHOST;
  const baseTransport = new ProtocolIdTransport({ bindAddr: bindAddrs.ip4, nodeId: baseEnr.nodeId, protocolId: "basev0", onRefused: () => undefined });
  based = Discv5.create({ enr: baseEnr, privateKey: baseKey, bindAddrs, transport: baseTransport.asService(), config: { enrUpdate: false } });
  undoBased = withProtocolId(based, "basev0");
  await based.start();
  basedPort = baseTransport.port;
  based.enr.udp = basedPort;
  basedEnr = based.enr.encodeTxt();

  dptKey = secp256k1.utils.randomSecretKey();
  dpt = new DPT(dptKey, { shouldFindNeighbours: false, refreshInterval: 3_600_000, endpoint: { address: LOCALHOST, udpPort: null, tcpPort: null } });
  await new Promise<void>((resolve) => {
    dpt.events.once("listening", () => resolve());
    dpt.bind(0, LOCALHOST);
  });
  dptPort = (dpt as unknown as { _server: { _socket: dgram.Socket } })._server._socket.address().port;

  silentUdp = dgram.createSocket("udp4");
  silentUdp.on("message", () => undefined);
  silentPort = await bindUdp(silentUdp);
});

afterAll(async () => {
  await discv5?.stop();
  undoBased();
  await based?.stop();
  dpt?.destroy();
  silentUdp?.close();
  await Promise.all(tcpServers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  await Promise.all(httpServers.map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** The DPT's 64-byte public key (the enode's node id). */
function dptPublicKey(): Uint8Array {
  return secp256k1.getPublicKey(dptKey, false).subarray(1);
}

describe("P2P probes against real peers", () => {
  it("discv5: PING→PONG with a node of the record; a silent port times out with DOCTOR_PROBE_FAILED", async () => {
    const pong = await discv5Ping(enrText, LOCALHOST, discv5Port, PROBE_MS);
    expect(pong.observed).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(pong.enrSeq).toBeGreaterThanOrEqual(1n);
    await expect(discv5Ping(enrText, LOCALHOST, silentPort, PROBE_MS)).rejects.toMatchObject({ code: "DOCTOR_PROBE_FAILED" });
  });

  it("basev0 discv5: PING→PONG under Base's protocol id; a standard PING to it, or a basev0 PING to a standard node, gets none", async () => {
    const pong = await discv5Ping(basedEnr, LOCALHOST, basedPort, PROBE_MS, "basev0");
    expect(pong.observed).toMatch(/^127\.0\.0\.1:\d+$/);
    await expect(discv5Ping(basedEnr, LOCALHOST, basedPort, PROBE_MS)).rejects.toMatchObject({ code: "DOCTOR_PROBE_FAILED" });
    await expect(discv5Ping(enrText, LOCALHOST, discv5Port, PROBE_MS, "basev0")).rejects.toMatchObject({ code: "DOCTOR_PROBE_FAILED" });
  });

  it("discv4: PING→PONG signed by the enode's key; another key is DOCTOR_BAD_ANSWER; a silent port DOCTOR_PROBE_FAILED", async () => {
    const pong = await discv4Ping(dptPublicKey(), LOCALHOST, dptPort, 30303, PROBE_MS);
    expect(pong.latencyMs).toBeGreaterThanOrEqual(0);
    const other = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false).subarray(1);
    await expect(discv4Ping(other, LOCALHOST, dptPort, 30303, PROBE_MS)).rejects.toMatchObject({ code: "DOCTOR_BAD_ANSWER" });
    await expect(discv4Ping(dptPublicKey(), LOCALHOST, silentPort, 30303, PROBE_MS)).rejects.toMatchObject({ code: "DOCTOR_PROBE_FAILED" });
  });

  it("TCP connect and UDP bind see listening, closed and held ports", async () => {
    const port = await listenTcp(net.createServer((s) => s.destroy()));
    expect(await tcpConnect(LOCALHOST, port, PROBE_MS)).toMatchObject({ ok: true });
    const [closed] = (await getFreePorts(1)) as [number];
    expect(await tcpConnect(LOCALHOST, closed, PROBE_MS)).toEqual({ ok: false, code: "ECONNREFUSED" });
    expect(await tryBindUdp(LOCALHOST, silentPort)).toBe("EADDRINUSE");
    const probe = dgram.createSocket("udp4");
    const free = await bindUdp(probe);
    await new Promise<void>((r) => probe.close(() => r()));
    expect(await tryBindUdp(LOCALHOST, free)).toBeUndefined();
  });
});

/** Doctor options of this build plus the P2P options by name. */
function options(args: string[], p2p: Record<string, unknown>): BasaltOptions {
  return { ...parseCli(["doctor", ...args], {}).options, ...p2p } as BasaltOptions;
}

function ctxOf(o: BasaltOptions): DoctorContext {
  return { options: o, sources: parseCli(["doctor"], {}).sources, timeoutMs: PROBE_MS, now: () => Date.now() };
}

function byId(results: CheckResult[], id: string): CheckResult {
  const r = results.find((c) => c.id === id);
  if (r === undefined) throw new Error(`no ${id} in ${JSON.stringify(results)}`);
  return r;
}

const all = (): boolean => true;

describe("checkP2P before the node starts", () => {
  it("OK for free ports, FAIL naming the port and the fix for held ones and for clashes", async () => {
    const held = await listenTcp(net.createServer());
    const [httpPort, freeTcp] = (await getFreePorts(2)) as [number, number];
    const o = options(["--http.port", String(httpPort)], {
      "p2p.disable": false,
      "p2p.listen.ip": LOCALHOST,
      "p2p.listen.tcp": held,
      "p2p.listen.udp": silentPort,
      "p2p.el.disable": false,
      addr: LOCALHOST,
      port: freeTcp,
      "discovery.addr": LOCALHOST,
      // The devp2p discovery v4 port (on with --rollup.discovery.v4 on the devnet) on the consensus discovery port: a clash.
      "discovery.port": silentPort,
      "rollup.discovery.v4": true,
      "discovery.v5.port": 0,
    });
    const r = await checkP2P(ctxOf(o), all);
    const libp2p = byId(r, "p2p.libp2p");
    expect(libp2p.verdict).toBe("FAIL");
    expect(libp2p.detail).toBe(`port ${held}/tcp is in use by another program`);
    expect(libp2p.fix).toContain(`ss -ltnp 'sport = :${held}'`);
    expect(libp2p.fix).toContain("--p2p.listen.tcp");
    const discv5r = byId(r, "p2p.discv5");
    expect(discv5r.verdict).toBe("FAIL");
    expect(discv5r.fix).toContain("ss -lunp");
    expect(byId(r, "p2p.rlpx")).toMatchObject({ verdict: "OK", detail: `${LOCALHOST}:${freeTcp}/tcp is free` });
    expect(byId(r, "p2p.basev0")).toMatchObject({ verdict: "OK", detail: "--discovery.v5.port 0: any free UDP port is taken at start" });
    const discv4 = byId(r, "p2p.discv4");
    expect(discv4.verdict).toBe("FAIL");
    expect(discv4.fix).toBe("give --discovery.port and --p2p.listen.udp different ports");
  });

  it("SKIPs a layer turned off and WARNs for a private --p2p.advertise.ip on Base", async () => {
    const [httpPort, tcp] = (await getFreePorts(2)) as [number, number];
    const o = options(["--network", "base-sepolia", "--http.port", String(httpPort)], {
      "p2p.disable": false,
      "p2p.no-discovery": true,
      "p2p.listen.ip": LOCALHOST,
      "p2p.listen.tcp": tcp,
      "p2p.listen.udp": 0,
      "p2p.advertise.ip": "10.1.2.3",
      "p2p.el.disable": true,
      addr: LOCALHOST,
      port: 0,
      "discovery.addr": LOCALHOST,
      "discovery.port": 0,
    });
    const r = await checkP2P(ctxOf(o), all);
    expect(r.map((c) => c.id)).toEqual(["p2p.libp2p", "p2p.cl.advertise", "p2p.el"]);
    expect(byId(r, "p2p.libp2p").verdict).toBe("OK");
    expect(byId(r, "p2p.cl.advertise")).toMatchObject({ verdict: "WARN" });
    expect(byId(r, "p2p.cl.advertise").fix).toContain("--p2p.advertise.ip <public IP>");
    expect(byId(r, "p2p.el")).toMatchObject({ verdict: "SKIP", detail: "turned off by --p2p.el.disable" });
  });
});

describe("checkP2P against a running node", () => {
  /** Starts the fake node's RPC servers and returns options pointing at them and at the real peers. */
  async function runningNode(network: string, p2p: Record<string, unknown>): Promise<BasaltOptions> {
    const libp2pPort = await listenTcp(net.createServer((s) => s.destroy()));
    const rlpxPort = await listenTcp(net.createServer((s) => s.destroy()));
    const enode = `enode://${Buffer.from(dptPublicKey()).toString("hex")}@127.0.0.1:${rlpxPort}?discport=${dptPort}`;
    const httpPort = await rpcServer({
      web3_clientVersion: "basalt/v0.1.0/linux-x64/node20",
      admin_nodeInfo: { id: "x", name: "basalt", enode, enr: basedEnr, ip: LOCALHOST, ports: { discovery: dptPort, listener: rlpxPort }, listenAddr: `0.0.0.0:${rlpxPort}` },
    });
    const rollupPort = await rpcServer({ opp2p_self: { peerID: discv5.enr.peerId.toString(), ENR: enrText, addresses: [`/ip4/127.0.0.1/tcp/${libp2pPort}`] } });
    return options(["--network", network, "--http.port", String(httpPort), "--rollup.port", String(rollupPort)], {
      "p2p.disable": false,
      "p2p.listen.ip": "0.0.0.0",
      "p2p.listen.tcp": libp2pPort,
      "p2p.listen.udp": discv5Port,
      "p2p.el.disable": false,
      addr: "0.0.0.0",
      port: rlpxPort,
      "discovery.addr": "0.0.0.0",
      "discovery.port": dptPort,
      "discovery.v5.port": basedPort,
      "rollup.discovery.v4": true,
      ...p2p,
    });
  }

  it("OK for every socket reachable from the node's machine (TCP connect, discv5, basev0 discv5 and discv4 PONG)", async () => {
    const r = await checkP2P(ctxOf(await runningNode("devnet", {})), all);
    for (const id of ["p2p.libp2p", "p2p.discv5", "p2p.rlpx", "p2p.basev0", "p2p.discv4"]) expect(byId(r, id).verdict, JSON.stringify(byId(r, id))).toBe("OK");
    expect(byId(r, "p2p.discv5").detail).toContain("answered a discv5 PING");
    expect(byId(r, "p2p.basev0").detail).toContain("answered a 'basev0' discv5 PING");
    expect(byId(r, "p2p.discv4").detail).toContain("answered a discv4 PING from the enode's key");
    expect(byId(r, "p2p.cl.advertise").verdict).toBe("OK");
  });

  it("FAILs silent UDP ports with a firewall fix, and WARNs for loopback addresses advertised on Base", async () => {
    const [closedTcp] = (await getFreePorts(1)) as [number];
    const o = await runningNode("base-mainnet", { "p2p.listen.udp": silentPort, "discovery.port": silentPort, "discovery.v5.port": silentPort, port: closedTcp });
    const r = await checkP2P(ctxOf(o), all);
    expect(byId(r, "p2p.libp2p").verdict).toBe("OK");
    const dv5 = byId(r, "p2p.discv5");
    expect(dv5.verdict).toBe("FAIL");
    expect(dv5.detail).toContain(`no discv5 PONG from 127.0.0.1:${silentPort}/udp within ${PROBE_MS} ms`);
    expect(dv5.fix).toContain(`udp dport ${silentPort} accept`);
    const base = byId(r, "p2p.basev0");
    expect(base.verdict).toBe("FAIL");
    expect(base.detail).toContain(`no discv5 PONG from 127.0.0.1:${silentPort}/udp within ${PROBE_MS} ms`);
    expect(base.fix).toContain("--discovery.v5.port");
    const dv4 = byId(r, "p2p.discv4");
    expect(dv4.verdict).toBe("FAIL");
    expect(dv4.detail).toContain(`no discv4 PONG from 127.0.0.1:${silentPort}/udp within ${PROBE_MS} ms`);
    expect(dv4.fix).toContain(`ufw allow ${silentPort}/udp`);
    const rlpx = byId(r, "p2p.rlpx");
    expect(rlpx.verdict).toBe("FAIL");
    expect(rlpx.detail).toContain("nothing accepts connections");
    for (const id of ["p2p.cl.advertise", "p2p.el.advertise"]) {
      const a = byId(r, id);
      expect(a.verdict).toBe("WARN");
      expect(a.detail).toContain("a loopback address on base-mainnet: peers cannot dial back");
    }
  });
});
