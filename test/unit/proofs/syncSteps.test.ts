/**
 * `ProofsSync` over a chain whose blocks change the state directly (no transactions: the state
 * manager of the head, then a block on its root committed as the head), so every case the steps
 * must handle is there on purpose: new accounts, deleted ones, contract creation with storage,
 * slot writes and deletions, storage wiped (cleared, and with the account deleted, and a contract
 * re-created at a deleted one's address), an account's storage emptied, a sibling's deletion
 * folding a leaf up, an empty block. After the baseline, the backfill to genesis and the forward
 * sync, at every block of the window:
 * - every hash-referenced node of the main store's tries at that block is the proofs store's node
 *   at its path;
 * - every proof equals the main store's (`mainStoreProof`).
 * Also: a baseline taken while blocks commit reads one block's state; an interrupted baseline
 * resumed after the head moved finishes at its own block; on a chain keeping 4 blocks of state
 * history the backfill stops at the history floor (said once, counted, shown by the status) and a
 * store behind it is refused forward with `PROOFS_HISTORY_UNAVAILABLE`.
 */
import { createBlock } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { createAccount, createAddressFromString, KECCAK256_RLP, type Address } from "@ethereumjs/util";
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { blockWriteOf, Chain } from "../../../src/blockchain/chain.js";
import type { OverlayStateManager } from "../../../src/execution/state/overlayStateManager.js";
import { encodeBaselineProgress } from "../../../src/proofs/baseline.js";
import { ProofsError } from "../../../src/proofs/errors.js";
import { ProofsReader } from "../../../src/proofs/reader.js";
import { allocateProofsStats, ProofsStats } from "../../../src/proofs/stats.js";
import { ProofsStore } from "../../../src/proofs/store.js";
import { ProofsSync } from "../../../src/proofs/sync.js";
import type { TrieRef } from "../../../src/proofs/types.js";
import { revertedSource, revertState } from "../../../src/storage/stateRevert.js";
import { toNibbles } from "../../../src/storage/trie/path.js";
import type { StateTrieSource } from "../../../src/storage/trie/stateTries.js";
import type { TrieSource } from "../../../src/storage/trie/source.js";
import { nodeRlp } from "../../../src/storage/trie/walk.js";
import { to0x, toHex } from "../../../src/util/bytes.js";
import { ethereumGenesis } from "../../helpers/ethereumGenesis.js";
import { mainStoreProof } from "../../helpers/proofs.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const silent = pino({ level: "silent" });
const tmp = tempDirs();

const address = (i: number): Address => createAddressFromString("0x" + (0x1000 + i).toString(16).padStart(40, "0"));
const slot = (i: number): Uint8Array => Uint8Array.from(Buffer.from(i.toString(16).padStart(64, "0"), "hex"));
const word = (v: bigint): Uint8Array => Uint8Array.from(Buffer.from(v.toString(16).padStart(64, "0"), "hex"));
/** Runtime code of the test contracts (only its hash matters). */
const CODE = Uint8Array.from([0x60, 0x00, 0x60, 0x00, 0xf3]);

/** EOAs 0..7 and contracts 20 (40 slots) and 21 (3 slots) at genesis. */
function genesis() {
  const alloc: Record<string, { balance: string; code?: string; storage?: Record<string, string> }> = {};
  for (let i = 0; i < 8; i++) alloc[address(i).toString()] = { balance: "0x" + (10n ** 18n * BigInt(i + 1)).toString(16) };
  const storage = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, j) => [to0x(slot(j)), to0x(word(BigInt(j + 1) * 0x1234567n))]));
  alloc[address(20).toString()] = { balance: "0x1", code: to0x(CODE), storage: storage(40) };
  alloc[address(21).toString()] = { balance: "0x2", code: to0x(CODE), storage: storage(3) };
  return ethereumGenesis(1337, {}, alloc);
}

/** Commits a block whose state is the head's after `edit`, with no transactions. */
async function seal(chain: Chain, edit: (state: OverlayStateManager) => Promise<void> = async () => undefined): Promise<void> {
  const parent = chain.head.header;
  const { state } = chain.stateManagerAt(parent);
  await edit(state);
  const stateRoot = await state.getStateRoot();
  const number = parent.number + 1n;
  const timestamp = parent.timestamp + 2n;
  const block = createBlock(
    { header: { parentHash: parent.hash(), number, timestamp, stateRoot, gasLimit: parent.gasLimit, baseFeePerGas: chain.nextBaseFee(parent), difficulty: 0n } },
    { common: chain.commonAt(number, timestamp) },
  );
  chain.commitCanonical({ block, write: blockWriteOf(block, [], [], state), gasUsed: 0n });
}

async function put(state: OverlayStateManager, a: Address, nonce: bigint, balance: bigint): Promise<void> {
  await state.putAccount(a, createAccount({ nonce, balance }));
}

/** A contract at `a` with `slots` (index → value), created in this block. */
async function create(state: OverlayStateManager, a: Address, slots: [number, bigint][]): Promise<void> {
  await state.putAccount(a, createAccount({ nonce: 1n, balance: 0n }));
  await state.putCode(a, CODE);
  for (const [i, v] of slots) await state.putStorage(a, slot(i), word(v));
}

/** Blocks 1..8 of the scenario (module doc). */
const BLOCKS: ((s: OverlayStateManager) => Promise<void>)[] = [
  // 1: new accounts; contract 20: slots updated, deleted, added.
  async (s) => {
    for (let i = 30; i < 35; i++) await put(s, address(i), 0n, BigInt(i));
    for (const i of [0, 1, 2, 3, 4]) await s.putStorage(address(20), slot(i), word(0xabcdefn + BigInt(i)));
    for (const i of [5, 6, 7]) await s.putStorage(address(20), slot(i), new Uint8Array(0));
    for (const i of [50, 51]) await s.putStorage(address(20), slot(i), word(7n));
  },
  // 2: an EOA deleted; a contract created with 10 slots.
  async (s) => {
    await s.deleteAccount(address(1));
    await create(
      s,
      address(40),
      Array.from({ length: 10 }, (_, i): [number, bigint] => [i, BigInt(i + 1)]),
    );
  },
  // 3: contract 21's storage wiped and one new slot written; more of 20's slots deleted.
  async (s) => {
    await s.clearStorage(address(21));
    await s.putStorage(address(21), slot(9), word(99n));
    for (const i of [8, 9, 10, 11, 12, 13, 14, 15]) await s.putStorage(address(20), slot(i), new Uint8Array(0));
  },
  // 4: contract 20 deleted with all its storage (self-destruct); balances moved.
  async (s) => {
    await s.deleteAccount(address(20));
    await put(s, address(2), 1n, 5n);
  },
  // 5: a contract created where 20 was (new storage); new accounts.
  async (s) => {
    await create(s, address(20), [
      [1, 11n],
      [70, 12n],
    ]);
    for (let i = 35; i < 38; i++) await put(s, address(i), 0n, 1n);
  },
  // 6: accounts deleted (siblings folding up), many balances.
  async (s) => {
    for (const i of [30, 31, 32]) await s.deleteAccount(address(i));
    for (let i = 3; i < 8; i++) await put(s, address(i), 2n, 777n + BigInt(i));
  },
  // 7: contract 40's storage emptied, the account kept.
  async (s) => {
    await s.clearStorage(address(40));
    await put(s, address(40), 2n, 3n);
  },
  // 8: an empty block.
  async () => undefined,
];

/** The addresses and slots checked at every block (absent ones included). */
const ADDRESSES = [0, 1, 2, 3, 20, 21, 30, 31, 33, 35, 40, 99].map(address);
const SLOTS = [0, 1, 5, 9, 14, 39, 50, 70, 1000].map(slot);

/**
 * Every hash-referenced node (and the root) of a trie through `source`, by path (path string →
 * RLP hex), and its leaves (full key hex → value).
 */
function trieNodes(source: TrieSource, root: Uint8Array): { nodes: Map<string, string>; leaves: Map<string, Uint8Array> } {
  const nodes = new Map<string, string>();
  const leaves = new Map<string, Uint8Array>();
  if (toHex(root) === toHex(KECCAK256_RLP)) return { nodes, leaves };
  type Item = Uint8Array | Item[];
  const visit = (p: number[], ref: Item): void => {
    let node: Item;
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return;
      const r = source.node(Uint8Array.from(p), ref, "unknown");
      if (r === undefined) throw new Error(`main store: no node at ${p.join(",")}`);
      const rlp = nodeRlp(r, p.length);
      nodes.set(p.map((n) => n.toString(16)).join(""), toHex(rlp));
      node = RLP.decode(rlp) as Item;
    } else node = ref;
    const list = node as Item[];
    if (list.length === 17) {
      for (let i = 0; i < 16; i++) visit([...p, i], list[i]!);
      return;
    }
    const compact = list[0] as Uint8Array;
    const flag = compact[0]! >> 4;
    const full = [...p, ...[...toNibbles(compact)].slice(flag & 1 ? 1 : 2)];
    if (flag >= 2) leaves.set(full.map((n) => n.toString(16)).join(""), list[1] as Uint8Array);
    else visit(full, list[1]!);
  };
  visit([], root);
  return { nodes, leaves };
}

/**
 * The main store's tries at block `n`: the chain's (`trieSourceAt`), or below the block the chain
 * serves states from (its history floor), the store's revert to it, which reaches one block lower.
 */
function mainTriesAt(chain: Chain, n: bigint): StateTrieSource {
  const header = chain.getHeaderByHash(chain.getCanonicalHash(n)!)!;
  if (n >= chain.oldestStateBlock()) return chain.trieSourceAt(header);
  const head = chain.head.header;
  return revertedSource(revertState(chain.store, { number: head.number, stateRoot: head.stateRoot }, { number: n, stateRoot: header.stateRoot }));
}

/** At block `n`: every node of the main store's tries (account trie, every storage trie) is the proofs store's at its path. */
async function expectSameNodes(chain: Chain, store: ProofsStore, n: bigint): Promise<number> {
  const header = chain.getHeaderByHash(chain.getCanonicalHash(n)!)!;
  const tries = mainTriesAt(chain, n);
  const check = async (trie: TrieRef, nodes: Map<string, string>): Promise<void> => {
    for (const [p, rlp] of nodes) {
      const got = await store.node(trie, Uint8Array.from([...p].map((c) => parseInt(c, 16))), n);
      expect(got === undefined ? "none" : toHex(got), `${trie.kind} node at "${p}" at block ${n}`).toBe(rlp);
    }
  };
  const account = trieNodes(tries.account, header.stateRoot);
  await check({ kind: "account" }, account.nodes);
  let count = account.nodes.size;
  for (const [key, value] of account.leaves) {
    const storageRoot = (RLP.decode(value) as Uint8Array[])[2]!;
    const hashed = Uint8Array.from(Buffer.from(key, "hex"));
    const storage = trieNodes(tries.storage(hashed), storageRoot);
    await check({ kind: "storage", hashedAddress: hashed }, storage.nodes);
    count += storage.nodes.size;
  }
  return count;
}

/** At every block of the window: every node is the main store's, and every proof the main store's (where the chain serves that state). */
async function checkWindow(chain: Chain, store: ProofsStore): Promise<void> {
  const reader = new ProofsReader(chain, store);
  const w = store.window();
  for (let n = w.earliest!.number; n <= w.latest!.number; n++) {
    expect(await expectSameNodes(chain, store, n)).toBeGreaterThan(0);
    if (n < chain.oldestStateBlock()) continue;
    for (const a of ADDRESSES) {
      const want = await mainStoreProof(chain, n, a.bytes, SLOTS);
      const got = await reader.proof(a.toString(), SLOTS.map((s) => to0x(s)), n);
      expect(got.accountProof, `account proof of ${a.toString()} at block ${n}`).toEqual(want.accountProof);
      expect([got.balance, got.nonce, got.codeHash, got.storageHash]).toEqual([want.balance, want.nonce, want.codeHash, want.storageHash]);
      expect(got.storageProof, `storage proofs of ${a.toString()} at block ${n}`).toEqual(want.storageProof);
    }
  }
}

async function newChain(opts: { archive: boolean; historyBlocks?: number }): Promise<Chain> {
  const datadir = tmp("basalt-proofs-steps-");
  await Chain.init(datadir, genesis(), { archive: opts.archive });
  return Chain.open(datadir, { logger: silent, archive: opts.archive, historyBlocks: opts.historyBlocks });
}

async function newStore(chain: Chain): Promise<ProofsStore> {
  return ProofsStore.open(tmp("basalt-proofs-steps-store-"), { chainId: chain.chainId, genesisHash: chain.genesisHash });
}

describe("ProofsSync steps over deletions, storage wipes, new accounts and contract creation", () => {
  it("baseline, backfill to genesis and forward sync give the main store's nodes and proofs at every block", async () => {
    const chain = await newChain({ archive: true });
    const store = await newStore(chain);
    try {
      for (const edit of BLOCKS.slice(0, 4)) await seal(chain, edit);
      const stats = new ProofsStats(allocateProofsStats());
      const sync = new ProofsSync(chain, store, 1_000n, silent, { stats, baselineBatchNodes: 7 });
      expect((await sync.initBaseline()).created).toBe(true);
      expect(store.window().latest!.number).toBe(4n);
      while ((await sync.backfill(3)) > 0);
      expect(store.window().earliest!.number).toBe(0n);
      expect(sync.backfillStop()).toBeUndefined();
      await checkWindow(chain, store);
      for (const edit of BLOCKS.slice(4)) await seal(chain, edit);
      expect((await sync.forward(100)).forward).toBe(4);
      expect(store.window().latest!.number).toBe(8n);
      await checkWindow(chain, store);
      expect(stats.get("syncNodeReads")).toBeGreaterThan(0);
      expect(stats.get("backfillStoppedAt")).toBe(-1);
    } finally {
      await store.close();
      await chain.close();
    }
  }, 120_000);

  it("takes the baseline of one block while blocks commit, and resumes an interrupted one at its block after the head moved", async () => {
    const chain = await newChain({ archive: true });
    try {
      for (const edit of BLOCKS.slice(0, 3)) await seal(chain, edit);
      // Blocks commit between the baseline's batches: it stays the state of block 3.
      const store = await newStore(chain);
      let sealed = 0;
      let headSeen = 0n;
      const sync = new ProofsSync(chain, store, 1_000n, silent, { baselineBatchNodes: 5 });
      await sync.initBaseline(() => {
        headSeen = chain.head.header.number;
        if (sealed < 2) void seal(chain, BLOCKS[3 + sealed++]);
      });
      expect(sealed).toBe(2);
      // Later batches were written with the head moved on.
      expect(headSeen).toBeGreaterThan(3n);
      expect(chain.head.header.number).toBe(5n);
      expect(store.window().latest!.number).toBe(3n);
      expect((await sync.forward(100)).forward).toBe(2);
      while ((await sync.backfill(10)) > 0);
      await checkWindow(chain, store);
      await store.close();

      // A baseline killed after its first batches (at block 5), resumed once the head is at 7.
      const dir = tmp("basalt-proofs-resume-");
      const first = await ProofsStore.open(dir, { chainId: chain.chainId, genesisHash: chain.genesisHash });
      let batches = 0;
      const killed = await new ProofsSync(chain, first, 1_000n, silent, { baselineBatchNodes: 5 })
        .initBaseline(() => {
          if (++batches === 4) throw new Error("killed");
        })
        .catch((e: Error) => e.message);
      expect(killed).toBe("killed");
      expect(first.initialized).toBe(false);
      await first.close();
      for (const edit of BLOCKS.slice(5, 7)) await seal(chain, edit);
      const again = await ProofsStore.open(dir, { chainId: chain.chainId, genesisHash: chain.genesisHash });
      try {
        const resumed = new ProofsSync(chain, again, 1_000n, silent, { baselineBatchNodes: 5 });
        expect((await resumed.initBaseline()).created).toBe(true);
        expect(again.window().latest!.number).toBe(5n);
        expect((await resumed.forward(100)).forward).toBe(2);
        while ((await resumed.backfill(10)) > 0);
        expect(again.window().earliest!.number).toBe(0n);
        await checkWindow(chain, again);
      } finally {
        await again.close();
      }
    } finally {
      await chain.close();
    }
  }, 120_000);

  it("stops the backfill at the main store's history floor, said once, and refuses to go forward from behind it", async () => {
    const chain = await newChain({ archive: false, historyBlocks: 4 });
    const lines: { msg: string; historyFloor?: string }[] = [];
    const log = pino(
      { level: "info" },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const l of chunk.toString("utf8").split("\n")) if (l !== "") lines.push(JSON.parse(l) as { msg: string });
          done();
        },
      }),
    );
    const behind = await newStore(chain);
    const store = await newStore(chain);
    try {
      await seal(chain, BLOCKS[0]);
      // A store whose baseline is at block 1, left behind while the chain goes on.
      await new ProofsSync(chain, behind, 1_000n, silent).initBaseline();
      for (let i = 1; i < 20; i++) await seal(chain, BLOCKS[i % BLOCKS.length]);
      // Pruned at block 20 (a multiple of 16 blocks of history floor) to history from block 16.
      expect(chain.store.historyFloor()).toBe(16n);
      const stats = new ProofsStats(allocateProofsStats());
      const sync = new ProofsSync(chain, store, 1_000n, log, { stats });
      await sync.initBaseline();
      expect(sync.backfillTarget()).toBe(15n);
      while ((await sync.backfill(3)) > 0);
      expect(await sync.backfill(3)).toBe(0);
      expect(store.window().earliest!.number).toBe(15n);
      expect(sync.backfillStop()).toEqual({ earliest: 15n, historyFloor: 16n });
      expect(lines.filter((l) => /backward extension stops here/.test(l.msg))).toHaveLength(1);
      expect([stats.get("backfillStoppedAt"), stats.get("backfillHistoryStops")]).toEqual([15, 1]);
      await checkWindow(chain, store);

      const stuck = await new ProofsSync(chain, behind, 1_000n, silent).forward(10).catch((e: unknown) => e);
      expect(stuck).toBeInstanceOf(ProofsError);
      expect((stuck as ProofsError).type).toEqual({ code: "PROOFS_HISTORY_UNAVAILABLE", block: "2", floor: "16" });
      expect(behind.window().latest!.number).toBe(1n);

      // A baseline interrupted at block 2 cannot be finished once the main store's history starts above it.
      const interrupted = await newStore(chain);
      try {
        await interrupted.writeBaseline([], encodeBaselineProgress({ number: 2n, hash: chain.getCanonicalHash(2n)!, lastAccount: undefined }));
        const e = await new ProofsSync(chain, interrupted, 1_000n, silent).initBaseline().catch((x: unknown) => x);
        expect((e as ProofsError).type).toMatchObject({ code: "PROOFS_BASELINE_UNRESUMABLE", block: "2" });
        expect((e as Error).message).toMatch(/keeps it from block 16/);
      } finally {
        await interrupted.close();
      }
    } finally {
      await behind.close();
      await store.close();
      await chain.close();
    }
  }, 120_000);
});
