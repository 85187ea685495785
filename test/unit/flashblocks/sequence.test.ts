import { describe, it, expect } from "vitest";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { FlashblocksPayloadV1 } from "../../../src/flashblocks/codec.js";
import { FlashblockSequencer } from "../../../src/flashblocks/sequence.js";

const h = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const pid = (n: number): Uint8Array => new Uint8Array(8).fill(n);
const tx = (block: bigint, index: number): Uint8Array => new Uint8Array([0x02, Number(block % 256n), index]);

/** A flashblock of block `block` at `index`; index 0 carries a base whose parent hash is h(block - 1). */
function fb(block: bigint, index: number, opts: { payload?: number; parent?: Uint8Array; prev?: [bigint, number]; gas?: bigint } = {}): FlashblocksPayloadV1 {
  const p: FlashblocksPayloadV1 = {
    payloadId: pid(opts.payload ?? 1),
    index,
    diff: {
      stateRoot: h(0),
      receiptsRoot: h(0),
      logsBloom: new Uint8Array(256),
      gasUsed: opts.gas ?? BigInt(index) * 21000n,
      blockHash: h(index),
      transactions: [tx(block, index)],
      withdrawals: [],
      withdrawalsRoot: h(0),
    },
    metadata: { blockNumber: block },
  };
  if (opts.prev) p.metadata.prevFlashblockId = { block: opts.prev[0], index: opts.prev[1] };
  if (index === 0) {
    p.base = {
      parentBeaconBlockRoot: h(0),
      parentHash: opts.parent ?? h(Number(block - 1n) % 256),
      feeRecipient: new Uint8Array(20),
      prevRandao: h(0),
      blockNumber: block,
      gasLimit: 30_000_000n,
      timestamp: 1000n + block,
      extraData: new Uint8Array(),
      baseFeePerGas: 1n,
    };
  }
  return p;
}

const tip = (n: bigint) => ({ number: n, hash: h(Number(n) % 256) });
const canonical = (n: bigint, txs: Uint8Array[]) => ({ number: n, hash: h(Number(n) % 256), txHashes: txs.map((t) => keccak_256(t)) });

/** A sequencer holding block 10 frames 0..last on canonical tip 9. */
function seqAt(last: number): FlashblockSequencer {
  const s = new FlashblockSequencer();
  for (let i = 0; i <= last; i++) expect(s.offer(fb(10n, i), tip(9n)).kind).toBe("append");
  return s;
}

describe("FlashblockSequencer.offer: §2.2 sequencing table", () => {
  it("rule 1: no pending state, index 0 on the canonical parent → append", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(10n, 0), tip(9n))).toEqual({ kind: "append" });
    expect(s.latest()).toEqual({ block: 10n, index: 0 });
  });

  it("rule 1: no pending state, index > 0 → dropped (waiting for first)", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(10n, 1), tip(9n))).toEqual({ kind: "dropped", reason: "waiting-for-first" });
    expect(s.latest()).toBeUndefined();
  });

  it("rule 2: same (block, index) and same content → duplicate, state unchanged", () => {
    const s = seqAt(2);
    expect(s.offer(fb(10n, 2), tip(9n))).toEqual({ kind: "duplicate" });
    expect(s.pendingFrames().length).toBe(3);
  });

  it("same (block, index), same payload_id, different content → cleared (recovery)", () => {
    const s = seqAt(2);
    expect(s.offer(fb(10n, 2, { gas: 1n }), tip(9n))).toEqual({ kind: "cleared", reason: "conflicting-duplicate" });
    expect(s.latest()).toBeUndefined();
  });

  it("rule 3: prev_flashblock_id not naming the latest frame → cleared (non-sequential predecessor)", () => {
    const s = seqAt(2);
    expect(s.offer(fb(10n, 3, { prev: [10n, 1] }), tip(9n))).toEqual({ kind: "cleared", reason: "non-sequential-predecessor" });
    expect(s.latest()).toBeUndefined();
  });

  it("rule 3: prev_flashblock_id naming the latest frame, or 0-0, passes the link check", () => {
    const s = seqAt(2);
    expect(s.offer(fb(10n, 3, { prev: [10n, 2] }), tip(9n)).kind).toBe("append");
    expect(s.offer(fb(10n, 4, { prev: [0n, 0] }), tip(9n)).kind).toBe("append");
    expect(s.offer(fb(11n, 0, { prev: [10n, 4] }), tip(9n)).kind).toBe("append");
  });

  it("rule 4: next index of the same block → append, frames kept in order", () => {
    const s = seqAt(3);
    expect(s.pendingFrames().map((f) => f.index)).toEqual([0, 1, 2, 3]);
    expect(s.latest()).toEqual({ block: 10n, index: 3 });
  });

  it("rule 5: index 0 of the next block → append (multi-block pending)", () => {
    const s = seqAt(1);
    expect(s.offer(fb(11n, 0), tip(9n))).toEqual({ kind: "append" });
    expect(s.pendingBlocks().map((b) => b.number)).toEqual([10n, 11n]);
    expect(s.pendingFrames().map((f) => f.metadata.blockNumber)).toEqual([11n]);
  });

  it("rule 5: index 0 of the next block whose parent_hash differs from the recorded pending hash → cleared", () => {
    const s = seqAt(1);
    s.recordPendingBlockHash(10n, h(0xaa));
    expect(s.offer(fb(11n, 0), tip(9n))).toEqual({ kind: "cleared", reason: "parent-hash-mismatch" });
    const t = seqAt(1);
    t.recordPendingBlockHash(10n, h(0xaa));
    expect(t.offer(fb(11n, 0, { parent: h(0xaa) }), tip(9n)).kind).toBe("append");
  });

  it("rule 6: same block, index gap → cleared (non-sequential gap)", () => {
    const s = seqAt(1);
    expect(s.offer(fb(10n, 3), tip(9n))).toEqual({ kind: "cleared", reason: "non-sequential-gap" });
    expect(s.pendingFrames()).toEqual([]);
  });

  it("rule 6: same block, older index → cleared (non-sequential gap)", () => {
    const s = seqAt(3);
    expect(s.offer(fb(10n, 1), tip(9n))).toEqual({ kind: "cleared", reason: "non-sequential-gap" });
  });

  it("rule 7: non-zero index of the next block → cleared (invalid new block index)", () => {
    const s = seqAt(1);
    expect(s.offer(fb(11n, 1), tip(9n))).toEqual({ kind: "cleared", reason: "invalid-new-block-index" });
  });

  it("rule 7: a skipped block → cleared (invalid new block index)", () => {
    const s = seqAt(1);
    expect(s.offer(fb(12n, 0), tip(9n))).toEqual({ kind: "cleared", reason: "invalid-new-block-index" });
  });

  it("after a clear, mid-block frames wait for the next index 0", () => {
    const s = seqAt(1);
    s.offer(fb(10n, 5), tip(9n));
    expect(s.offer(fb(10n, 6), tip(9n))).toEqual({ kind: "dropped", reason: "waiting-for-first" });
    expect(s.offer(fb(11n, 0, { parent: h(10) }), tip(10n)).kind).toBe("append");
  });
});

describe("FlashblockSequencer.offer: preflight, replacement, hold", () => {
  it("drops frames at or below the canonical tip as stale", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(10n, 0), tip(10n))).toEqual({ kind: "dropped", reason: "stale" });
    expect(s.offer(fb(9n, 0), tip(10n))).toEqual({ kind: "dropped", reason: "stale" });
  });

  it("drops index ≥ 16, block 0 and an index 0 whose base block differs from metadata", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(10n, 16), tip(9n))).toEqual({ kind: "dropped", reason: "index-too-high" });
    expect(s.offer(fb(0n, 0), tip(0n))).toEqual({ kind: "dropped", reason: "block-zero" });
    const bad = fb(10n, 0);
    bad.base!.blockNumber = 11n;
    expect(s.offer(bad, tip(9n))).toEqual({ kind: "dropped", reason: "base-block-mismatch" });
  });

  it("a first index 0 whose parent_hash is not the canonical tip hash is refused (parent hash mismatch)", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(10n, 0, { parent: h(0xee) }), tip(9n))).toEqual({ kind: "cleared", reason: "parent-hash-mismatch" });
    expect(s.latest()).toBeUndefined();
  });

  it("a new payload_id at index 0 of the latest block replaces that block's frames", () => {
    const s = seqAt(3);
    expect(s.offer(fb(10n, 0, { payload: 2 }), tip(9n))).toEqual({ kind: "replaced" });
    expect(s.pendingFrames().length).toBe(1);
    expect(s.pendingBlocks()[0]!.payloadId).toEqual(pid(2));
    expect(s.offer(fb(10n, 1, { payload: 2 }), tip(9n)).kind).toBe("append");
  });

  it("holds frames whose parent is not canonical yet and replays them after the canonical parent", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(11n, 0), tip(9n))).toEqual({ kind: "held" });
    expect(s.offer(fb(11n, 1), tip(9n))).toEqual({ kind: "held" });
    expect(s.offer(fb(11n, 3), tip(9n))).toEqual({ kind: "dropped", reason: "waiting-for-first" });
    const out = s.onCanonical(canonical(10n, []));
    expect(out.kind).toBe("ignore");
    expect(out.replay.map((f) => [f.metadata.blockNumber, f.index])).toEqual([[11n, 0], [11n, 1]]);
    expect(s.heldFrames()).toEqual([]);
    for (const f of out.replay) expect(s.offer(f, tip(10n)).kind).toBe("append");
    expect(s.latest()).toEqual({ block: 11n, index: 1 });
  });

  it("held frames dedupe by (block, index) with the later one winning", () => {
    const s = new FlashblockSequencer();
    s.offer(fb(11n, 0), tip(9n));
    s.offer(fb(11n, 0, { gas: 7n }), tip(9n));
    expect(s.heldFrames().length).toBe(1);
    expect(s.heldFrames()[0]!.diff.gasUsed).toBe(7n);
  });

  it("holds up to 5 blocks ahead of the canonical tip and drops beyond", () => {
    const s = new FlashblockSequencer();
    expect(s.offer(fb(14n, 0), tip(9n))).toEqual({ kind: "held" });
    expect(s.offer(fb(15n, 0), tip(9n))).toEqual({ kind: "dropped", reason: "too-far-ahead" });
  });

  it("replays a contiguous run of held blocks and discards held frames at or below the canonical block", () => {
    const s = new FlashblockSequencer();
    s.offer(fb(11n, 0), tip(8n));
    s.offer(fb(12n, 0), tip(8n));
    s.offer(fb(12n, 1), tip(8n));
    s.offer(fb(14n, 0), tip(9n));
    expect(s.onCanonical(canonical(9n, [])).replay).toEqual([]);
    const out = s.onCanonical(canonical(10n, []));
    expect(out.replay.map((f) => [f.metadata.blockNumber, f.index])).toEqual([[11n, 0], [12n, 0], [12n, 1]]);
    expect(s.heldFrames().map((f) => f.metadata.blockNumber)).toEqual([14n]);
  });
});

describe("FlashblockSequencer.onCanonical: §2.3 reconciliation", () => {
  /** Pending blocks 10 (frames 0..1) and 11 (frame 0) on canonical 9. */
  function twoBlocks(): FlashblockSequencer {
    const s = seqAt(1);
    s.offer(fb(11n, 0), tip(9n));
    return s;
  }

  it("no pending state → ignore", () => {
    expect(new FlashblockSequencer().onCanonical(canonical(10n, [])).kind).toBe("ignore");
  });

  it("canonical below the anchor → ignore, state kept", () => {
    const s = twoBlocks();
    expect(s.onCanonical(canonical(8n, [])).kind).toBe("ignore");
    expect(s.pendingBlocks().length).toBe(2);
  });

  it("canonical beyond the latest pending block → catch-up (clear)", () => {
    const s = twoBlocks();
    expect(s.onCanonical(canonical(12n, [])).kind).toBe("catch-up");
    expect(s.latest()).toBeUndefined();
  });

  it("canonical equal to the latest pending block with the same txs → catch-up", () => {
    const s = seqAt(1);
    expect(s.onCanonical(canonical(10n, [tx(10n, 0), tx(10n, 1)])).kind).toBe("catch-up");
    expect(s.latest()).toBeUndefined();
  });

  it("canonical txs differing from pending (count, hash or order) → reorg (clear)", () => {
    for (const txs of [[tx(10n, 0)], [tx(10n, 0), tx(10n, 9)], [tx(10n, 1), tx(10n, 0)]]) {
      const s = twoBlocks();
      expect(s.onCanonical(canonical(10n, txs)).kind).toBe("reorg");
      expect(s.latest()).toBeUndefined();
    }
  });

  it("canonical inside [earliest, latest) with matching txs → rebase onto it", () => {
    const s = twoBlocks();
    expect(s.onCanonical(canonical(10n, [tx(10n, 0), tx(10n, 1)])).kind).toBe("rebase");
    expect(s.pendingBlocks().map((b) => b.number)).toEqual([11n]);
  });

  it("rebase where the suffix's parent_hash is not the canonical hash → reorg", () => {
    const s = seqAt(1);
    s.offer(fb(11n, 0, { parent: h(0x77) }), tip(9n));
    expect(s.onCanonical(canonical(10n, [tx(10n, 0), tx(10n, 1)])).kind).toBe("reorg");
    expect(s.latest()).toBeUndefined();
  });

  it("canonical equal to the anchor → continue when the pending parent hash matches, reorg otherwise", () => {
    const s = twoBlocks();
    expect(s.onCanonical(canonical(9n, [])).kind).toBe("continue");
    expect(s.pendingBlocks().length).toBe(2);
    expect(s.onCanonical({ number: 9n, hash: h(0x55), txHashes: [] }).kind).toBe("reorg");
    expect(s.latest()).toBeUndefined();
  });
});
