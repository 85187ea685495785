/**
 * End-to-end: a devnet `basalt node` with its execution-layer network on free loopback ports,
 * and a peer written here on @ethereumjs/devp2p's RLPx (test/helpers/devp2pPeer.ts) that speaks
 * eth/68 by hand. The Status carries the devnet's fork id (every fork at genesis: CRC32 of the
 * genesis hash, no next fork); headers, bodies and receipts equal what the JSON-RPC serves; an
 * announced transaction is fetched and mined; admin_peers / net_peerCount follow the peer.
 * Hostile traffic (garbage on TCP, bad discovery packets, a broken eth message) is dropped and
 * counted while the good peer keeps being served.
 */
import { RLP } from "@ethereumjs/rlp";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { Socket } from "node:net";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { TestEthPeer } from "../helpers/devp2pPeer.js";
import { pollUntil } from "../helpers/poll.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { rpcResult, type Json } from "../helpers/rpc.js";

const CHAIN_ID = 845337n;
const GWEI = 10n ** 9n;
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
const uint = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(hex(b)));

type Block = { hash: string; number: string; transactions: string[] };

describe("execution-layer network (e2e)", () => {
  let datadir = "";
  let node: NodeHandle | undefined;
  let url = "";
  let metricsUrl = "";
  let enode = "";
  let genesisHash = "";
  let peer: TestEthPeer | undefined;
  let udpPort = 0;

  const call = (method: string, params: Json[] = []): Promise<Json> => rpcResult(url, method, params);
  const metric = async (pattern: RegExp): Promise<number> => {
    const text = await (await fetch(metricsUrl)).text();
    const m = pattern.exec(text);
    return m === null ? 0 : Number(m[1]);
  };

  /** Connects a test peer and completes the eth Status exchange with the expected fork id. */
  async function handshake(): Promise<{ peer: TestEthPeer; status: Uint8Array[] }> {
    const p = await TestEthPeer.connect(enode);
    const status = RLP.decode(await p.next(0x00)) as Uint8Array[];
    const forkHash = Uint8Array.from(Buffer.alloc(4));
    new DataView(forkHash.buffer).setUint32(0, crc32(hexToBytes(genesisHash as `0x${string}`)));
    p.send(0x00, RLP.encode([bigIntToUnpaddedBytes(68n), bigIntToUnpaddedBytes(CHAIN_ID), new Uint8Array(0), status[3]!, hexToBytes(genesisHash as `0x${string}`), [forkHash, new Uint8Array(0)]]));
    return { peer: p, status };
  }

  let reqId = 1n;
  async function request(p: TestEthPeer, code: number, body: unknown): Promise<unknown[]> {
    const id = reqId++;
    p.send(code, RLP.encode([bigIntToUnpaddedBytes(id), body] as never));
    const reply = RLP.decode(await p.next(code + 1)) as unknown[];
    expect(uint(reply[0] as Uint8Array)).toBe(id);
    return reply[1] as unknown[];
  }

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-devp2p-");
    const [metricsPort] = (await getFreePorts(1)) as [number];
    metricsUrl = `http://${LOCALHOST}:${metricsPort}/metrics`;
    node = await startNode({
      datadir,
      args: ["--dev.block-time", "1", "--port", "0", "--discovery.port", "0", "--addr", LOCALHOST, "--discovery.addr", LOCALHOST, "--metrics", "--metrics.port", String(metricsPort)],
    });
    url = node.url;
    // A few blocks (each with its L1-info deposit) and one transfer to serve.
    const common = commonFromGenesis(devnetGenesis(), "devnet");
    const a = devAccounts()[3]!;
    const tx = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 0n, maxPriorityFeePerGas: GWEI, maxFeePerGas: 10n * GWEI, gasLimit: 21_000n, to: devAccounts()[4]!.address as `0x${string}`, value: 1n }, { common }).sign(hexToBytes(a.privateKey as `0x${string}`));
    const hash = (await call("eth_sendRawTransaction", [hex(tx.serialize())])) as string;
    await pollUntil("transfer mined", 30_000, async () => ((await call("eth_getTransactionReceipt", [hash])) === null ? undefined : true), 200);
    await pollUntil("4 blocks", 30_000, async () => (BigInt((await call("eth_blockNumber")) as string) >= 4n ? true : undefined), 200);
    const info = (await call("admin_nodeInfo")) as { enode: string; ports: { discovery: number; listener: number }; protocols: { eth: { genesis: string; network: number } } };
    enode = info.enode;
    genesisHash = info.protocols.eth.genesis;
    udpPort = info.ports.discovery;
    expect(info.protocols.eth.network).toBe(Number(CHAIN_ID));
    expect(info.ports.listener).toBeGreaterThan(0);
  }, 90_000);

  afterAll(async () => {
    peer?.close();
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("exchanges Status with the devnet's fork id and lists the peer", async () => {
    expect(await call("net_listening")).toBe(true);
    const h = await handshake();
    peer = h.peer;
    const [version, network, td, head, genesis, forkId] = h.status as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array[]];
    expect(uint(version)).toBe(68n);
    expect(uint(network)).toBe(CHAIN_ID);
    expect(uint(td)).toBe(0n);
    expect(hex(genesis)).toBe(genesisHash);
    expect(head.length).toBe(32);
    // Every devnet fork is active at genesis: the fork hash is CRC32(genesis hash), no next fork (EIP-2124).
    expect(Buffer.from(forkId[0]!).readUInt32BE(0)).toBe(crc32(genesis));
    expect(uint(forkId[1]!)).toBe(0n);
    await pollUntil("net_peerCount 1", 10_000, async () => ((await call("net_peerCount")) === "0x1" ? true : undefined), 100);
    const peers = (await call("admin_peers")) as { id: string; network: { inbound: boolean }; protocols: { eth: { version: number } } }[];
    expect(peers).toHaveLength(1);
    expect(peers[0]!.id).toBe(Buffer.from(keccak_256(peer.id)).toString("hex"));
    expect(peers[0]!.network.inbound).toBe(true);
    expect(peers[0]!.protocols.eth.version).toBe(68);
  });

  it("serves headers, bodies and receipts equal to the JSON-RPC's", async () => {
    const p = peer!;
    const blocks: Block[] = [];
    for (let n = 1; n <= 4; n++) blocks.push((await call("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as Block);
    // By number, forward, no skip.
    const byNumber = (await request(p, 0x03, [bigIntToUnpaddedBytes(1n), bigIntToUnpaddedBytes(4n), new Uint8Array(0), new Uint8Array(0)])) as unknown[];
    expect(byNumber.map((h) => hex(keccak_256(RLP.encode(h as never))))).toEqual(blocks.map((b) => b.hash));
    // By hash, reverse, skip 1: blocks 4 and 2.
    const byHash = (await request(p, 0x03, [hexToBytes(blocks[3]!.hash as `0x${string}`), bigIntToUnpaddedBytes(2n), bigIntToUnpaddedBytes(1n), Uint8Array.of(1)])) as unknown[];
    expect(byHash.map((h) => hex(keccak_256(RLP.encode(h as never))))).toEqual([blocks[3]!.hash, blocks[1]!.hash]);
    // Bodies: the transaction hashes of each block.
    const hashes = blocks.map((b) => hexToBytes(b.hash as `0x${string}`));
    const bodies = (await request(p, 0x05, hashes)) as unknown[][];
    expect(bodies).toHaveLength(4);
    bodies.forEach((body, i) => {
      const txs = body[0] as (Uint8Array | unknown[])[];
      expect(txs.map((t) => hex(keccak_256(t instanceof Uint8Array ? t : RLP.encode(t as never))))).toEqual(blocks[i]!.transactions);
    });
    // Receipts: network form (typed ones as type ‖ rlp([status, cumulativeGas, bloom, logs, depositNonce?, depositReceiptVersion?])).
    const receipts = (await request(p, 0x0f, hashes)) as (Uint8Array | unknown[])[][];
    expect(receipts).toHaveLength(4);
    for (let i = 0; i < 4; i++) {
      const rpc = (await call("eth_getBlockReceipts", [blocks[i]!.hash])) as { type: string; status: string; cumulativeGasUsed: string; logsBloom: string; logs: unknown[]; depositNonce?: string; depositReceiptVersion?: string }[];
      expect(receipts[i]!).toHaveLength(rpc.length);
      receipts[i]!.forEach((r, j) => {
        const typed = r instanceof Uint8Array;
        const fields = (typed ? RLP.decode(r.subarray(1)) : r) as Uint8Array[];
        const want = rpc[j]!;
        expect(BigInt(typed ? r[0]! : 0)).toBe(BigInt(want.type));
        expect(uint(fields[0]!)).toBe(BigInt(want.status));
        expect(uint(fields[1]!)).toBe(BigInt(want.cumulativeGasUsed));
        expect(hex(fields[2]!)).toBe(want.logsBloom);
        expect((fields[3] as unknown as unknown[]).length).toBe(want.logs.length);
        if (want.depositNonce !== undefined) expect(uint(fields[4]!)).toBe(BigInt(want.depositNonce));
        if (want.depositReceiptVersion !== undefined) expect(uint(fields[5]!)).toBe(BigInt(want.depositReceiptVersion));
        if (want.depositNonce === undefined) expect(fields).toHaveLength(4);
      });
    }
    // An unknown hash is skipped.
    expect(await request(p, 0x05, [new Uint8Array(32)])).toEqual([]);
  });

  it("fetches an announced transaction and mines it", async () => {
    const p = peer!;
    const common = commonFromGenesis(devnetGenesis(), "devnet");
    const a = devAccounts()[5]!;
    const tx = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 0n, maxPriorityFeePerGas: GWEI, maxFeePerGas: 10n * GWEI, gasLimit: 21_000n, to: devAccounts()[6]!.address as `0x${string}`, value: 7n }, { common }).sign(hexToBytes(a.privateKey as `0x${string}`));
    const raw = tx.serialize();
    const hash = keccak_256(raw);
    p.send(0x08, RLP.encode([Uint8Array.of(2), [bigIntToUnpaddedBytes(BigInt(raw.length))], [hash]]));
    const ask = RLP.decode(await p.next(0x09)) as [Uint8Array, Uint8Array[]];
    expect(ask[1].map(hex)).toEqual([hex(hash)]);
    p.send(0x0a, RLP.encode([ask[0], [raw]]));
    const receipt = await pollUntil("announced transaction mined", 30_000, async () => ((await call("eth_getTransactionReceipt", [hex(hash)])) ?? undefined) as Json | undefined, 200);
    expect((receipt as { status: string }).status).toBe("0x1");
  });

  it("drops garbage, bad discovery packets and broken eth messages, counts them, and keeps serving", async () => {
    // Garbage on TCP: the connection is closed.
    const m = /@([^:]+):(\d+)/.exec(enode)!;
    const garbage = new Socket();
    await new Promise<void>((resolve, reject) => {
      garbage.once("error", reject);
      garbage.connect(Number(m[2]), m[1]!, () => resolve());
    });
    garbage.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => garbage.once("close", () => resolve()));
    garbage.write(Buffer.concat([Buffer.from([0x01, 0x00]), randomBytes(1_024)]));
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error("garbage connection still open")), 15_000))]);

    // Discovery v4: a truncated packet and one with a valid hash but an unrecoverable signature.
    const udp = createSocket("udp4");
    const body = Buffer.concat([Buffer.alloc(64, 0xff), Buffer.from([0x00, 0x01]), Buffer.from(RLP.encode([Uint8Array.of(4)]))]);
    const badSig = Buffer.concat([Buffer.from(keccak_256(body)), body]);
    for (const pkt of [Buffer.from("truncated"), badSig]) await new Promise<void>((resolve) => udp.send(pkt, udpPort, LOCALHOST, () => resolve()));
    udp.close();

    // A second peer sends a message eth/68 forbids after the merge (NewBlock): it is disconnected.
    const bad = (await handshake()).peer;
    await pollUntil("second peer up", 10_000, async () => ((await call("net_peerCount")) === "0x2" ? true : undefined), 100);
    bad.send(0x07, RLP.encode([new Uint8Array(0)]));
    await bad.waitClosed(10_000);

    await pollUntil("drops counted", 15_000, async () => {
      const invalid = await metric(/basalt_p2p_devp2p_dropped_total\{reason="invalid"\} (\d+)/);
      const discv4 = await metric(/basalt_p2p_devp2p_dropped_total\{reason="discv4Invalid"\} (\d+)/);
      return invalid >= 2 && discv4 >= 2 ? true : undefined;
    }, 200);

    // The good peer is still served.
    const headers = (await request(peer!, 0x03, [bigIntToUnpaddedBytes(0n), bigIntToUnpaddedBytes(1n), new Uint8Array(0), new Uint8Array(0)])) as unknown[];
    expect(hex(keccak_256(RLP.encode(headers[0] as never)))).toBe(genesisHash);
    // The worker reports its counters every half second: wait for the last request to show.
    await pollUntil("GetBlockHeaders counted", 10_000, async () => ((await metric(/basalt_p2p_devp2p_messages_total\{message="GetBlockHeaders",direction="in"\} (\d+)/)) >= 3 ? true : undefined), 200);
    expect(await metric(/basalt_p2p_peers\{protocol="devp2p",direction="inbound"\} (\d+)/)).toBe(1);
    expect(await metric(/basalt_p2p_bytes_total\{protocol="devp2p",direction="in"\} (\d+)/)).toBeGreaterThan(0);
  });

  it("forgets the peer after it disconnects", async () => {
    peer!.close();
    await pollUntil("net_peerCount 0", 15_000, async () => ((await call("net_peerCount")) === "0x0" ? true : undefined), 100);
    expect(await call("admin_peers")).toEqual([]);
    peer = undefined;
  });
});
