/**
 * End-to-end: the devnet sequencer builds its blocks as flashblocks and streams them. One
 * `basalt node` (1 s blocks, a flashblock every 100 ms) on free ports:
 * - the startup line names the stream URL;
 * - a transaction sent with eth_sendRawTransaction shows up in a flashblock with index > 0 that
 *   arrives before the next block's flashblock 0 (published only once the block is sealed);
 * - the sealed block (eth_getBlockByNumber) holds exactly the transactions of its frames, in order;
 * - `?format=text` gives text frames of the JSON, the default binary brotli frames.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { decodeFlashblockFrame, type FlashblocksPayloadV1 } from "../../src/flashblocks/codec.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcResult, type Json } from "../helpers/rpc.js";

/** Bound of each wait below. */
const WAIT_MS = 8_000;
const GWEI = 10n ** 9n;

interface Received {
  payload: FlashblocksPayloadV1;
  isBinary: boolean;
  raw: Buffer;
}

/** A subscriber recording every frame, decoded, in arrival order. */
class Subscriber {
  readonly frames: Received[] = [];
  readonly errors: string[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      const raw = data as Buffer;
      try {
        this.frames.push({ payload: decodeFlashblockFrame(new Uint8Array(raw)), isBinary, raw });
      } catch (e) {
        this.errors.push((e as Error).message);
      }
    });
  }

  static connect(url: string): Promise<Subscriber> {
    const ws = new WebSocket(url);
    const sub = new Subscriber(ws);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no connection to ${url} within ${WAIT_MS} ms`)), WAIT_MS);
      ws.once("open", () => {
        clearTimeout(t);
        resolve(sub);
      });
      ws.once("error", (e) => {
        clearTimeout(t);
        reject(e);
      });
    });
  }

  /** Waits for a frame satisfying `pred` (already received or future); returns its position. */
  async waitFor(pred: (f: Received) => boolean, what: string): Promise<number> {
    return pollUntil(
      `${what} (errors so far: ${this.errors.join("; ") || "none"})`,
      WAIT_MS,
      async () => {
        const i = this.frames.findIndex(pred);
        return i >= 0 ? i : undefined;
      },
      10,
    );
  }
}

const txHash = (raw: Uint8Array): string => bytesToHex(keccak_256(raw));

describe("devnet flashblocks producer", () => {
  let datadir = "";
  let node: NodeHandle;
  const subs: Subscriber[] = [];

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-fbproducer-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1", "--flashblocks.interval", "100"] });
  });

  afterAll(async () => {
    for (const s of subs) s.ws.terminate();
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("names the stream in the startup line", () => {
    expect(node.stdout() + node.stderr()).toContain(node.flashblocksUrl);
  });

  it("streams a sent transaction before its block is sealed, and seals exactly the frames' transactions", async () => {
    const sub = await Subscriber.connect(node.flashblocksUrl);
    subs.push(sub);
    // Send right after flashblock 1 of a block seen from its flashblock 0, so the transaction lands mid-block.
    const seenFrom0 = (f: Received): boolean =>
      sub.frames.some((g) => g.payload.index === 0 && g.payload.metadata.blockNumber === f.payload.metadata.blockNumber);
    const start = await sub.waitFor((f) => f.payload.index === 1 && seenFrom0(f), "flashblock 1 of a block seen from flashblock 0");
    const first = sub.frames[start]!.payload.metadata.blockNumber;
    const acct = devAccounts()[0]!;
    const common = commonFromGenesis(devnetGenesis());
    const to = devAccounts()[1]!.address as `0x${string}`;
    const tx = createFeeMarket1559Tx(
      { chainId: common.chainId(), nonce: 0n, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21_000n, to, value: 1n },
      { common },
    ).sign(hexToBytes(acct.privateKey as `0x${string}`));
    const hash = (await rpcResult(node.url, "eth_sendRawTransaction", [bytesToHex(tx.serialize())])) as string;
    expect(hash).toBe(bytesToHex(tx.hash()));

    const at = await sub.waitFor((f) => f.payload.diff.transactions.some((raw) => txHash(raw) === hash), "the transaction in a flashblock");
    const carrying = sub.frames[at]!.payload;
    const n = carrying.metadata.blockNumber;
    expect(n).toBeGreaterThanOrEqual(first);
    expect(carrying.index).toBeGreaterThan(0);
    // Block n+1's flashblock 0 is published only after block n is sealed: it arrives later.
    const next0 = await sub.waitFor((f) => f.payload.metadata.blockNumber === n + 1n && f.payload.index === 0, `flashblock 0 of block ${n + 1n}`);
    expect(next0).toBeGreaterThan(at);

    const block = (await rpcResult(node.url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as { [k: string]: Json };
    expect(block).not.toBeNull();
    const frames = sub.frames.filter((f) => f.payload.metadata.blockNumber === n).map((f) => f.payload);
    expect(frames.map((f) => f.index)).toEqual(frames.map((_, i) => i));
    expect(frames.flatMap((f) => f.diff.transactions.map(txHash))).toEqual(block.transactions);
    expect(bytesToHex(frames[0]!.base!.parentHash)).toBe(block.parentHash);
    expect(frames[0]!.base!.timestamp).toBe(BigInt(block.timestamp as string));
    expect(block.transactions).toContain(hash);
    // The last frame commits to the sealed block's gas and receipts.
    const last = frames[frames.length - 1]!;
    expect(`0x${last.diff.gasUsed.toString(16)}`).toBe(block.gasUsed);
    expect(bytesToHex(last.diff.receiptsRoot)).toBe(block.receiptsRoot);
    expect(sub.frames[next0]!.payload.metadata.prevFlashblockId).toEqual({ block: n, index: last.index });
    // Binary brotli frames by default.
    expect(sub.frames.every((f) => f.isBinary)).toBe(true);
    expect(sub.errors).toEqual([]);
  });

  it("sends text frames with ?format=text", async () => {
    const sub = await Subscriber.connect(`${node.flashblocksUrl}?format=text`);
    subs.push(sub);
    await sub.waitFor(() => sub.frames.length >= 3, "3 frames");
    for (const f of sub.frames.slice(0, 3)) {
      expect(f.isBinary).toBe(false);
      expect(f.raw.toString("utf8").startsWith("{")).toBe(true);
    }
    expect(sub.errors).toEqual([]);
  });
});
