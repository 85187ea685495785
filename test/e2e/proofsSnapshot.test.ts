/**
 * End-to-end: `basalt snapshot export|import` carries the historical-proofs store. A devnet node
 * with `--historical-proofs` (its store at a `--proofs.path` outside the datadir) seals blocks of
 * mixed traffic. The snapshot is exported while blocks keep coming (the store is dumped from a
 * read-only open, then checked against the LMDB copy of the chain) and imported into a fresh
 * datadir, where the proofs store is verified before it is put in place at `<datadir>/proofs`. A
 * node started on the copy with `--historical-proofs` answers `eth_getProof` at every block of the
 * window as the source does and as the copied main store's trie proves, every block's `debug_executionWitness` re-executes statelessly to its
 * header, and the store keeps in step with new blocks. A snapshot whose proofs
 * store does not verify (a trie node altered; an end of the window that is not the chain's block)
 * is refused with the reason and leaves nothing imported.
 */
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { createHash } from "node:crypto";
import { brotliCompressSync, brotliDecompressSync } from "node:zlib";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { Chain } from "../../src/blockchain/chain.js";
import { keccak256 } from "../../src/util/keccak.js";
import { verifyStateless } from "../../src/execution/op/stateless.js";
import { WitnessStore } from "../../src/execution/state/witnessState.js";
import { restoreDump, writeDump } from "../../src/proofs/dump.js";
import { encodeBlockRef, nodeKey, nodePrefix } from "../../src/proofs/keys.js";
import { rocksOpen } from "../../src/proofs/rocks.js";
import { PROOFS_COLUMN_FAMILIES, ProofsStore } from "../../src/proofs/store.js";
import { encodeSnapshotHeader, readSnapshotHeader, type SnapshotHeader } from "../../src/storage/snapshot.js";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { mainStoreProof, ProofsTraffic, rpcTarget, writeProofsMeta } from "../helpers/proofs.js";
import { rpcResult, type Json } from "../helpers/rpc.js";

const BLOCKS = 20;
/** Addresses compared between the source and the copy at every block (dev accounts, the token, recipients). */
const COMPARED = 12;

describe("basalt snapshot with the proofs store (e2e)", () => {
  const dirs: string[] = [];
  let source: NodeHandle;
  let traffic: ProofsTraffic;
  let proofsPath = "";
  let file = "";
  let header: SnapshotHeader;

  const tempDir = async (prefix: string): Promise<string> => {
    const d = await makeTempDir(prefix);
    dirs.push(d);
    return d;
  };
  const status = async (url: string): Promise<{ earliest: number | null; latest: number | null }> =>
    (await rpcResult(url, "debug_proofsSyncStatus")) as { earliest: number | null; latest: number | null };
  const blockHash = async (url: string, n: number): Promise<string> => ((await rpcResult(url, "eth_getBlockByNumber", ["0x" + n.toString(16), false])) as { hash: string }).hash;

  beforeAll(async () => {
    const work = await tempDir("basalt-proofs-snap-");
    file = path.join(work, "devnet.snapshot");
    proofsPath = path.join(work, "source-proofs");
    source = await startNode({
      datadir: path.join(work, "source"),
      args: ["--dev.block-time", "0", "--historical-proofs", "--proofs.path", proofsPath, "--log.level", "warn"],
    });
    traffic = new ProofsTraffic(rpcTarget(() => source.url));
    for (let i = 0; i < BLOCKS; i++) await traffic.block();
    await pollUntil("the source's proofs store to cover 0..head", 30_000, async () => {
      const s = await status(source.url);
      return s.earliest === 0 && s.latest === BLOCKS ? true : undefined;
    });
  }, 120_000);

  afterAll(async () => {
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  it("exports the proofs store of a running node, imports it verified, and the copy serves the same proofs", async () => {
    // Blocks keep coming while the export runs.
    let exporting = true;
    const mining = (async () => {
      while (exporting) await traffic.block();
    })();
    const exp = await runCli(["snapshot", "export", "--datadir", source.datadir, "--proofs.path", proofsPath, file], { timeoutMs: 60_000 });
    exporting = false;
    await mining;
    expect(exp.code, describeCliResult(["snapshot", "export"], exp)).toBe(0);
    header = readSnapshotHeader(file).header;
    expect(header.formatVersion).toBe(2);
    const p = header.proofs!;
    const [earliest, latest, head] = [Number(p.window.earliest.number), Number(p.window.latest.number), Number(header.head.number)];
    expect(earliest).toBe(0);
    expect(latest).toBeGreaterThanOrEqual(BLOCKS);
    expect(latest).toBeLessThanOrEqual(head);
    expect(exp.stdout + exp.stderr).toContain(`window ${earliest}..${latest}`);
    // The window's ends are the source's canonical blocks, and the change index has one row per block after the earliest.
    expect(p.window.earliest.hash).toBe(await blockHash(source.url, earliest));
    expect(p.window.latest.hash).toBe(await blockHash(source.url, latest));
    expect(p.entries.change_index).toBe(latest - earliest);

    const dst = path.join(await tempDir("basalt-proofs-snap-dst-"), "data");
    const imp = await runCli(["snapshot", "import", "--datadir", dst, file], { timeoutMs: 60_000 });
    expect(imp.code, describeCliResult(["snapshot", "import"], imp)).toBe(0);
    expect(imp.stdout + imp.stderr).toContain(`imported and verified with the proofs store, window ${earliest}..${latest}`);
    expect(readdirSync(dst).sort()).toEqual(["chain", "proofs"]);

    const copy = await startNode({ datadir: dst, args: ["--dev.block-time", "0", "--historical-proofs", "--log.level", "warn"] });
    // The imported store starts from its window and follows the imported chain to its head.
    const first = await status(copy.url);
    expect(first.earliest).toBe(0);
    expect(first.latest).toBeGreaterThanOrEqual(latest);
    await pollUntil("the copy's proofs store to reach the head", 30_000, async () => ((await status(copy.url)).latest === head ? true : undefined));
    const addresses = traffic.addresses.slice(0, COMPARED).map(bytesToHex);
    const slots = traffic.slots.map(bytesToHex);
    const chain = Chain.open(dst, { readOnly: true });
    try {
      // The copy answers as the source does, and as the copied main store's trie proves, at every block.
      for (let n = 0; n <= head; n++) {
        for (const a of addresses) {
          const params: Json[] = [a, slots, "0x" + n.toString(16)];
          const got = (await rpcResult(copy.url, "eth_getProof", params)) as { accountProof: string[]; storageProof: { value: string; proof: string[] }[] };
          expect(got, `eth_getProof of ${a} at block ${n}`).toEqual(await rpcResult(source.url, "eth_getProof", params));
          const want = await mainStoreProof(chain, BigInt(n), hexToBytes(a as `0x${string}`), traffic.slots);
          expect(got.accountProof).toEqual(want.accountProof);
          expect(got.storageProof.map((p) => ({ value: p.value, proof: p.proof }))).toEqual(want.storageProof);
          await verifyMerkleProof(keccak256(hexToBytes(a as `0x${string}`)), got.accountProof.map((p) => hexToBytes(p as `0x${string}`)), { root: want.stateRoot } as never);
        }
      }
      // Every block's witness from the copy re-executes statelessly to its header.
      for (let n = 1; n <= head; n++) {
        const blk = chain.getBlockByNumber(BigInt(n))!;
        const w = (await rpcResult(copy.url, "debug_executionWitness", ["0x" + n.toString(16)])) as Record<"state" | "codes" | "headers", string[]>;
        const store = WitnessStore.fromValues([...w.state, ...w.codes, ...w.headers].map((x) => hexToBytes(x as `0x${string}`)));
        const totals = await verifyStateless(store, blk, chain.getHeaderByHash(blk.header.parentHash)!, chain.op!);
        expect(bytesToHex(totals.stateRoot), `block ${n} re-executed from the copy's witness`).toBe(bytesToHex(blk.header.stateRoot));
      }
    } finally {
      await chain.close();
    }
    await rpcResult(copy.url, "evm_mine");
    await pollUntil("the copy's proofs store to take a new block", 30_000, async () => ((await status(copy.url)).latest === head + 1 ? true : undefined));
    await copy.stop();
  }, 180_000);

  /**
   * Writes `out`: the snapshot `file` with its proofs store changed by `change` (on a restored
   * copy, dumped again) and the header's proofs record updated to match, checksums included.
   */
  async function tampered(out: string, change: (dir: string) => Promise<void>, window?: (h: SnapshotHeader) => void): Promise<void> {
    const { header: h, payloadOffset } = readSnapshotHeader(file);
    const bytes = await readFile(file);
    const chainPayload = bytes.subarray(payloadOffset, payloadOffset + h.payloadBytes);
    const dir = path.join(await tempDir("basalt-proofs-tamper-"), "proofs");
    await restoreDump(Readable.from([brotliDecompressSync(bytes.subarray(payloadOffset + h.payloadBytes))]), dir);
    await change(dir);
    const store = await ProofsStore.open(dir, { chainId: BigInt(h.chainId), genesisHash: Buffer.from(h.genesisHash.slice(2), "hex"), readOnly: true });
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on("data", (c: Buffer) => chunks.push(c));
    const entries = await writeDump(store, sink);
    await store.close();
    const dump = Buffer.concat(chunks);
    const payload = brotliCompressSync(dump);
    const proofs = { ...h.proofs!, entries, dataBytes: dump.length, payloadBytes: payload.length, payloadSha256: createHash("sha256").update(payload).digest("hex") };
    const changed: SnapshotHeader = { ...h, proofs };
    window?.(changed);
    await writeFile(out, Buffer.concat([encodeSnapshotHeader(changed), chainPayload, payload]));
  }

  /** Imports `bad` into a fresh datadir: refused (exit 1) with `reason`, nothing left behind. */
  async function expectRefused(bad: string, reason: RegExp): Promise<void> {
    const dst = path.join(await tempDir("basalt-proofs-snap-bad-"), "data");
    const r = await runCli(["snapshot", "import", "--datadir", dst, bad], { timeoutMs: 60_000 });
    expect(r.code, describeCliResult(["snapshot", "import"], r)).toBe(1);
    expect(r.stderr).toMatch(/the proofs store in the snapshot does not verify, so nothing was imported/);
    expect(r.stderr).toMatch(reason);
    expect(existsSync(dst) ? readdirSync(dst) : []).toEqual([]);
  }

  it("refuses a snapshot whose proofs store has an altered trie node, leaving nothing imported", async () => {
    const bad = path.join(path.dirname(file), "altered-node.snapshot");
    await tampered(bad, async (dir) => {
      // The account trie's root at the window's earliest block (the baseline, version 0): one byte flipped.
      const db = rocksOpen(dir, { columnFamilies: Object.values(PROOFS_COLUMN_FAMILIES) });
      await db.ready();
      const cf = db.columnFamily(PROOFS_COLUMN_FAMILIES.account);
      const key = nodeKey(nodePrefix({ kind: "account" }, new Uint8Array(0)), 0n);
      const root = Buffer.from((await cf.get(key))!);
      root[root.length - 1] = root[root.length - 1]! ^ 0x01;
      const batch = cf.write({ autoDestroy: true });
      batch.tryPut(key, root);
      await batch.flush();
      await db.close();
    });
    await expectRefused(bad, /the proof of account 0x[0-9a-f]{40} at block 0 does not verify against its state root 0x[0-9a-f]{64}: the node stored at path "" hashes to/);
  });

  it("refuses a snapshot whose proofs window ends at a block that is not the chain's, leaving nothing imported", async () => {
    const bad = path.join(path.dirname(file), "other-latest.snapshot");
    const latest = BigInt(header.proofs!.window.latest.number);
    const otherHash = new Uint8Array(32).fill(0x5a);
    await tampered(
      bad,
      (dir) => writeProofsMeta(dir, { latest: encodeBlockRef({ number: latest, hash: otherHash }) }),
      (h) => (h.proofs!.window.latest.hash = bytesToHex(otherHash)),
    );
    await expectRefused(bad, new RegExp(`its latest block ${latest} is ${bytesToHex(otherHash)}, the chain's block ${latest} is 0x[0-9a-f]{64}: expected the same block`));
  });
});
