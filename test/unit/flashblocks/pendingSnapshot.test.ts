/**
 * The pending snapshot's wire form: what the worker publishes per frame — transactions encoded
 * once with a stand-in for the block hash, the block JSON as the text around its transactions
 * list — must read back as exactly the strings a full render with the hash gives (the version-1
 * form: every JSON string filled with the hash, the lists joined), for every frame of a block.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  concatChunks,
  decodePendingSnapshot,
  encodePendingSnapshot,
  encodePreparedSnapshot,
  encodeWireTx,
  PENDING_SNAPSHOT_VERSION,
  type PendingBlockView,
  type PendingSnapshot,
  type PendingTx,
  type PreparedSnapshot,
} from "../../../src/flashblocks/pendingSnapshot.js";
import type { RpcLog } from "../../../src/chain/json/receipt.js";

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => "0x" + Buffer.from(b).toString("hex"));
const PLACEHOLDER = "0x" + "ab".repeat(32);

interface TxTemplate {
  hash: string;
  extra: string;
  logs: number;
}
const txTemplate = fc.record({ hash: hex32, extra: fc.string({ maxLength: 40 }), logs: fc.nat(3) });

/** A stand-in envelope of a template transaction (its hash's bytes behind a type byte). */
function rawOf(t: TxTemplate): Uint8Array {
  return Uint8Array.from([0x02, ...Buffer.from(t.hash.slice(2), "hex")]);
}

/** A transaction's templates naming its block by `ph`, as the worker renders them. */
function templates(t: TxTemplate, i: number, ph: string): { txJson: string; receiptJson: string; logs: RpcLog[] } {
  const logs = Array.from({ length: t.logs }, (_, k) => ({ address: "0x" + "11".repeat(20), topics: [], data: "0x", blockNumber: "0x5", blockHash: ph, transactionHash: t.hash, transactionIndex: `0x${i.toString(16)}`, logIndex: `0x${k.toString(16)}`, removed: false }) as unknown as RpcLog);
  const txJson = JSON.stringify({ blockHash: ph, blockNumber: "0x5", hash: t.hash, input: t.extra, transactionIndex: `0x${i.toString(16)}` });
  const receiptJson = JSON.stringify({ blockHash: ph, logs, transactionHash: t.hash, note: `${t.extra}${ph}` });
  return { txJson, receiptJson, logs };
}

/** The full (version-1 style) render of a block at one frame: every string filled with `hash`. */
function fullRender(txs: TxTemplate[], hash: string, header: Record<string, unknown>, index: number): PendingBlockView {
  const rendered: PendingTx[] = txs.map((t, i) => {
    const tpl = templates(t, i, PLACEHOLDER);
    const fill = (s: string): string => s.replaceAll(PLACEHOLDER, hash);
    return { hash: t.hash, from: "0x" + "22".repeat(20), to: null, txJson: fill(tpl.txJson), receiptJson: fill(tpl.receiptJson), logs: tpl.logs.map((l) => ({ ...l, blockHash: hash })), raw: rawOf(t) };
  });
  const withTxs = (list: string): string => JSON.stringify({ ...header, hash, transactions: "__m__" }).replace('"__m__"', () => list);
  return {
    number: 5,
    hash,
    parentHash: "0x" + "33".repeat(32),
    timestamp: 1000,
    index,
    payloadId: "0x0102030405060708",
    headerRlp: new Uint8Array([0xc0, index]),
    blockJson: withTxs(`[${rendered.map((t) => JSON.stringify(t.hash)).join(",")}]`),
    blockJsonFull: withTxs(`[${rendered.map((t) => t.txJson).join(",")}]`),
    receiptsJson: `[${rendered.map((t) => t.receiptJson).join(",")}]`,
    txs: rendered,
    newTxCount: 1,
  };
}

function snapshotOf(blocks: PendingBlockView[], index: number): PendingSnapshot {
  return {
    version: PENDING_SNAPSHOT_VERSION,
    anchor: { number: 4, hash: "0x" + "44".repeat(32) },
    blocks,
    state: { accounts: [[new Uint8Array(20).fill(1), null]], storage: [[new Uint8Array(20).fill(2), new Uint8Array([1]), new Uint8Array([9])]], code: [], cleared: [] },
    flashblock: { block: 5, index },
    receivedAt: 1,
    executedAt: 2,
  };
}

/** Every field a reader can see, getters included, as plain values. */
function plain(s: PendingSnapshot): unknown {
  return {
    ...s,
    blocks: s.blocks.map((b) => ({
      number: b.number,
      hash: b.hash,
      parentHash: b.parentHash,
      timestamp: b.timestamp,
      index: b.index,
      payloadId: b.payloadId,
      headerRlp: Array.from(b.headerRlp),
      blockJson: b.blockJson,
      blockJsonFull: b.blockJsonFull,
      receiptsJson: b.receiptsJson,
      newTxCount: b.newTxCount,
      txs: b.txs.map((t) => ({ hash: t.hash, from: t.from, to: t.to, txJson: t.txJson, receiptJson: t.receiptJson, logs: t.logs, raw: Array.from(t.raw) })),
    })),
    state: JSON.parse(JSON.stringify(s.state, (_k, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v))) as unknown,
  };
}

describe("pending snapshot wire form", () => {
  it("a frame of encoded-once transactions reads back as the full render of that frame", () => {
    fc.assert(
      fc.property(fc.array(fc.array(txTemplate, { maxLength: 6 }), { minLength: 1, maxLength: 8 }), fc.array(hex32, { minLength: 8, maxLength: 8 }), (frames, hashes) => {
        const header = { gasUsed: "0x1", number: "0x5" };
        const all: TxTemplate[] = [];
        const encoded: Uint8Array[] = [];
        for (const [index, added] of frames.entries()) {
          for (const t of added) {
            const tpl = templates(t, all.length, PLACEHOLDER);
            all.push(t);
            encoded.push(encodeWireTx([t.hash, "0x" + "22".repeat(20), null, tpl.txJson, tpl.receiptJson, tpl.logs, rawOf(t)]));
          }
          const hash = hashes[index]!;
          const want = snapshotOf([fullRender(all, hash, header, index)], index);
          const json = JSON.stringify({ ...header, hash, transactions: "__m__" });
          const at = json.indexOf('"__m__"');
          const prepared: PreparedSnapshot = {
            ...want,
            blocks: [
              {
                wire: { number: 5, hash, parentHash: "0x" + "33".repeat(32), timestamp: 1000, index, payloadId: "0x0102030405060708", headerRlp: new Uint8Array([0xc0, index]), newTxCount: 1, txCount: all.length, placeholder: PLACEHOLDER, around: [json.slice(0, at), json.slice(at + 7)] },
                txs: encoded.slice(),
              },
            ],
          };
          const got = decodePendingSnapshot(concatChunks(encodePreparedSnapshot(prepared)))!;
          expect(plain(got)).toEqual(plain(want));
          // A plain snapshot (tests, other writers) goes through the same wire form unchanged.
          expect(plain(decodePendingSnapshot(encodePendingSnapshot(want))!)).toEqual(plain(want));
        }
      }),
      { numRuns: 50 },
    );
  });

  it("ignores bytes of another layout version", () => {
    const s = snapshotOf([], 0);
    expect(decodePendingSnapshot(encodePendingSnapshot({ ...s, version: PENDING_SNAPSHOT_VERSION + 1 }))).toBeUndefined();
  });
});
