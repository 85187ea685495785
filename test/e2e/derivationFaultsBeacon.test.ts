/**
 * L1 derivation with batches in blobs when the beacon API fails, with real processes: an anvil L1,
 * a sequencer posting blobs (`--batcher.data blobs`) and a verifier, each reading blobs through a
 * beacon-API proxy in front of anvil (test/helpers/beaconProxy.ts: slot = L1 block by timestamp).
 * The sequencer's proxy stays honest; the verifier's fails on command:
 *
 * - down (HTTP 503): the verifier's safe head stops at the first L1 block with blobs it cannot
 *   fetch, `errors_total{kind="beacon"}` grows, the node stays up; back up, derivation resumes
 *   and catches up with the sequencer.
 * - corrupt (one bit of every blob flipped): every fetch fails its KZG check against the versioned
 *   hash (`kzg_failures_total` grows), the safe head stops and nothing wrong is derived (the
 *   verifier's blocks stay the sequencer's); honest again, derivation resumes and catches up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopAllProcesses } from "../helpers/basaltProcess.js";
import { BeaconProxy } from "../helpers/beaconProxy.js";
import { expectAgreeUpTo, expectSameBlocks, metric, startFaultRollup, startRollupNode, syncStatus, until, type FaultRollup, type RollupNode } from "../helpers/rollupFaults.js";

const SEQ_WINDOW = 20n;

let r: FaultRollup;
let seqBeacon: BeaconProxy;
let verBeacon: BeaconProxy;
let sequencer: RollupNode;
let verifier: RollupNode;

beforeAll(async () => {
  r = await startFaultRollup({ seqWindowSize: SEQ_WINDOW, prefix: "basalt-derive-beacon-" });
  seqBeacon = await BeaconProxy.start(r.anvil.url);
  verBeacon = await BeaconProxy.start(r.anvil.url);
  sequencer = await startRollupNode(r, "sequencer", { sequencer: true, batcher: "blobs", beacon: seqBeacon.url });
  verifier = await startRollupNode(r, "verifier", { beacon: verBeacon.url });
}, 120_000);

afterAll(async () => {
  await stopAllProcesses();
  await seqBeacon?.close();
  await verBeacon?.close();
  await r?.stop();
});

/**
 * With the verifier's proxy in its faulty mode: waits until `counter` has grown (derivation met
 * the fault), then until it has grown twice more (retries) while the safe head stays where it
 * stopped; checks the blocks derived so far are the sequencer's. Returns where it stopped.
 */
async function stallsOn(counter: () => Promise<number>): Promise<number> {
  const base = await counter();
  await until("derivation to meet the fault", async () => ((await counter()) > base ? true : undefined), 60_000);
  const stopped = (await syncStatus(verifier)).safe;
  const seen = await counter();
  await until("two more retries", async () => {
    expect((await syncStatus(verifier)).safe).toBe(stopped);
    return (await counter()) >= seen + 2 ? true : undefined;
  }, 60_000);
  // The sequencer went on meanwhile: there was more to derive.
  expect((await syncStatus(sequencer)).unsafe).toBeGreaterThan(stopped);
  await expectSameBlocks(sequencer, verifier, stopped);
  expect(verifier.node.exitInfo()).toBeUndefined();
  return stopped;
}

describe("derivation faults: the beacon API down, blobs failing KZG", () => {
  it("derives the sequencer's blocks from blobs through the proxy", async () => {
    await expectAgreeUpTo(sequencer, verifier, 4);
    // The worker's counters reach the metrics within a status interval.
    await until("blobs counted", async () => ((await metric(verifier, "basalt_derivation_blobs_fetched_total")) > 0 ? true : undefined), 10_000);
  }, 120_000);

  it("stops while the beacon API answers 503, counting beacon errors, and catches up once it is back", async () => {
    verBeacon.mode = "down";
    const stopped = await stallsOn(() => metric(verifier, "basalt_derivation_errors_total", '{kind="beacon"}'));
    expect(verBeacon.counts.refused).toBeGreaterThan(0);
    verBeacon.mode = "honest";
    const target = (await syncStatus(sequencer)).unsafe;
    expect(target).toBeGreaterThan(stopped);
    await expectAgreeUpTo(sequencer, verifier, target);
  }, 150_000);

  it("refuses blobs that fail KZG, derives nothing from them, and catches up once they are served right", async () => {
    verBeacon.mode = "corrupt";
    const stopped = await stallsOn(() => metric(verifier, "basalt_derivation_kzg_failures_total"));
    expect(verBeacon.counts.corrupted).toBeGreaterThan(0);
    expect(await metric(verifier, "basalt_derivation_errors_total", '{kind="kzg"}')).toBeGreaterThan(0);
    verBeacon.mode = "honest";
    const target = (await syncStatus(sequencer)).unsafe;
    expect(target).toBeGreaterThan(stopped);
    await expectAgreeUpTo(sequencer, verifier, target);
    expect(sequencer.node.exitInfo()).toBeUndefined();
  }, 150_000);
});
