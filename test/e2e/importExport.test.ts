/**
 * End-to-end: `basalt init`, `basalt import` and `basalt export` on the execution-apis Prague
 * test chain (45 blocks), plus the failure paths: re-init with another genesis, a truncated
 * chain file, and a block that decodes but fails verification (bad state root).
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { rpcResult } from "../helpers/rpc.js";

const FIXTURES = path.resolve(REPO_ROOT, "../shared/fixtures/execution-apis/prague");
const GENESIS = path.join(FIXTURES, "genesis.json");
const CHAIN_RLP = path.join(FIXTURES, "chain.rlp");
const CHAIN_LENGTH = 45;

/** Header (prefix) length and payload length of the RLP item at `offset`. */
function rlpItem(buf: Uint8Array, offset: number): { prefix: number; payload: number; isList: boolean } {
  const b = buf[offset]!;
  const long = (ll: number): number => {
    let n = 0;
    for (let i = 0; i < ll; i++) n = n * 256 + buf[offset + 1 + i]!;
    return n;
  };
  if (b < 0x80) return { prefix: 0, payload: 1, isList: false };
  if (b < 0xb8) return { prefix: 1, payload: b - 0x80, isList: false };
  if (b < 0xc0) return { prefix: 1 + (b - 0xb7), payload: long(b - 0xb7), isList: false };
  if (b < 0xf8) return { prefix: 1, payload: b - 0xc0, isList: true };
  return { prefix: 1 + (b - 0xf7), payload: long(b - 0xf7), isList: true };
}

/** Byte ranges of each block of a concatenated chain file (index 0 = block 1). */
function splitBlocks(buf: Uint8Array): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const { prefix, payload, isList } = rlpItem(buf, offset);
    if (!isList) throw new Error(`fixture: item at ${offset} is not a list`);
    out.push({ start: offset, end: offset + prefix + payload });
    offset += prefix + payload;
  }
  return out;
}

/** Offset of the `field`-th element (0-based) of the header list of the block at `blockStart`. */
function headerFieldOffset(buf: Uint8Array, blockStart: number, field: number): { start: number; prefix: number; payload: number } {
  const block = rlpItem(buf, blockStart);
  const headerStart = blockStart + block.prefix;
  const header = rlpItem(buf, headerStart);
  let at = headerStart + header.prefix;
  for (let i = 0; i < field; i++) {
    const f = rlpItem(buf, at);
    at += f.prefix + f.payload;
  }
  const f = rlpItem(buf, at);
  return { start: at, prefix: f.prefix, payload: f.payload };
}

describe("init / import / export (e2e)", () => {
  const dirs: string[] = [];
  let chain: Buffer;
  let blocks: { start: number; end: number }[];

  async function tempDir(): Promise<string> {
    const d = await makeTempDir("basalt-e2e-impexp-");
    dirs.push(d);
    return d;
  }

  async function cli(args: string[], expectOk: boolean | Record<string, string> = true): Promise<Awaited<ReturnType<typeof runCli>>> {
    const env = typeof expectOk === "object" ? expectOk : undefined;
    const r = await runCli(args, { timeoutMs: 120_000, env });
    if (expectOk !== false) expect(r.code, describeCliResult(args, r)).toBe(0);
    return r;
  }

  async function initPrague(datadir: string): Promise<void> {
    await cli(["init", "--datadir", datadir, "--genesis", GENESIS]);
  }

  async function exportAll(datadir: string, out: string): Promise<Buffer> {
    await cli(["export", "--datadir", datadir, out]);
    return readFile(out);
  }

  beforeAll(async () => {
    expect(existsSync(CHAIN_RLP), `fixture missing: ${CHAIN_RLP}`).toBe(true);
    chain = await readFile(CHAIN_RLP);
    blocks = splitBlocks(chain);
    expect(blocks).toHaveLength(CHAIN_LENGTH);
  });

  afterAll(async () => {
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  describe("a full import", () => {
    let dir = "";
    let datadir = "";

    beforeAll(async () => {
      dir = await tempDir();
      datadir = path.join(dir, "data");
    });

    it("imports chain.rlp and exports the identical bytes", async () => {
      await initPrague(datadir);
      const r = await cli(["import", "--datadir", datadir, CHAIN_RLP]);
      expect(r.timedOut).toBe(false);
      const out = path.join(dir, "export.rlp");
      const exported = await exportAll(datadir, out);
      expect(exported.length).toBe(chain.length);
      expect(exported.equals(chain)).toBe(true);
    });

    it("imports the same chain on the JavaScript fallback (BASALT_NATIVE_CRYPTO=0: no addon, no native bindings)", async () => {
      const jsDir = path.join(dir, "js");
      await initPrague(jsDir);
      const r = await cli(["import", "--datadir", jsDir, CHAIN_RLP], { BASALT_NATIVE_CRYPTO: "0" });
      expect(r.timedOut).toBe(false);
      // Every root of every block was verified with JS keccak and JS sender recovery; the export matches byte for byte.
      const exported = await exportAll(jsDir, path.join(dir, "export-js.rlp"));
      expect(exported.equals(chain)).toBe(true);
    });

    it("exports a --from/--to range as the matching slice", async () => {
      const out = path.join(dir, "range.rlp");
      await cli(["export", "--datadir", datadir, "--from", "10", "--to", "20", out]);
      const exported = await readFile(out);
      expect(exported.equals(chain.subarray(blocks[9]!.start, blocks[19]!.end))).toBe(true);
    });

    it("re-importing the same file is a no-op that succeeds", async () => {
      await cli(["import", "--datadir", datadir, CHAIN_RLP]);
      const exported = await exportAll(datadir, path.join(dir, "export2.rlp"));
      expect(exported.equals(chain)).toBe(true);
    });

    it("re-init with the same genesis succeeds and keeps the chain", async () => {
      await initPrague(datadir);
      const exported = await exportAll(datadir, path.join(dir, "export3.rlp"));
      expect(exported.equals(chain)).toBe(true);
    });

    it("re-init with a different genesis (the devnet) fails naming the genesis", async () => {
      const args = ["init", "--datadir", datadir];
      const r = await cli(args, false);
      expect(r.timedOut).toBe(false);
      expect(r.code, describeCliResult(args, r)).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stderr + r.stdout).toMatch(/genesis/i);
      // the datadir is untouched
      const exported = await exportAll(datadir, path.join(dir, "export4.rlp"));
      expect(exported.equals(chain)).toBe(true);
    });
  });

  it("a truncated chain file stops the import at the last complete block", async () => {
    const dir = await tempDir();
    const datadir = path.join(dir, "data");
    const block20 = blocks[19]!;
    const cut = block20.start + Math.floor((block20.end - block20.start) / 2);
    const truncated = path.join(dir, "truncated.rlp");
    await writeFile(truncated, chain.subarray(0, cut));

    await initPrague(datadir);
    const args = ["import", "--datadir", datadir, truncated];
    const r = await cli(args, false);
    expect(r.timedOut).toBe(false);
    expect(r.code, describeCliResult(args, r)).not.toBe(0);
    expect(r.code).not.toBeNull();
    const msg = r.stderr + r.stdout;
    expect(msg).toMatch(/truncated/i);
    expect(msg).toContain(truncated);

    const node = await startNode({ datadir });
    try {
      const head = BigInt((await rpcResult(node.url, "eth_blockNumber")) as string);
      expect(head).toBeGreaterThanOrEqual(19n);
      expect(head).toBeLessThan(45n);
      // Every complete block before the cut was imported.
      expect(head).toBe(19n);
      const b19 = (await rpcResult(node.url, "eth_getBlockByNumber", ["0x13", false])) as { number: string } | null;
      expect(b19?.number).toBe("0x13");
      expect(await rpcResult(node.url, "eth_getBlockByNumber", ["0x14", false])).toBeNull();
    } finally {
      const info = await node.stop();
      expect(info.code, node.outputTail()).toBe(0);
    }
  });

  it("a block with a corrupted state root stops the import naming that block, keeping the blocks before it", async () => {
    const dir = await tempDir();
    const datadir = path.join(dir, "data");
    const block30 = blocks[29]!;
    // Header fields: parentHash, ommersHash, coinbase, stateRoot (index 3), ...
    const stateRoot = headerFieldOffset(chain, block30.start, 3);
    expect(stateRoot.prefix).toBe(1);
    expect(stateRoot.payload).toBe(32);
    const lastByte = stateRoot.start + stateRoot.prefix + stateRoot.payload - 1;
    const corrupted = Buffer.from(chain);
    corrupted[lastByte] = corrupted[lastByte]! ^ 0xff;
    const file = path.join(dir, "corrupted.rlp");
    await writeFile(file, corrupted);

    await initPrague(datadir);
    const args = ["import", "--datadir", datadir, file];
    const r = await cli(args, false);
    expect(r.timedOut).toBe(false);
    expect(r.code, describeCliResult(args, r)).not.toBe(0);
    expect(r.code).not.toBeNull();
    const msg = r.stderr + r.stdout;
    expect(msg).toMatch(/block 30\b/);
    expect(msg).toMatch(/state ?root/i);

    // Blocks 1..29 were kept: exporting gives exactly the first 29 blocks of the fixture.
    const exported = await exportAll(datadir, path.join(dir, "export.rlp"));
    expect(exported.equals(chain.subarray(0, block30.start))).toBe(true);

    // Importing the good file afterwards resumes from block 30.
    await cli(["import", "--datadir", datadir, CHAIN_RLP]);
    const full = await exportAll(datadir, path.join(dir, "export-full.rlp"));
    expect(full.equals(chain)).toBe(true);
  });
});
