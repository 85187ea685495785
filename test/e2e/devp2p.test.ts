/**
 * End-to-end: the execution-layer network of real `basalt node` processes on the devnet (an OP
 * chain, so Base's network: discv5 under `basev0`, eth/68 and eth/69), on free loopback ports.
 *
 * - Node A sequences (1 s blocks) and also runs discovery v4 (`--rollup.discovery.v4`).
 * - Peers written here on @ethereumjs/devp2p's RLPx (test/helpers/devp2pPeer.ts) speak eth/68 or
 *   eth/69 by hand: Status of each version with the devnet's fork id (every fork at genesis:
 *   CRC32 of the genesis hash, no next fork), headers, bodies and receipts (with blooms on eth/68,
 *   without on eth/69) equal to what the JSON-RPC serves, an announced transaction fetched and mined.
 *   An eth/69 peer is held to its range: node A asks it for the header, body and receipts of the
 *   latest block it announces; an honest peer (answering with what A itself serves) stays.
 * - Node B (a second process, no blocks of its own) starts from A's record (`enr:` of
 *   admin_nodeInfo) alone: the two find each other over `basev0` discv5, peer over eth/69, and
 *   B's range check of A makes A serve B a header, a body and receipts.
 * - Hostile traffic — garbage on TCP, a peer announcing a block it cannot serve, receipts with a
 *   bloom on eth/69, a range going backwards or that is no range, a message eth forbids, discovery
 *   datagrams of the wrong protocol id or garbage — is dropped and counted by reason while the
 *   good peers keep being served.
 */
import { ENR } from "@chainsafe/enr";
import { RLP } from "@ethereumjs/rlp";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes, hexToBytes } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { Socket } from "node:net";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { discv5Ping } from "../../src/ops/doctor/p2pProbe.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { TestEthPeer } from "../helpers/devp2pPeer.js";
import { pollUntil } from "../helpers/poll.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { rpcResult, type Json } from "../helpers/rpc.js";

const CHAIN_ID = 845337n;
const GWEI = 10n ** 9n;
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
const uint = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(hex(b)));
const u = (n: bigint): Uint8Array => bigIntToUnpaddedBytes(n);

type Block = { hash: string; number: string; transactions: string[] };
type NodeInfo = { id: string; enode: string; enr?: string; ports: { discovery: number; listener: number }; protocols: { eth: { genesis: string; network: number } } };
type PeerInfo = { id: string; caps: string[]; network: { inbound: boolean }; protocols: { eth: { version: number } } };
type RpcReceipt = { type: string; status: string; cumulativeGasUsed: string; logsBloom: string; logs: unknown[]; depositNonce?: string; depositReceiptVersion?: string };

describe("execution-layer network: eth/69 and basev0 discv5 (e2e)", () => {
  const dirs: string[] = [];
  let a: NodeHandle | undefined;
  let b: NodeHandle | undefined;
  let aInfo: NodeInfo;
  let genesisHash = "";
  let forkHash: Uint8Array;
  let metricsA = "";
  let metricsB = "";
  let good: TestEthPeer | undefined;

  const call = (n: NodeHandle, method: string, params: Json[] = []): Promise<Json> => rpcResult(n.url, method, params);
  const metric = async (url: string, pattern: RegExp): Promise<number> => {
    const m = pattern.exec(await (await fetch(url)).text());
    return m === null ? 0 : Number(m[1]);
  };
  const dropped = (url: string, reason: string): Promise<number> => metric(url, new RegExp(`basalt_p2p_devp2p_dropped_total\\{reason="${reason}"\\} (\\d+)`));

  /** Connects a peer of eth `version` and reads node A's Status. */
  async function connect(version: 68 | 69): Promise<{ peer: TestEthPeer; status: unknown[] }> {
    const p = await TestEthPeer.connect(aInfo.enode, 10_000, version);
    return { peer: p, status: RLP.decode(await p.next(0x00)) as unknown[] };
  }

  /** An eth/69 Status of this peer: the devnet's network, genesis and fork id, and the range given. */
  const status69 = (earliest: bigint, latest: bigint, latestHash: Uint8Array): Uint8Array =>
    RLP.encode([u(69n), u(CHAIN_ID), hexToBytes(genesisHash as `0x${string}`), [forkHash, new Uint8Array(0)], u(earliest), u(latest), latestHash]);

  /** A peer that serves node A's own blocks: every request of A is asked of A and A's answer sent back. */
  async function honestPeer(): Promise<{ peer: TestEthPeer; latest: bigint; latestHash: Uint8Array }> {
    const { peer, status } = await connect(69);
    peer.serve((code, body) => peer.request(code, body));
    const [latest, latestHash] = [uint(status[5] as Uint8Array), status[6] as Uint8Array];
    peer.send(0x00, status69(0n, latest, latestHash));
    return { peer, latest, latestHash };
  }

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dirs.push(await makeTempDir("basalt-e2e-devp2p-"));
    const [mA, mB] = (await getFreePorts(2)) as [number, number];
    metricsA = `http://${LOCALHOST}:${mA}/metrics`;
    metricsB = `http://${LOCALHOST}:${mB}/metrics`;
    const net = ["--port", "0", "--addr", LOCALHOST, "--discovery.addr", LOCALHOST, "--discovery.v5.port", "0", "--metrics"];
    a = await startNode({ datadir: dirs[0]!, args: ["--dev.block-time", "1", ...net, "--discovery.port", "0", "--rollup.discovery.v4", "--metrics.port", String(mA)] });
    // A few blocks (each with its L1-info deposit) and one transfer to serve.
    const common = commonFromGenesis(devnetGenesis(), "devnet");
    const acct = devAccounts()[3]!;
    const tx = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 0n, maxPriorityFeePerGas: GWEI, maxFeePerGas: 10n * GWEI, gasLimit: 21_000n, to: devAccounts()[4]!.address as `0x${string}`, value: 1n }, { common }).sign(hexToBytes(acct.privateKey as `0x${string}`));
    const hash = (await call(a, "eth_sendRawTransaction", [hex(tx.serialize())])) as string;
    await pollUntil("transfer mined", 30_000, async () => ((await call(a!, "eth_getTransactionReceipt", [hash])) === null ? undefined : true), 200);
    await pollUntil("4 blocks", 30_000, async () => (BigInt((await call(a!, "eth_blockNumber")) as string) >= 4n ? true : undefined), 200);
    aInfo = (await call(a, "admin_nodeInfo")) as NodeInfo;
    genesisHash = aInfo.protocols.eth.genesis;
    forkHash = new Uint8Array(4);
    new DataView(forkHash.buffer).setUint32(0, crc32(hexToBytes(genesisHash as `0x${string}`)));
    expect(aInfo.protocols.eth.network).toBe(Number(CHAIN_ID));
  }, 90_000);

  afterAll(async () => {
    good?.close();
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  it("shows its discv5 record in admin_nodeInfo: ip, tcp, udp, opel = the devnet's fork id, base = the client version", async () => {
    expect(aInfo.enr).toMatch(/^enr:/);
    const r = ENR.decodeTxt(aInfo.enr!);
    expect(r.ip).toBe(LOCALHOST);
    expect(r.tcp).toBe(aInfo.ports.listener);
    expect(r.udp).toBeGreaterThan(0);
    // discovery v4 runs too (--rollup.discovery.v4): ports.discovery is its port, not discv5's.
    expect(aInfo.ports.discovery).toBeGreaterThan(0);
    expect(aInfo.ports.discovery).not.toBe(r.udp);
    expect(RLP.encode(r.kvs.get("opel") as never)).toEqual(RLP.encode([[forkHash, new Uint8Array(0)]]));
    expect(new TextDecoder().decode(r.kvs.get("base"))).toBe(await call(a!, "web3_clientVersion"));
    // The record's key is the enode's.
    const id = Buffer.from(secp256k1.Point.fromBytes(r.publicKey).toBytes(false).subarray(1)).toString("hex");
    expect(aInfo.enode.startsWith(`enode://${id}@`)).toBe(true);
  });

  it("advertises eth/68 and eth/69; an eth/68 peer gets eth/68's Status and receipts with blooms", async () => {
    const { peer, status } = await connect(68);
    expect(peer.remoteEthVersions().sort()).toEqual([68, 69]);
    const [version, network, td, head, genesis, forkId] = status as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array[]];
    expect(uint(version)).toBe(68n);
    expect(uint(network)).toBe(CHAIN_ID);
    expect(uint(td)).toBe(0n);
    expect(hex(genesis)).toBe(genesisHash);
    expect(head.length).toBe(32);
    expect(Buffer.from(forkId[0]!).equals(Buffer.from(forkHash))).toBe(true);
    expect(uint(forkId[1]!)).toBe(0n);
    peer.send(0x00, RLP.encode([u(68n), u(CHAIN_ID), new Uint8Array(0), head, genesis, [forkHash, new Uint8Array(0)]]));
    const block = (await call(a!, "eth_getBlockByNumber", ["0x2", false])) as Block;
    const [receipts] = (await peer.request(0x0f, [hexToBytes(block.hash as `0x${string}`)])) as (Uint8Array | unknown[])[][];
    const rpc = (await call(a!, "eth_getBlockReceipts", [block.hash])) as RpcReceipt[];
    expect(receipts).toHaveLength(rpc.length);
    receipts!.forEach((r, j) => {
      const typed = r instanceof Uint8Array;
      const fields = (typed ? RLP.decode(r.subarray(1)) : r) as Uint8Array[];
      expect(hex(fields[2]!)).toBe(rpc[j]!.logsBloom);
    });
    await pollUntil("eth/68 peer listed", 10_000, async () => (((await call(a!, "admin_peers")) as PeerInfo[]).some((p) => p.protocols.eth.version === 68) ? true : undefined), 100);
    peer.close();
    await pollUntil("eth/68 peer gone", 10_000, async () => ((await call(a!, "net_peerCount")) === "0x0" ? true : undefined), 100);
  });

  it("exchanges eth/69's Status (range, fork id), passes the range check as an honest peer, and is listed", async () => {
    const { peer, status } = await connect(69);
    good = peer;
    const [version, network, genesis, forkId, earliest, latest, latestHash] = status as [Uint8Array, Uint8Array, Uint8Array, Uint8Array[], Uint8Array, Uint8Array, Uint8Array];
    expect(uint(version)).toBe(69n);
    expect(uint(network)).toBe(CHAIN_ID);
    expect(hex(genesis)).toBe(genesisHash);
    expect(Buffer.from(forkId[0]!).equals(Buffer.from(forkHash))).toBe(true);
    expect(uint(earliest)).toBe(0n);
    const block = (await call(a!, "eth_getBlockByNumber", [`0x${uint(latest).toString(16)}`, false])) as Block;
    expect(hex(latestHash)).toBe(block.hash);
    // Serve what A serves, and claim A's range: A checks it (header, body, receipts) and keeps the peer.
    const served = { headers: 0, bodies: 0, receipts: 0 };
    peer.serve(async (code, body) => {
      if (code === 0x03) served.headers++;
      if (code === 0x05) served.bodies++;
      if (code === 0x0f) served.receipts++;
      return peer.request(code, body);
    });
    peer.send(0x00, status69(0n, uint(latest), latestHash));
    await pollUntil("A checked the range (header, body, receipts)", 15_000, async () => (served.receipts >= 1 ? true : undefined), 100);
    expect(served).toEqual({ headers: 1, bodies: 1, receipts: 1 });
    await pollUntil("net_peerCount 1", 10_000, async () => ((await call(a!, "net_peerCount")) === "0x1" ? true : undefined), 100);
    const peers = (await call(a!, "admin_peers")) as PeerInfo[];
    expect(peers).toHaveLength(1);
    expect(peers[0]!.id).toBe(Buffer.from(keccak_256(peer.id)).toString("hex"));
    expect(peers[0]!.protocols.eth.version).toBe(69);
    expect(peers[0]!.caps).toEqual(["eth/69"]);
    expect(peer.closed).toBe(false);
  });

  it("serves headers, bodies and eth/69 receipts (no bloom, deposit nonce and version after the logs) equal to the JSON-RPC's", async () => {
    const p = good!;
    const blocks: Block[] = [];
    for (let n = 1; n <= 4; n++) blocks.push((await call(a!, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as Block);
    const byNumber = await p.request(0x03, [u(1n), u(4n), new Uint8Array(0), new Uint8Array(0)]);
    expect(byNumber.map((h) => hex(keccak_256(RLP.encode(h as never))))).toEqual(blocks.map((x) => x.hash));
    const byHash = await p.request(0x03, [hexToBytes(blocks[3]!.hash as `0x${string}`), u(2n), u(1n), Uint8Array.of(1)]);
    expect(byHash.map((h) => hex(keccak_256(RLP.encode(h as never))))).toEqual([blocks[3]!.hash, blocks[1]!.hash]);
    const hashes = blocks.map((x) => hexToBytes(x.hash as `0x${string}`));
    const bodies = (await p.request(0x05, hashes)) as unknown[][];
    bodies.forEach((body, i) => {
      const txs = body[0] as (Uint8Array | unknown[])[];
      expect(txs.map((t) => hex(keccak_256(t instanceof Uint8Array ? t : RLP.encode(t as never))))).toEqual(blocks[i]!.transactions);
    });
    const receipts = (await p.request(0x0f, hashes)) as Uint8Array[][][];
    expect(receipts).toHaveLength(4);
    for (let i = 0; i < 4; i++) {
      const rpc = (await call(a!, "eth_getBlockReceipts", [blocks[i]!.hash])) as RpcReceipt[];
      expect(receipts[i]!).toHaveLength(rpc.length);
      receipts[i]!.forEach((fields, j) => {
        const want = rpc[j]!;
        // [tx-type, status, cumulative-gas, logs, depositNonce?, depositReceiptVersion?]: a list even for typed receipts.
        expect(Array.isArray(fields)).toBe(true);
        expect(uint(fields[0]!)).toBe(BigInt(want.type));
        expect(uint(fields[1]!)).toBe(BigInt(want.status));
        expect(uint(fields[2]!)).toBe(BigInt(want.cumulativeGasUsed));
        expect((fields[3] as unknown as unknown[]).length).toBe(want.logs.length);
        if (want.depositNonce !== undefined) expect(uint(fields[4]!)).toBe(BigInt(want.depositNonce));
        if (want.depositReceiptVersion !== undefined) expect(uint(fields[5]!)).toBe(BigInt(want.depositReceiptVersion));
        if (want.depositNonce === undefined) expect(fields).toHaveLength(4);
        expect(fields.some((f) => f instanceof Uint8Array && f.length === 256)).toBe(false);
      });
    }
    expect(await p.request(0x05, [new Uint8Array(32)])).toEqual([]);
  });

  it("fetches an announced transaction from an eth/69 peer and mines it", async () => {
    const p = good!;
    const common = commonFromGenesis(devnetGenesis(), "devnet");
    const acct = devAccounts()[5]!;
    const tx = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 0n, maxPriorityFeePerGas: GWEI, maxFeePerGas: 10n * GWEI, gasLimit: 21_000n, to: devAccounts()[6]!.address as `0x${string}`, value: 7n }, { common }).sign(hexToBytes(acct.privateKey as `0x${string}`));
    const raw = tx.serialize();
    const hash = keccak_256(raw);
    p.send(0x08, RLP.encode([Uint8Array.of(2), [u(BigInt(raw.length))], [hash]]));
    const ask = RLP.decode(await p.next(0x09)) as [Uint8Array, Uint8Array[]];
    expect(ask[1].map(hex)).toEqual([hex(hash)]);
    p.send(0x0a, RLP.encode([ask[0], [raw]]));
    const receipt = await pollUntil("announced transaction mined", 30_000, async () => ((await call(a!, "eth_getTransactionReceipt", [hex(hash)])) ?? undefined) as Json | undefined, 200);
    expect((receipt as { status: string }).status).toBe("0x1");
  });

  it("a second basalt node started from A's record alone finds A over basev0 discv5, peers over eth/69, and is served a header, a body and receipts", async () => {
    b = await startNode({ datadir: dirs[1]!, args: ["--dev.block-time", "0", "--port", "0", "--addr", LOCALHOST, "--discovery.addr", LOCALHOST, "--discovery.v5.port", "0", "--bootnodes", aInfo.enr!, "--metrics", "--metrics.port", metricsB.split(":")[2]!.split("/")[0]!] });
    const bInfo = await pollUntil("B's execution-layer network up", 30_000, async () => ((await call(b!, "admin_nodeInfo")) ?? undefined) as NodeInfo | undefined, 100);
    // B runs no discovery v4 (the devnet is an OP chain): its only discovery port is discv5's.
    expect(bInfo.ports.discovery).toBe(ENR.decodeTxt(bInfo.enr!).udp);
    const listed = async (n: NodeHandle, id: string): Promise<PeerInfo | undefined> => ((await call(n, "admin_peers")) as PeerInfo[]).find((p) => p.id === id);
    const aOnB = await pollUntil(`B peers with A\n${b.outputTail(20)}`, 60_000, () => listed(b!, aInfo.id), 250);
    const bOnA = await pollUntil("A lists B", 20_000, () => listed(a!, bInfo.id), 250);
    for (const p of [aOnB, bOnA]) {
      expect(p.protocols.eth.version).toBe(69);
      expect(p.caps).toEqual(["eth/68", "eth/69"]);
    }
    // B checked A's range: A answered its GetBlockHeaders, GetBlockBodies and GetReceipts.
    await pollUntil(`B received A's receipts\n${b.outputTail(20)}`, 30_000, async () => ((await metric(metricsB, /basalt_p2p_devp2p_messages_total\{message="Receipts",direction="in"\} (\d+)/)) >= 1 ? true : undefined), 250);
    for (const m of ["BlockHeaders", "BlockBodies", "Receipts"]) {
      expect(await metric(metricsB, new RegExp(`basalt_p2p_devp2p_messages_total\\{message="${m}",direction="in"\\} (\\d+)`))).toBeGreaterThanOrEqual(1);
    }
    expect(await metric(metricsA, /basalt_p2p_devp2p_messages_total\{message="GetReceipts",direction="in"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    expect(await metric(metricsB, /basalt_p2p_discovery_nodes\{protocol="discv5-basev0"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    // A started with no bootnode: B is in its table only because the two spoke basev0 discv5.
    await pollUntil("B in A's discv5 table", 30_000, async () => ((await metric(metricsA, /basalt_p2p_discovery_nodes\{protocol="discv5-basev0"\} (\d+)/)) >= 1 ? true : undefined), 250);
    expect(await metric(metricsB, /basalt_p2p_devp2p_eth_peers\{version="69"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    const text = await (await fetch(metricsB)).text();
    expect(text).not.toMatch(/basalt_p2p_devp2p_dropped_total\{reason="(range|receipts|body|status_)/);
    // Still peered.
    expect(await listed(b, aInfo.id)).toBeDefined();
  }, 120_000);

  it("drops a peer announcing a block it cannot serve, receipts with a bloom, a range going backwards or that is no range; counts each; keeps the good peers", async () => {
    // 1. Announces a latest block whose header it cannot serve.
    const liar = await connect(69);
    liar.peer.serve(async (code) => (code === 0x03 ? [] : undefined));
    liar.peer.send(0x00, status69(0n, 3n, randomBytes(32)));
    await liar.peer.waitClosed(15_000);

    // 2. Serves A's own header and body, then A's receipts with a bloom put back in.
    const blooming = await connect(69);
    const [bl, blHash] = [uint(blooming.status[5] as Uint8Array), blooming.status[6] as Uint8Array];
    blooming.peer.serve(async (code, body) => {
      const items = await blooming.peer.request(code, body);
      if (code !== 0x0f) return items;
      return (items as unknown[][][]).map((block) => block.map((r) => [r[0], r[1], r[2], new Uint8Array(256), ...r.slice(3)]));
    });
    blooming.peer.send(0x00, status69(0n, bl, blHash));
    await blooming.peer.waitClosed(15_000);

    // 3. An honest peer whose next range update goes backwards; 4. one whose update is no range.
    const back = await honestPeer();
    back.peer.send(0x11, RLP.encode([u(0n), u(back.latest - 1n), randomBytes(32)]));
    await back.peer.waitClosed(15_000);
    const noRange = await honestPeer();
    noRange.peer.send(0x11, RLP.encode([u(noRange.latest + 5n), u(noRange.latest + 1n), randomBytes(32)]));
    await noRange.peer.waitClosed(15_000);

    // 5. A message eth/69 forbids after the merge (NewBlock).
    const newBlock = await honestPeer();
    newBlock.peer.send(0x07, RLP.encode([new Uint8Array(0)]));
    await newBlock.peer.waitClosed(15_000);

    await pollUntil("faults counted", 15_000, async () => {
      const counts = await Promise.all(["rangeUnservable", "receiptsWithBloom", "rangeBackwards", "rangeInvalid", "invalid"].map((r) => dropped(metricsA, r)));
      return counts.every((n) => n >= 1) ? true : undefined;
    }, 200);
    expect(good!.closed).toBe(false);
  }, 90_000);

  it("drops garbage on TCP and discovery datagrams of the wrong protocol id or no protocol, counts them, and keeps serving", async () => {
    const m = /@([^:]+):(\d+)/.exec(aInfo.enode)!;
    const garbage = new Socket();
    await new Promise<void>((resolve, reject) => {
      garbage.once("error", reject);
      garbage.connect(Number(m[2]), m[1]!, () => resolve());
    });
    garbage.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => garbage.once("close", () => resolve()));
    garbage.write(Buffer.concat([Buffer.from([0x01, 0x00]), randomBytes(1_024)]));
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error("garbage connection still open")), 15_000))]);

    // discv5: a standard ("discv5") PING to A's basev0 port goes unanswered; garbage too.
    const v5 = ENR.decodeTxt(aInfo.enr!).udp!;
    await expect(discv5Ping(aInfo.enr!, LOCALHOST, v5, 1_500)).rejects.toThrow(/no discv5 PONG|within/);
    // A basev0 PING gets its PONG.
    expect((await discv5Ping(aInfo.enr!, LOCALHOST, v5, 5_000, "basev0")).latencyMs).toBeGreaterThanOrEqual(0);
    // discv4 (on through --rollup.discovery.v4): a truncated packet and one with a valid hash but no recoverable signature.
    const udp = createSocket("udp4");
    const body = Buffer.concat([Buffer.alloc(64, 0xff), Buffer.from([0x00, 0x01]), Buffer.from(RLP.encode([Uint8Array.of(4)]))]);
    const badSig = Buffer.concat([Buffer.from(keccak_256(body)), body]);
    for (const [pkt, port] of [[Buffer.from("truncated"), aInfo.ports.discovery], [badSig, aInfo.ports.discovery], [randomBytes(90), v5]] as const) {
      await new Promise<void>((resolve) => udp.send(pkt, port, LOCALHOST, () => resolve()));
    }
    udp.close();

    await pollUntil("datagrams counted", 15_000, async () => {
      const [wrong, bad5, bad4] = await Promise.all([dropped(metricsA, "discv5WrongProtocol"), dropped(metricsA, "discv5Invalid"), dropped(metricsA, "discv4Invalid")]);
      return wrong >= 1 && bad5 >= 1 && bad4 >= 2 ? true : undefined;
    }, 200);

    // The good peer is still served, and B is still peered.
    const headers = await good!.request(0x03, [u(0n), u(1n), new Uint8Array(0), new Uint8Array(0)]);
    expect(hex(keccak_256(RLP.encode(headers[0] as never)))).toBe(genesisHash);
    expect(((await call(b!, "admin_peers")) as PeerInfo[]).some((p) => p.id === aInfo.id)).toBe(true);
    expect(await metric(metricsA, /basalt_p2p_bytes_total\{protocol="devp2p",direction="in"\} (\d+)/)).toBeGreaterThan(0);
    expect(await metric(metricsA, /basalt_p2p_discovery_nodes\{protocol="discv4"\} (\d+)/)).toBeGreaterThanOrEqual(0);
  });

  it("forgets a peer after it disconnects", async () => {
    const id = Buffer.from(keccak_256(good!.id)).toString("hex");
    good!.close();
    await pollUntil("good peer gone", 15_000, async () => (((await call(a!, "admin_peers")) as PeerInfo[]).some((p) => p.id === id) ? undefined : true), 100);
    good = undefined;
  });
});
