/** `--p2p.*` options: op-node's names and defaults in the option table, and their resolution into service options. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCli } from "../../../../src/cli/args.js";
import { OP_DEFAULT_BOOTNODES } from "../../../../src/p2p/constants.js";
import { nodeKeyPath, p2pServiceOptions } from "../../../../src/p2p/options.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-p2popts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const chain = { chainId: 8453n, rollup: { forkTimes: {} } };

describe("p2p options", () => {
  it("has op-node's defaults", () => {
    const { options: o } = parseCli(["node", "--datadir", dir], {});
    expect(o["p2p.listen.ip"]).toBe("0.0.0.0");
    expect(o["p2p.listen.tcp"]).toBe(9222);
    expect(o["p2p.listen.udp"]).toBe(0);
    expect(o["p2p.peers.lo"]).toBe(20);
    expect(o["p2p.peers.hi"]).toBe(30);
    expect(o["p2p.disable"]).toBe(false);
    expect(o["p2p.no-discovery"]).toBe(false);
    expect(o["p2p.ban.peers"]).toBe(true);
    expect(o["p2p.ban.duration"]).toBe(3600);
    expect(nodeKeyPath(o)).toBe(path.join(dir, "opnode_p2p_priv.txt"));
  });

  it("parses flags and environment variables, and resolves service options", () => {
    const { options: o } = parseCli(
      ["node", "--datadir", dir, "--network", "base-mainnet", "--p2p.listen.tcp", "0", "--p2p.static", "/ip4/1.2.3.4/tcp/1/p2p/16Uiu2HAm4wN4epAyuj82ix2QC1Uc2vQd833szwvsNpLqhubPz8xa, ", "--p2p.no-discovery"],
      { BASALT_P2P_SEQUENCER_KEY: "0x" + "22".repeat(32), BASALT_P2P_PEERS_LO: "3" },
    );
    const s = p2pServiceOptions(o, chain)!;
    expect(s.tcpPort).toBe(0);
    expect(s.peersLo).toBe(3);
    expect(s.noDiscovery).toBe(true);
    expect(s.staticPeers).toEqual(["/ip4/1.2.3.4/tcp/1/p2p/16Uiu2HAm4wN4epAyuj82ix2QC1Uc2vQd833szwvsNpLqhubPz8xa"]);
    expect(Buffer.from(s.sequencerKey!).toString("hex")).toBe("22".repeat(32));
    expect(s.bootnodes).toEqual(OP_DEFAULT_BOOTNODES);
    expect(p2pServiceOptions({ ...o, "p2p.bootnodes": "" }, chain)!.bootnodes).toEqual([]);
    expect(p2pServiceOptions({ ...o, "p2p.disable": true }, chain)).toBeUndefined();
    expect(() => p2pServiceOptions({ ...o, "p2p.sequencer.key": "nothex" }, chain)).toThrow(/--p2p.sequencer.key/);
    expect(() => parseCli(["node", "--p2p.listen.tcp", "70000"], {})).toThrow();
  });
});
