/**
 * The block methods' cached answers served over HTTP on a sealed devnet chain: for every block,
 * by number, tag and hash, with and without full transactions, and receipts, in many request
 * shapes (id types, whitespace, key order, extra members), the bytes on the wire are exactly
 * `{"jsonrpc":"2.0","id":<id as sent>,"result":<the block's rendered answer>}` — the answer
 * rendered directly from the chain — and equal to the envelope's text path; unknown blocks
 * answer null, invalid parameters the same error as the text path.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import net from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devnetGenesis } from "../../src/chain/devnet.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
import { NO_PENDING } from "../../src/flashblocks/pendingView.js";
import { handleBody } from "../../src/rpc/envelope.js";
import { blockMethods, renderBlockAnswer } from "../../src/rpc/methods/blocks.js";
import type { BlockAnswer } from "../../src/rpc/responseCache.js";
import { RpcHttpServer } from "../../src/rpc/server.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { buildWorkload } from "../../bench/workload/workload.js";

const silent = pino({ level: "silent" });

/** Request shapes around `"method":M,"params":P`, with the id text each one must be answered with. */
const SHAPES: Array<{ body: (m: string, p: string) => string; id: string }> = [
  { body: (m, p) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":${p}}`, id: "1" },
  { body: (m, p) => `{"jsonrpc":"2.0","id":"req-7","method":${m},"params":${p}}`, id: '"req-7"' },
  { body: (m, p) => `{"jsonrpc":"2.0","id":null,"method":${m},"params":${p}}`, id: "null" },
  { body: (m, p) => `{"jsonrpc":"2.0","id":1e3,"method":${m},"params":${p}}`, id: "1e3" },
  { body: (m, p) => `{"jsonrpc":"2.0","id":99999999999999999999,"method":${m},"params":${p}}`, id: "99999999999999999999" },
  { body: (m, p) => `{"jsonrpc":"2.0","id":"\\u00e9é","method":${m},"params":${p}}`, id: '"\\u00e9é"' },
  { body: (m, p) => ` \n{ "params" :${p} , "id" : 42 ,\t"method" : ${m} , "jsonrpc" : "2.0" }\r\n`, id: "42" },
  { body: (m, p) => `{"jsonrpc":"2.0","trace":{"id":5,"x":[{}]},"method":${m},"params":${p},"id":6,"more":null}`, id: "6" },
];

/** One exchange on a fresh connection: the raw response body (the status must be 200). */
function post(port: number, body: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sock = net.connect(port, "127.0.0.1", () => {
      sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    sock.on("data", (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = all.subarray(0, end).toString("latin1");
      const length = Number(/Content-Length: (\d+)/.exec(head)?.[1]);
      if (all.length < end + 4 + length) return;
      sock.destroy();
      if (!head.startsWith("HTTP/1.1 200 OK")) reject(new Error(head));
      else resolve(all.subarray(end + 4, end + 4 + length));
    });
    sock.on("error", reject);
  });
}

describe("block answers over HTTP", () => {
  let datadir = "";
  let chain: Chain;
  let seq: OpDevSequencer;
  let methods: MethodTable;
  let server: RpcHttpServer;
  let port = 0;

  beforeAll(async () => {
    datadir = mkdtempSync(join(tmpdir(), "basalt-block-answers-"));
    await Chain.init(datadir, devnetGenesis(), { archive: true });
    chain = Chain.open(datadir, { archive: true, logger: silent });
    const pool = new TxPool(chain);
    seq = new OpDevSequencer(chain, pool, 0, silent);
    const backend = {
      chain,
      pool,
      calls: new InlineCallService(chain, NO_PENDING),
      settings: { gasCap: 50_000_000n, clientVersion: "test" },
      pending: NO_PENDING,
      syncing: () => false as const,
    };
    methods = blockMethods(backend);
    const w = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 2, txsPerBlock: 10 });
    for (const round of [...w.setup, ...w.blocks]) {
      for (const raw of round) await pool.addRaw(raw);
      await seq.sealOne();
    }
    server = new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, transport: "http" });
    port = await server.listen();
  }, 60_000);

  afterAll(async () => {
    server?.close();
    await seq?.stop();
    await chain?.close();
    rmSync(datadir, { recursive: true, force: true });
  });

  /** Checks every shape of `method(params)` against `result` (the expected result JSON). */
  async function expectAnswers(method: string, params: string, result: string): Promise<void> {
    for (const s of SHAPES) {
      const body = s.body(JSON.stringify(method), params);
      const wire = await post(port, body);
      const expected = `{"jsonrpc":"2.0","id":${s.id},"result":${result}}`;
      expect(wire.toString("utf8")).toBe(expected);
      expect(wire.equals(Buffer.from(expected, "utf8"))).toBe(true);
      expect(await handleBody(body, methods, { transport: "http" })).toBe(expected);
    }
  }

  const rendered = (n: bigint, answer: BlockAnswer): string => {
    const block = chain.getBlockByNumber(n)!;
    return renderBlockAnswer(chain, block, answer) ?? "null";
  };

  it("answers every block by number and by hash, with hashes and full transactions, and its receipts", async () => {
    const head = chain.head.header.number;
    expect(chain.head.transactions.length).toBeGreaterThan(10);
    for (let n = 0n; n <= head; n++) {
      const hex = `"0x${n.toString(16)}"`;
      const hash = `"${to0x(chain.getBlockByNumber(n)!.hash())}"`;
      for (const full of [true, false]) {
        const answer = rendered(n, full ? "full" : "hashes");
        await expectAnswers("eth_getBlockByNumber", `[${hex},${full}]`, answer);
        await expectAnswers("eth_getBlockByHash", `[${hash},${full}]`, answer);
      }
      await expectAnswers("eth_getBlockReceipts", `[${hex}]`, rendered(n, "receipts"));
      await expectAnswers("eth_getBlockReceipts", `[${hash}]`, rendered(n, "receipts"));
      await expectAnswers("eth_getBlockReceipts", `[{"blockHash":${hash}}]`, rendered(n, "receipts"));
    }
  });

  it("answers tags as the blocks they name", async () => {
    const head = chain.head.header.number;
    for (const full of [true, false]) {
      const kind = full ? "full" : "hashes";
      await expectAnswers("eth_getBlockByNumber", `["latest",${full}]`, rendered(head, kind));
      await expectAnswers("eth_getBlockByNumber", `["pending",${full}]`, rendered(head, kind));
      await expectAnswers("eth_getBlockByNumber", `["earliest",${full}]`, rendered(0n, kind));
    }
    await expectAnswers("eth_getBlockReceipts", `["latest"]`, rendered(head, "receipts"));
  });

  it("answers null for blocks that do not exist", async () => {
    const above = `"0x${(chain.head.header.number + 1n).toString(16)}"`;
    await expectAnswers("eth_getBlockByNumber", `[${above},true]`, "null");
    await expectAnswers("eth_getBlockByNumber", `["0xffffffff",false]`, "null");
    await expectAnswers("eth_getBlockByHash", `["0x${"ab".repeat(32)}",true]`, "null");
    await expectAnswers("eth_getBlockReceipts", `[${above}]`, "null");
  });

  it("answers invalid parameters with the text path's errors", async () => {
    for (const params of ['["0x1"]', '["0x1","yes"]', '["nope",true]', '["0x01",true]', "[]", '["0x1",true,1]', '{"0":"0x1"}']) {
      for (const s of SHAPES) {
        const body = s.body('"eth_getBlockByNumber"', params);
        const wire = (await post(port, body)).toString("utf8");
        expect(wire).toBe(await handleBody(body, methods, { transport: "http" }));
        expect(JSON.parse(wire).error.code).toBe(-32602);
      }
    }
  });

  it("follows a new head: latest and its number answer the new block, older numbers stay", async () => {
    const before = chain.head.header.number;
    await expectAnswers("eth_getBlockByNumber", `["0x${before.toString(16)}",true]`, rendered(before, "full"));
    await seq.sealOne();
    const head = chain.head.header.number;
    expect(head).toBe(before + 1n);
    await expectAnswers("eth_getBlockByNumber", `["latest",true]`, rendered(head, "full"));
    await expectAnswers("eth_getBlockByNumber", `["0x${head.toString(16)}",false]`, rendered(head, "hashes"));
    await expectAnswers("eth_getBlockByNumber", `["0x${before.toString(16)}",true]`, rendered(before, "full"));
  });
});

