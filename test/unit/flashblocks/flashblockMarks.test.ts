/**
 * The per-flashblock state deltas (flashblockMarks.ts `MarkRecorder`) folded in frame order
 * (pendingAt.ts `fold`) give each frame's whole pending diff — including values that return to
 * the anchor's (they leave the diff), wiped accounts and code — and a mark survives its codec.
 */
import { describe, expect, it } from "vitest";
import { decodeMark, encodeMark, MarkRecorder } from "../../../src/flashblocks/flashblockMarks.js";
import { fold } from "../../../src/flashblocks/pendingAt.js";
import type { PendingStateDiff } from "../../../src/flashblocks/pendingSnapshot.js";
import { PendingStateIndex } from "../../../src/flashblocks/pendingView.js";

const b = (...v: number[]): Uint8Array => Uint8Array.from(v);
const A = b(...new Array<number>(20).fill(0xa));
const B = b(...new Array<number>(20).fill(0xb));
const C = b(...new Array<number>(20).fill(0xc));
const s1 = b(1);
const s2 = b(2);

/** The index of a diff, as plain sorted entries (for comparison). */
function plain(ix: PendingStateIndex): unknown {
  const storage = [...ix.storage].map(([a, m]) => [a, [...m].filter(() => true).map(([k, v]) => [k, Buffer.from(v).toString("hex")]).sort()]).filter(([, m]) => (m as unknown[]).length > 0).sort();
  return {
    accounts: [...ix.accounts].map(([k, v]) => [k, v === null ? null : Buffer.from(v).toString("hex")]).sort(),
    storage,
    cleared: [...ix.cleared].sort(),
    code: [...ix.code].map(([k, v]) => [k, Buffer.from(v).toString("hex")]).sort(),
  };
}

describe("flashblock marks", () => {
  it("folding each frame's delta gives that frame's diff", () => {
    const frames: PendingStateDiff[] = [
      { accounts: [[A, b(1)]], storage: [[A, s1, b(5)]], cleared: [], code: [] },
      // B appears, A's slot 1 changes, slot 2 appears, code is written.
      { accounts: [[A, b(2)], [B, b(9)]], storage: [[A, s1, b(6)], [A, s2, b(7)]], cleared: [], code: [[b(0xee), b(0x60, 0)]] },
      // A's slot 1 returns to the anchor's value (leaves the diff); B is deleted; C appears.
      { accounts: [[A, b(2)], [B, null], [C, b(3)]], storage: [[A, s2, b(7)]], cleared: [], code: [[b(0xee), b(0x60, 0)]] },
      // A is wiped and re-created with slot 2 only; C leaves the diff.
      { accounts: [[A, b(4)], [B, null]], storage: [[A, s2, b(8)]], cleared: [A], code: [[b(0xee), b(0x60, 0)]] },
      // Nothing changes.
      { accounts: [[A, b(4)], [B, null]], storage: [[A, s2, b(8)]], cleared: [A], code: [[b(0xee), b(0x60, 0)]] },
    ];
    const rec = new MarkRecorder();
    const folded = new PendingStateIndex({ accounts: [], storage: [], cleared: [], code: [] });
    const deltas = frames.map((f) => rec.next(f));
    for (const [i, d] of deltas.entries()) {
      fold(folded, decodeMark(encodeMark({ index: i, txCount: i, hash: "0x", headerRlp: b(), around: ["", ""], state: d })).state);
      expect(plain(folded), `frame ${i}`).toEqual(plain(new PendingStateIndex(frames[i]!)));
    }
    // A frame that changes nothing sends nothing; unchanged entries are not re-sent.
    expect(deltas[4]).toEqual({ accounts: [], storage: [], cleared: [], code: [], droppedAccounts: [], droppedStorage: [] });
    expect(deltas[2]!.accounts.map(([a]) => a[0])).toEqual([0xb, 0xc]);
    expect(deltas[2]!.droppedStorage.length).toBe(1);
    expect(deltas[3]!.droppedAccounts.map((a) => a[0])).toEqual([0xc]);
    // After a reset the next diff is compared with the empty one.
    rec.reset();
    expect(rec.next(frames[0]!).accounts.length).toBe(1);
  });
});
