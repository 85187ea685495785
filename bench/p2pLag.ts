/**
 * Head lag over P2P gossip on loopback (`node dist/bench/p2pLag.js [seconds] [tx/s]`): a devnet
 * sequencer (1 s blocks) publishes on gossip; follower 1 knows only its ENR (bootnode), follower
 * 2 knows only follower 1 (static peer, discovery off), so follower 2's blocks are relayed. All
 * three have `--follow-rpc` off: gossip is their only source. Transfers flow at `tx/s` so blocks
 * carry work to execute.
 *
 * The bench subscribes to `newHeads` on each node's WebSocket and stamps each block hash when its
 * header arrives. Lag = follower stamp − sequencer stamp for the same hash: the time from the
 * sequencer committing a block (its `newHeads` fires at commit) to the follower committing it
 * (gossip, validation, rebuild, execution, verification, commit). The WebSocket delivery is on
 * both sides and cancels out; the calibration line reports it (the sequencer's stamp minus the
 * block's own timestamp is not used: block timestamps have 1 s resolution).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import WebSocket from "ws";
import { commonFromGenesis } from "../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { compiledScript, spawnChild, type Child } from "./scenario/processes.js";
import { freePorts, LOOPBACK } from "./scenario/ports.js";
import { rpc, waitForRpc } from "./scenario/rpc.js";

const seconds = Number(process.argv[2] ?? 60);
const rate = Number(process.argv[3] ?? 20);

interface Node {
  name: string;
  metrics: string;
  http: string;
  ws: string;
  rollup: string;
  child: Child;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

async function start(name: string, dir: string, extra: string[]): Promise<Node> {
  const [http, ws, auth, rollup, fb, metrics] = await freePorts(6);
  const args = [
    compiledScript("src", "cli", "main.js"), "node",
    "--datadir", join(dir, name),
    "--http.addr", LOOPBACK, "--http.port", String(http),
    "--ws", "--ws.addr", LOOPBACK, "--ws.port", String(ws),
    "--authrpc.addr", LOOPBACK, "--authrpc.port", String(auth),
    "--rollup.addr", LOOPBACK, "--rollup.port", String(rollup),
    "--flashblocks.addr", LOOPBACK, "--flashblocks.port", String(fb),
    "--metrics", "--metrics.addr", LOOPBACK, "--metrics.port", String(metrics),
    "--p2p.el.disable", "--p2p.listen.ip", LOOPBACK,
    "--log.level", "warn",
    ...extra,
  ];
  const child = spawnChild(name, process.execPath, args);
  const node = { name, metrics: `http://${LOOPBACK}:${metrics}/metrics`, http: `http://${LOOPBACK}:${http}`, ws: `ws://${LOOPBACK}:${ws}`, rollup: `http://${LOOPBACK}:${rollup}`, child };
  await waitForRpc(node.http, 60_000, () => child.assertAlive());
  return node;
}

async function self(n: Node): Promise<{ ENR: string; addresses: string[] }> {
  for (let i = 0; i < 300; i++) {
    try {
      return (await rpc(n.rollup, "opp2p_self", [])) as { ENR: string; addresses: string[] };
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${n.name}: opp2p_self never answered`);
}

/** Stamps every new head's hash on arrival. */
function watchHeads(n: Node, into: Map<string, number>): WebSocket {
  const ws = new WebSocket(n.ws);
  ws.on("open", () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })));
  ws.on("message", (data) => {
    const t = performance.now();
    const m = JSON.parse(String(data)) as { params?: { result?: { hash?: string } } };
    const h = m.params?.result?.hash;
    if (h !== undefined && !into.has(h)) into.set(h, t);
  });
  return ws;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "basalt-bench-p2p-"));
  const [pSeq, p1, p2] = await freePorts(3);
  const nodes: Node[] = [];
  const sockets: WebSocket[] = [];
  try {
    const seq = await start("sequencer", dir, ["--dev.block-time", "1", "--p2p.listen.tcp", String(pSeq), "--p2p.listen.udp", String(pSeq)]);
    nodes.push(seq);
    const seqSelf = await self(seq);
    const f1 = await start("follower1", dir, ["--dev.block-time", "0", "--p2p.listen.tcp", String(p1), "--p2p.listen.udp", String(p1), "--p2p.bootnodes", seqSelf.ENR]);
    nodes.push(f1);
    const f1Addr = (await self(f1)).addresses.find((a) => a.includes(`/${LOOPBACK}/tcp/`))!;
    const f2 = await start("follower2", dir, ["--dev.block-time", "0", "--p2p.listen.tcp", String(p2), "--p2p.listen.udp", String(p2), "--p2p.no-discovery", "--p2p.static", f1Addr]);
    nodes.push(f2);
    const stamps = nodes.map(() => new Map<string, number>());
    nodes.forEach((n, i) => sockets.push(watchHeads(n, stamps[i]!)));
    // A second subscriber on the sequencer: the spread between two stamps of one event is the instrument's own noise.
    const seqAgain = new Map<string, number>();
    sockets.push(watchHeads(seq, seqAgain));
    // Both followers on the sequencer's head before measuring.
    for (let i = 0; i < 600; i++) {
      const heads = await Promise.all(nodes.map(async (n) => ((await rpc(n.http, "eth_getBlockByNumber", ["latest", false])) as { hash: string }).hash));
      if (heads.every((h) => h === heads[0])) break;
      await sleep(100);
    }
    const common = commonFromGenesis(devnetGenesis(), "devnet");
    const senders = devAccounts().slice(0, 8);
    const nonces = await Promise.all(senders.map(async (a) => BigInt((await rpc(seq.http, "eth_getTransactionCount", [a.address, "pending"])) as string)));
    const begin = performance.now();
    const end = Date.now() + seconds * 1000;
    let sent = 0;
    while (Date.now() < end) {
      const k = sent % senders.length;
      const tx = createFeeMarket1559Tx(
        { chainId: common.chainId(), nonce: nonces[k]!++, maxPriorityFeePerGas: 10n ** 9n, maxFeePerGas: 10n ** 11n, gasLimit: 21_000n, to: devAccounts()[9]!.address as `0x${string}`, value: 1n },
        { common },
      ).sign(hexToBytes(senders[k]!.privateKey as `0x${string}`));
      await rpc(seq.http, "eth_sendRawTransaction", [bytesToHex(tx.serialize())]).catch(() => undefined);
      sent++;
      await sleep(1000 / rate);
    }
    await sleep(3000);
    const [s, a, b] = stamps as [Map<string, number>, Map<string, number>, Map<string, number>];
    const lags = (m: Map<string, number>): number[] => [...s.entries()].filter(([h, t]) => t >= begin && m.has(h)).map(([h, t]) => m.get(h)! - t);
    const l1 = lags(a);
    const l2 = lags(b);
    const noise = lags(seqAgain).map(Math.abs);
    const measured = [...s.values()].filter((t) => t >= begin).length;
    const line = (name: string, xs: number[]): string =>
      `${name.padEnd(34)} blocks ${String(xs.length).padStart(4)}/${measured}  p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms  p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms  max ${Math.max(...xs).toFixed(1).padStart(6)} ms`;
    console.log(`P2P head lag on loopback: ${seconds} s, ${sent} transfers (${rate}/s), 1 s blocks, ${process.platform}-${process.arch}, node ${process.versions.node}`);
    console.log(line("follower 1 (direct from sequencer)", l1));
    console.log(line("follower 2 (relayed by follower 1)", l2));
    console.log(line("calibration: 2nd sequencer socket", noise));
    // Where the slow blocks went: what each follower's importer did, and its gap fetches.
    for (const f of [f1, f2]) {
      const text = await (await fetch(f.metrics)).text();
      const lines = text.split("\n").filter((l) => /^basalt_p2p_(gossip_import_blocks_total|gap_fetch_blocks_total|blocks_first_seen_total)\{/.test(l));
      console.log(`${f.name}: ${lines.map((l) => l.replace("basalt_p2p_", "")).join("  ")}`);
    }
    const slow = [...s.entries()].filter(([h, t]) => t >= begin && (b.get(h) ?? Infinity) - t > 1000).length;
    if (slow > 0) {
      const seq2 = [...s.entries()].filter(([, t]) => t >= begin).map(([h, t]) => Math.round((b.get(h) ?? NaN) - t));
      console.log(`follower 2: ${slow} block(s) over 1 s behind; lag per block in order (ms): ${seq2.join(" ")}`);
    }
    console.log("lag = follower newHeads stamp − sequencer newHeads stamp in this process (WebSocket delivery on both sides);");
    console.log("calibration = the spread between two subscriptions to the same sequencer event (the measurement's own noise)");
  } finally {
    for (const ws of sockets) ws.close();
    for (const n of nodes.reverse()) await n.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
