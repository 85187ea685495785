/**
 * Stopping a worker thread that finishes its work on a stop message: send the message, wait for
 * the worker's "stopped" reply (or its exit), then terminate it; terminate anyway after a grace
 * period so a stuck worker cannot hold shutdown.
 */
import type { Worker } from "node:worker_threads";

/** Grace a worker gets to stop by itself. */
const STOP_GRACE_MS = 5_000;

/**
 * Sends `stopMessage` to `w` and resolves once it has terminated.
 * @param isStopped whether a message from the worker is its "stopped" reply
 */
export function stopWorker(w: Worker, stopMessage: Uint8Array, isStopped: (message: Uint8Array) => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(done);
      void w.terminate().then(() => resolve());
    };
    const done = setTimeout(finish, STOP_GRACE_MS);
    w.on("message", (bytes: Uint8Array) => {
      if (isStopped(bytes)) finish();
    });
    w.once("exit", finish);
    w.postMessage(stopMessage);
  });
}
