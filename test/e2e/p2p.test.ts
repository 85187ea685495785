/**
 * Consensus-layer P2P end to end, with real `basalt` processes on loopback: a devnet sequencer
 * publishes its blocks on gossip; follower 1 knows only the sequencer's ENR (bootnode), follower 2
 * knows only follower 1 (a static peer, discovery off), so every block reaches follower 2 through
 * follower 1's relay. No --follow-rpc anywhere: the followers have only P2P.
 *
 * - A transaction sent to follower 2 is forwarded (`--sequencer-http`) to the sequencer and shows up
 *   in both followers' blocks.
 * - Split and rejoin: follower 1 is killed; follower 2 is cut off while the sequencer goes on;
 *   follower 1 restarts with the same datadir (same node key, so follower 2's static redial finds
 *   it), closes its gap by payload_by_number from the sequencer, and follower 2 closes its own from
 *   follower 1; all three end on the same head.
 */
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { getFreePorts } from "../helpers/ports.js";
import { rpcResult, type Json } from "../helpers/rpc.js";

type Obj = { [k: string]: Json };
const common: Common = commonFromGenesis(devnetGenesis(), "devnet");
const GWEI = 10n ** 9n;

const tempDirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of tempDirs) await removeDir(d);
});

async function dir(): Promise<string> {
  const d = await makeTempDir("basalt-e2e-p2p-");
  tempDirs.push(d);
  return d;
}

const head = async (n: NodeHandle): Promise<Obj> => (await rpcResult(n.url, "eth_getBlockByNumber", ["latest", false])) as Obj;

async function sameHead(nodes: NodeHandle[], what: string, timeoutMs = 60_000): Promise<string> {
  return pollUntil(what, timeoutMs, async () => {
    const hs = await Promise.all(nodes.map(head));
    const h = hs[0]!.hash as string;
    return hs.every((x) => x.hash === h) && Number(hs[0]!.number) > 0 ? h : undefined;
  }, 200);
}

/** op-node's PeerInfo of a node, once its P2P thread runs (it starts after the RPC answers). */
async function p2pSelf(n: NodeHandle): Promise<Obj> {
  return pollUntil(`opp2p_self of ${n.url}\n${n.outputTail(10)}`, 30_000, async () => {
    try {
      return (await rpcResult(n.rollupUrl, "opp2p_self", [])) as Obj;
    } catch {
      return undefined;
    }
  }, 100);
}

function p2pArgs(port: number): string[] {
  return ["--p2p.listen.ip", "127.0.0.1", "--p2p.listen.tcp", String(port), "--p2p.listen.udp", String(port)];
}

describe("P2P gossip of unsafe blocks (e2e)", () => {
  it("sequencer → follower 1 (bootnode ENR) → follower 2 (static peer only); a forwarded transaction reaches both; split and rejoin", async () => {
    const [pSeq, p1, p2] = await getFreePorts(3);
    const seq = await startNode({ datadir: await dir(), args: ["--dev.block-time", "1", ...p2pArgs(pSeq!)] });
    const seqSelf = await p2pSelf(seq);
    expect(String(seqSelf.ENR)).toMatch(/^enr:/);
    const d1 = await dir();
    const f1Args = ["--dev.block-time", "0", ...p2pArgs(p1!), "--p2p.bootnodes", seqSelf.ENR as string, "--sequencer-http", seq.url];
    let f1 = await startNode({ datadir: d1, args: f1Args });
    const f1Self = await p2pSelf(f1);
    const f1Addr = (f1Self.addresses as string[]).find((a) => a.includes("/127.0.0.1/tcp/"))!;
    expect(f1Addr, JSON.stringify(f1Self.addresses)).toBeDefined();
    const f2 = await startNode({ datadir: await dir(), args: ["--dev.block-time", "0", ...p2pArgs(p2!), "--p2p.no-discovery", "--p2p.static", f1Addr, "--sequencer-http", f1.url] });

    // Blocks flow by gossip alone to both followers.
    await sameHead([seq, f1, f2], `one head on all three\n${f2.outputTail(20)}`);
    const peers = (await rpcResult(f2.rollupUrl, "opp2p_peers", [true])) as Obj;
    expect(Object.keys(peers.peers as Obj)).toEqual([f1Self.peerID]);

    // A transaction sent to follower 2: forwarded through follower 1 to the sequencer, included, gossiped back.
    const a = devAccounts()[3]!;
    const nonce = BigInt((await rpcResult(seq.url, "eth_getTransactionCount", [a.address, "latest"])) as string);
    const raw = bytesToHex(
      createFeeMarket1559Tx({ chainId: common.chainId(), nonce, maxPriorityFeePerGas: GWEI, maxFeePerGas: 20n * GWEI, gasLimit: 21_000n, to: devAccounts()[4]!.address as `0x${string}`, value: 1234n }, { common }).sign(
        hexToBytes(a.privateKey as `0x${string}`),
      ).serialize(),
    );
    const hash = bytesToHex(keccak_256(hexToBytes(raw as `0x${string}`)));
    expect(await rpcResult(f2.url, "eth_sendRawTransaction", [raw])).toBe(hash);
    for (const n of [f1, f2]) {
      const r = await pollUntil(`receipt on ${n.url}`, 30_000, async () => ((await rpcResult(n.url, "eth_getTransactionReceipt", [hash])) as Obj | null) ?? undefined, 200);
      expect(r.status).toBe("0x1");
    }

    // Split: follower 1 goes away; follower 2 has no other path to the sequencer.
    await f1.stop();
    const at = Number((await head(f2)).number);
    await pollUntil("the sequencer moving on", 30_000, async () => (Number((await head(seq)).number) >= at + 4 ? true : undefined), 200);
    expect(Number((await head(f2)).number)).toBeLessThanOrEqual(at + 1);
    // Rejoin: the same datadir keeps the node key, so follower 2's static redial reaches it again.
    const [metricsPort] = await getFreePorts(1);
    f1 = await startNode({ datadir: d1, args: [...f1Args, "--metrics", "--metrics.addr", "127.0.0.1", "--metrics.port", String(metricsPort)] });
    const again = await p2pSelf(f1);
    expect(again.peerID).toBe(f1Self.peerID);
    const h = await sameHead([seq, f1, f2], `one head after the rejoin\n${f1.outputTail(20)}\n${f2.outputTail(20)}`, 90_000);
    expect(h).toMatch(/^0x/);
    // Follower 1 closed its gap over req/resp (payload_by_number from the sequencer): gossip and req/resp were all it had.
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const sample = (name: string): number => Number(metrics.split("\n").find((l) => l.startsWith(name))?.split(" ").pop() ?? 0);
    expect(sample('basalt_p2p_gap_fetch_blocks_total{result="ok"}'), metrics.split("\n").filter((l) => l.startsWith("basalt_p2p_")).join("\n")).toBeGreaterThan(0);
    expect(sample('basalt_p2p_blocks_first_seen_total{source="p2p"}')).toBeGreaterThan(0);
  }, 240_000);
});
