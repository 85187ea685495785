/**
 * The pure parts of the `basalt doctor` P2P check: IP scopes, enode and `opp2p_self` parsing, the
 * settings read from the options by name (op-node's UDP-port rule, disable flags), the advertised
 * address verdict, and SKIP when the option table has no P2P options.
 */
import { SignableENR } from "@chainsafe/enr";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { describe, expect, it } from "vitest";
import { parseCli } from "../../../src/cli/args.js";
import type { BasaltOptions } from "../../../src/config/options.js";
import { advertisedVerdict, checkP2P, clSettings, declared, elSettings } from "../../../src/ops/doctor/p2p.js";
import { enrEndpoint, ipScope, parseEnode, parseSelfPeerInfo, tcpPortOf } from "../../../src/ops/doctor/p2pProbe.js";
import type { DoctorContext } from "../../../src/ops/doctor/types.js";

const KEY = "ab".repeat(64);
const all = (): boolean => true;

/** Doctor options of this build plus the P2P options by name (as the merged option table will give them). */
function options(extra: Record<string, unknown>, network = "devnet"): BasaltOptions {
  const base = parseCli(["doctor", "--network", network], {}).options;
  return { ...base, ...extra } as BasaltOptions;
}

const CL_DEFAULTS = { "p2p.disable": false, "p2p.no-discovery": false, "p2p.listen.ip": "0.0.0.0", "p2p.listen.tcp": 9222, "p2p.listen.udp": 0 };
const EL_DEFAULTS = { "p2p.el.disable": false, port: 30303, addr: "0.0.0.0", "discovery.port": 30303, "discovery.addr": "0.0.0.0", "disable-discovery": false };

describe("ipScope", () => {
  it.each([
    ["0.0.0.0", "unspecified"],
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.128.0.1", "public"],
    ["169.254.1.1", "link-local"],
    ["8.8.8.8", "public"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fd00::1", "private"],
    ["fe80::1", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["2001:db8::1", "public"],
    ["not-an-ip", "invalid"],
  ])("%s is %s", (ip, scope) => {
    expect(ipScope(ip)).toBe(scope);
  });
});

describe("parseEnode", () => {
  it("reads key, host, TCP port and discport (the TCP port when absent)", () => {
    const e = parseEnode(`enode://${KEY}@10.0.0.5:30303?discport=30301`);
    expect(Buffer.from(e.publicKey).toString("hex")).toBe(KEY);
    expect(e).toMatchObject({ host: "10.0.0.5", tcpPort: 30303, udpPort: 30301 });
    expect(parseEnode(`enode://${KEY}@[::1]:30304`)).toMatchObject({ host: "::1", tcpPort: 30304, udpPort: 30304 });
  });

  it("refuses what is not an enode, naming the expected form", () => {
    expect(() => parseEnode(`enode://${KEY.slice(2)}@1.2.3.4:30303`)).toThrow(/expected enode:\/\/<128 hex digits>@<ip>:<port>/);
    expect(() => parseEnode(`enr:-abc`)).toThrow(/is not an enode URL/);
    expect(() => parseEnode(`enode://${KEY}@1.2.3.4:70000`)).toThrow(/above 65535/);
  });
});

describe("opp2p_self and node records", () => {
  it("reads op-node's PeerInfo fields and the TCP port of its addresses", () => {
    const info = parseSelfPeerInfo({ peerID: "16Uiu2", nodeID: "x", ENR: "enr:-abc", addresses: ["/ip4/1.2.3.4/tcp/9333/p2p/16Uiu2", 7] });
    expect(info).toEqual({ peerID: "16Uiu2", ENR: "enr:-abc", addresses: ["/ip4/1.2.3.4/tcp/9333/p2p/16Uiu2"] });
    expect(tcpPortOf(info.addresses)).toBe(9333);
    expect(tcpPortOf(["/ip4/1.2.3.4/udp/9222"])).toBeUndefined();
    expect(() => parseSelfPeerInfo({ ENR: "enr:-abc" })).toThrow(/expected op-node's PeerInfo with a peerID/);
    expect(() => parseSelfPeerInfo(null)).toThrow(/PeerInfo/);
  });

  it("reads the IP and ports of a record, and refuses one that does not decode", async () => {
    const enr = SignableENR.createFromPrivateKey((await generateKeyPair("secp256k1")) as unknown as Parameters<typeof SignableENR.createFromPrivateKey>[0]);
    enr.ip = "203.0.113.7";
    enr.tcp = 9222;
    enr.udp = 9223;
    expect(enrEndpoint(enr.encodeTxt())).toEqual({ ip: "203.0.113.7", tcp: 9222, udp: 9223 });
    expect(() => enrEndpoint("enr:-not-base64!")).toThrow(/does not decode/);
  });
});

describe("P2P settings from the options", () => {
  it("are undefined when the option table lacks them (this build without the P2P options)", () => {
    const o = options({ ...CL_DEFAULTS, ...EL_DEFAULTS });
    const none = (): boolean => false;
    expect(clSettings(o, none)).toBeUndefined();
    expect(elSettings(o, none)).toBeUndefined();
  });

  it("consensus layer: libp2p TCP and discv5 UDP, UDP 0 meaning the TCP port (op-node)", () => {
    const s = clSettings(options(CL_DEFAULTS), all);
    expect(s?.endpoints.map((e) => [e.name, e.transport, e.host, e.port])).toEqual([
      ["libp2p", "tcp", "0.0.0.0", 9222],
      ["discv5", "udp", "0.0.0.0", 9222],
    ]);
    const own = clSettings(options({ ...CL_DEFAULTS, "p2p.listen.udp": 9333, "p2p.advertise.ip": "203.0.113.7" }), all);
    expect(own?.endpoints[1]?.port).toBe(9333);
    expect(own?.advertiseIp).toBe("203.0.113.7");
    expect(clSettings(options({ ...CL_DEFAULTS, "p2p.no-discovery": true }), all)?.endpoints.map((e) => e.name)).toEqual(["libp2p"]);
    expect(clSettings(options({ ...CL_DEFAULTS, "p2p.disable": true }), all)).toMatchObject({ disabledBy: "--p2p.disable", endpoints: [] });
  });

  it("execution layer of a plain Ethereum chain: RLPx TCP and discovery v4 UDP, --nat extip as the advertised address", () => {
    const s = elSettings(options({ ...EL_DEFAULTS, "discovery.port": 30301, nat: "extip:198.51.100.2" }, "devnet-l1"), all);
    expect(s?.endpoints.map((e) => [e.name, e.transport, e.port, e.portOption])).toEqual([
      ["rlpx", "tcp", 30303, "port"],
      ["discv4", "udp", 30301, "discovery.port"],
    ]);
    expect(s?.advertiseIp).toBe("198.51.100.2");
    expect(elSettings(options({ ...EL_DEFAULTS, "disable-discovery": true }), all)?.endpoints.map((e) => e.name)).toEqual(["rlpx"]);
    expect(elSettings(options({ ...EL_DEFAULTS, "p2p.el.disable": true }), all)?.disabledBy).toBe("--p2p.el.disable");
  });

  it("execution layer of an OP chain (Base's network): discv5 'basev0' on --discovery.v5.port, discovery v4 only with --rollup.discovery.v4", () => {
    for (const network of ["base-mainnet", "devnet"]) {
      const s = elSettings(options({ ...EL_DEFAULTS, "discovery.v5.port": 9200, "rollup.discovery.v4": false }, network), all);
      expect(s?.endpoints.map((e) => [e.name, e.transport, e.port, e.portOption])).toEqual([
        ["rlpx", "tcp", 30303, "port"],
        ["basev0", "udp", 9200, "discovery.v5.port"],
      ]);
    }
    const both = elSettings(options({ ...EL_DEFAULTS, "discovery.v5.port": 9201, "rollup.discovery.v4": true }, "base-sepolia"), all);
    expect(both?.endpoints.map((e) => e.name)).toEqual(["rlpx", "basev0", "discv4"]);
    expect(both?.endpoints[1]?.port).toBe(9201);
    expect(elSettings(options({ ...EL_DEFAULTS, "disable-discovery": true }, "base-mainnet"), all)?.endpoints.map((e) => e.name)).toEqual(["rlpx"]);
  });
});

describe("advertised address", () => {
  it("WARNs for a loopback or private address on a Base network, with the flag to set", () => {
    const w = advertisedVerdict("cl", "192.168.1.10", "base-mainnet", "p2p.advertise.ip", "the node's ENR");
    expect(w.verdict).toBe("WARN");
    expect(w.detail).toContain("a private address on base-mainnet: peers cannot dial back");
    expect(w.fix).toContain("--p2p.advertise.ip <public IP>");
    const el = advertisedVerdict("el", "127.0.0.1", "base-sepolia", "nat", "the node's enode");
    expect(el.verdict).toBe("WARN");
    expect(el.fix).toContain("--nat extip:<public IP>");
    expect(advertisedVerdict("cl", undefined, "base-sepolia", "p2p.advertise.ip", "the node's ENR").verdict).toBe("WARN");
  });

  it("is OK for a public address, and for any address on a local network", () => {
    expect(advertisedVerdict("cl", "203.0.113.7", "base-mainnet", "p2p.advertise.ip", "x").verdict).toBe("OK");
    expect(advertisedVerdict("cl", "127.0.0.1", "devnet", "p2p.advertise.ip", "x").verdict).toBe("OK");
    expect(advertisedVerdict("el", undefined, "devnet", "nat", "x").verdict).toBe("SKIP");
  });
});

describe("checkP2P on this build's option table", () => {
  it("SKIPs a layer whose options the table does not declare, and checks one it does", async () => {
    // Port 0 everywhere: once the table declares the options, the check must not bind the default ports other tests' nodes use.
    const o = options({ "p2p.listen.tcp": 0, "p2p.listen.udp": 0, port: 0, "discovery.port": 0 });
    const ctx: DoctorContext = { options: o, sources: parseCli(["doctor"], {}).sources, timeoutMs: 1_000, now: () => Date.now() };
    const results = await checkP2P(ctx, (n) => declared(n));
    for (const layer of ["cl", "el"] as const) {
      const r = results.find((c) => c.id === `p2p.${layer}`);
      const hasOptions = (layer === "cl" ? ["p2p.listen.tcp"] : ["discovery.port"]).every((n) => declared(n));
      if (hasOptions) expect(r).toBeUndefined();
      else expect(r).toMatchObject({ verdict: "SKIP", detail: "P2P options not available" });
    }
  });
});
