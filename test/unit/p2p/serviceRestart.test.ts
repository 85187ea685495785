/**
 * A P2P worker that dies is restarted by the worker host after a delay, on the same ports and with
 * the same identity; calls made while it is down fail at once instead of hanging; the restart is
 * counted.
 */
import "../../../src/p2p/polyfills.js";
import type { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { P2PErrorCode } from "../../../src/p2p/errors.js";
import { p2pWorkerRestarts } from "../../../src/p2p/metrics.js";
import type { P2PService } from "../../../src/p2p/service.js";
import { waitUntil } from "../../helpers/poll.js";
import { startP2P, testP2POptions } from "../../helpers/p2pServices.js";

describe("P2P worker crash", () => {
  let p: P2PService | undefined;
  afterAll(async () => p?.stop());

  it("is restarted with the same peer id and ports", async () => {
    p = await startP2P(testP2POptions(901n, { forkTimes: {} }));
    const before = p.self();
    const restartsBefore = (await p2pWorkerRestarts().get()).values[0]?.value ?? 0;
    const worker = (p as unknown as { host: { worker: Worker } }).host.worker;
    await worker.terminate();
    await expect(p.call("self")).rejects.toMatchObject({ code: P2PErrorCode.UNAVAILABLE });
    await waitUntil("worker restarted", 15_000, () => p!.running, 50);
    const self = (await p.call("self")) as { peerID: string };
    expect(self.peerID).toBe(before.peerId);
    expect(p.self().tcpPort).toBe(before.tcpPort);
    expect(p.self().udpPort).toBe(before.udpPort);
    expect((await p2pWorkerRestarts().get()).values[0]?.value).toBe(restartsBefore + 1);
  }, 30_000);
});
