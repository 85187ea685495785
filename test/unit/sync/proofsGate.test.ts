/**
 * Follow mode's proofs gate with a real Follower: a devnet source chain of 30 blocks served over
 * HTTP by basalt's own block methods, a follower chain, and a real proofs store on the follower's
 * chain that the test advances itself (`ProofsSync`), so each step of the gate is known:
 * - while the store has no baseline the follower stops `maxAhead` blocks above the head it
 *   started from;
 * - after the baseline, and after each forward step of the store, it stops exactly `maxAhead`
 *   blocks above the store's latest block, and at no head event is it further ahead;
 * - it is woken by the store's change notice: its poll interval is longer than the test, so a
 *   follower that only polled would never move past its first round;
 * - a store whose writer stopped lifts the gate, and the follower reaches the source's head;
 * - the held period is counted, gauged (source blocks held back) and logged at debug.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { NO_PENDING } from "../../../src/flashblocks/pendingView.js";
import { ProofsStore } from "../../../src/proofs/store.js";
import { ProofsSync } from "../../../src/proofs/sync.js";
import { InlineCallService } from "../../../src/rpc/inlineCalls.js";
import { blockMethods } from "../../../src/rpc/methods/blocks.js";
import { RpcHttpServer } from "../../../src/rpc/server.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { Follower } from "../../../src/sync/follower.js";
import { followGatedTotal, followGateHeldBlocks } from "../../../src/sync/metrics.js";
import type { ProofsProgress } from "../../../src/sync/proofsGate.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { pollUntil } from "../../helpers/poll.js";

const silent = pino({ level: "silent" });
const SOURCE_BLOCKS = 30n;
const MAX_AHEAD = 4n;
/** Longer than the test: the follower moves only when woken (a new round's first poll is at start). */
const POLL_MS = 600_000;

const dirs: string[] = [];
function tmp(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** The follower's log lines at debug, parsed. */
const lines: Array<{ msg: string }> = [];
const logger = pino(
  { level: "debug" },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString("utf8").split("\n")) if (l !== "") lines.push(JSON.parse(l) as { msg: string });
      done();
    },
  }),
);

async function metric(m: { get(): Promise<{ values: Array<{ value: number }> }> }): Promise<number> {
  return (await m.get()).values[0]?.value ?? 0;
}

let source: Chain;
let server: RpcHttpServer;
let url = "";
let local: Chain;
let store: ProofsStore;

beforeAll(async () => {
  const src = tmp("basalt-gate-source-");
  await Chain.init(src, devnetGenesis(), { archive: true });
  source = Chain.open(src, { archive: true, logger: silent });
  const seq = new OpDevSequencer(source, new TxPool(source), 0, silent);
  for (let i = 0n; i < SOURCE_BLOCKS; i++) await seq.sealOne();
  const backend = {
    chain: source,
    pool: new TxPool(source),
    calls: new InlineCallService(source, NO_PENDING),
    settings: { gasCap: 50_000_000n, clientVersion: "test" },
    pending: NO_PENDING,
    syncing: () => false as const,
  };
  server = new RpcHttpServer({ host: "127.0.0.1", port: 0, methods: blockMethods(backend), transport: "http" });
  url = `http://127.0.0.1:${await server.listen()}`;
  const dst = tmp("basalt-gate-follower-");
  await Chain.init(dst, devnetGenesis(), { archive: true });
  local = Chain.open(dst, { archive: true, logger: silent });
  store = await ProofsStore.open(tmp("basalt-gate-proofs-"), { chainId: local.chainId, genesisHash: local.genesisHash });
}, 60_000);

afterAll(async () => {
  server?.close();
  await store?.close();
  await local?.close();
  await source?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("follow mode's proofs gate", () => {
  it("keeps the follower within maxAhead blocks of the proofs store's latest block, woken by the store's progress", async () => {
    const sync = new ProofsSync(local, store, 1_000n, silent);
    const listeners = new Set<() => void>();
    let writing = true;
    const progress: ProofsProgress = {
      latest: () => store.window().latest?.number ?? null,
      writing: () => writing,
      onChange: (l) => {
        listeners.add(l);
        return () => void listeners.delete(l);
      },
    };
    const changed = (): void => listeners.forEach((l) => l());
    // At every head the follower reaches: at most maxAhead above the store's latest (above the starting head 0 before the baseline).
    const violations: string[] = [];
    local.onHead(() => {
      const head = local.head.header.number;
      const latest = progress.latest();
      if (writing && head > (latest ?? 0n) + MAX_AHEAD) violations.push(`head ${head} with proofs latest ${latest}`);
    });
    const gatedBefore = await metric(followGatedTotal);
    const follower = new Follower(local, url, { pollIntervalMs: POLL_MS, logger, proofs: { progress, maxBlocksAhead: Number(MAX_AHEAD) } });
    const heldAt = (head: bigint): Promise<true> =>
      pollUntil(`the follower held at block ${head}`, 20_000, async () =>
        local.head.header.number === head && (await metric(followGateHeldBlocks)) === Number(SOURCE_BLOCKS - head) ? true : undefined,
      );
    await follower.start();
    try {
      // No baseline yet: held maxAhead blocks above the head following started from (0).
      await heldAt(MAX_AHEAD);
      expect(store.window().latest).toBeUndefined();
      expect(await metric(followGatedTotal)).toBe(gatedBefore + 1);
      expect(lines.filter((l) => l.msg === "follow mode waits for the historical proofs store")).toHaveLength(1);

      // The baseline at the follower's head (4): the follower may reach 8.
      await sync.initBaseline();
      changed();
      await heldAt(2n * MAX_AHEAD);

      // Forward steps of 3 blocks: each moves the follower to the store's latest + 4.
      while (store.window().latest!.number < 16n) {
        await sync.forward(3);
        changed();
        await heldAt(store.window().latest!.number + MAX_AHEAD);
      }
      expect(violations).toEqual([]);
      // Held the whole time (one held period, never released short of the target).
      expect(await metric(followGatedTotal)).toBe(gatedBefore + 1);

      // The writer stops: the gate is lifted and the follower reaches the source's head.
      writing = false;
      changed();
      await pollUntil("the follower at the source's head", 20_000, async () => (local.head.header.number === SOURCE_BLOCKS ? true : undefined));
      await pollUntil("the held period to end", 20_000, async () => ((await metric(followGateHeldBlocks)) === 0 ? true : undefined));
      expect(local.head.hash()).toEqual(source.head.hash());
      expect(store.window().latest!.number).toBe(16n);
      expect(lines.some((l) => l.msg === "follow mode no longer waits for the historical proofs store")).toBe(true);
      expect(lines.some((l) => l.msg === "the proofs store's writer stopped: follow mode no longer waits for it")).toBe(true);
    } finally {
      await follower.stop();
    }
  }, 60_000);
});
