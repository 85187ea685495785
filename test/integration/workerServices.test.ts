/**
 * The flashblocks and proofs services on the worker host (issue 27): a store refusal in the proofs
 * worker's setup rejects start() with the ProofsError itself (rebuilt through the registry), the
 * workers' own counters reach the /metrics scrape, a new head reaches the proofs worker and its
 * "latest" event comes back, and stop() drops each service's head subscription.
 * The workers run from dist/ (`npm run build` first), as in the node.
 */
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { Chain } from "../../src/blockchain/chain.js";
import { FlashblocksService } from "../../src/flashblocks/service.js";
import { ProofsError, ProofsErrorCode } from "../../src/proofs/errors.js";
import { ProofsService } from "../../src/proofs/service.js";
import { ProofsStore } from "../../src/proofs/store.js";
import { scrapeAllMetrics } from "../../src/util/workerMetrics.js";
import { openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { pollUntil, waitUntil } from "../helpers/poll.js";
import { getFreePort } from "../helpers/ports.js";
import { tempDirs } from "../helpers/tempDirs.js";

const silent = pino({ level: "silent" });
const tmp = tempDirs("basalt-worker-services-");

/** Counts the head subscriptions taken on `chain` and not yet dropped. */
function countHeadSubscriptions(chain: Chain): () => number {
  let live = 0;
  const onHead = chain.onHead.bind(chain);
  chain.onHead = (listener) => {
    live++;
    const off = onHead(listener);
    let dropped = false;
    return () => {
      if (!dropped) live--;
      dropped = true;
      off();
    };
  };
  return () => live;
}

/** The value of the sample `name` (with its `{labels}` if any) in a /metrics scrape. */
async function scraped(sample: string): Promise<number | undefined> {
  const { text } = await scrapeAllMetrics();
  const line = text.split("\n").find((l) => l.startsWith(sample + " "));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

describe("worker services on the worker host", () => {
  let dev: SealingDevnet | undefined;
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0).reverse()) await s();
    await dev?.close();
    dev = undefined;
  });

  it("proofs: a store of another chain rejects start() with the ProofsError itself", async () => {
    const datadir = tmp();
    dev = await openSealingDevnet(datadir);
    const proofsPath = path.join(datadir, "proofs");
    const other = await ProofsStore.open(proofsPath, { chainId: dev.chain.chainId + 1n, genesisHash: dev.chain.genesisHash });
    await other.close();
    const proofs = new ProofsService(dev.chain, { datadir, path: proofsPath, window: 64, logLevel: "silent", logFormat: "json" }, silent);
    stops.push(() => proofs.stop());
    const err = await proofs.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProofsError);
    expect((err as ProofsError).type.code).toBe(ProofsErrorCode.OTHER_CHAIN);
  });

  it("proofs: follows a new head, reports its counters through the scrape, and drops its head subscription on stop", async () => {
    const datadir = tmp();
    dev = await openSealingDevnet(datadir);
    const subscriptions = countHeadSubscriptions(dev.chain);
    const proofs = new ProofsService(dev.chain, { datadir, path: path.join(datadir, "proofs"), window: 64, logLevel: "silent", logFormat: "json" }, silent);
    stops.push(() => proofs.stop());
    let latestEvents = 0;
    proofs.onLatestChange(() => latestEvents++);
    await proofs.start();
    expect(subscriptions()).toBe(1);
    await waitUntil("the proofs store's baseline", 30_000, () => proofs.latestBlock() !== null);
    expect(await scraped("basalt_proofs_baseline_nodes")).toBeGreaterThan(0);
    const events = latestEvents;
    await dev.seq.sealOne();
    const head = dev.chain.head.header.number;
    await waitUntil("the proofs window to reach the new head", 30_000, () => proofs.latestBlock() === head);
    expect(latestEvents).toBeGreaterThan(events);
    expect(await pollUntil("the forward counter", 10_000, async () => ((await scraped("basalt_proofs_forward_blocks_total")) ?? 0) >= 1 || undefined)).toBe(true);
    expect(proofs.writing()).toBe(true);
    await proofs.stop();
    expect(subscriptions()).toBe(0);
    expect(proofs.writing()).toBe(false);
    // The worker's counters leave the scrape with it; the main thread's zeros stay listed.
    expect(await scraped("basalt_proofs_forward_blocks_total")).toBe(0);
  });

  it("flashblocks: the worker's stream counters reach the scrape, and stop drops the head subscription", async () => {
    const datadir = tmp();
    dev = await openSealingDevnet(datadir);
    const subscriptions = countHeadSubscriptions(dev.chain);
    // Nothing listens there: every connection attempt fails.
    const url = `ws://127.0.0.1:${await getFreePort()}`;
    const fb = new FlashblocksService(dev.chain, { datadir, url, logLevel: "silent", logFormat: "json", stream: { backoffInitialMs: 20, backoffMaxMs: 50 } }, silent);
    stops.push(() => fb.stop());
    await fb.start();
    expect(subscriptions()).toBe(1);
    const failed = 'basalt_flashblocks_disconnects_total{reason="connect-failed"}';
    await pollUntil("a failed connection counted by the worker", 20_000, async () => (((await scraped(failed)) ?? 0) >= 2 ? true : undefined));
    expect(await scraped("basalt_flashblocks_stream_connections")).toBe(0);
    await fb.stop();
    expect(subscriptions()).toBe(0);
    expect(await scraped(failed)).toBe(0);
  });
});
