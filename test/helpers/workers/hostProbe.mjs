// A worker for the WorkerHost tests: echoes, throws typed errors, emits events, counts a metric,
// dies on request, fails setup when asked. Runs the compiled host code (dist), as every worker does.
import { workerData } from "node:worker_threads";
import { serveWorker } from "../../../dist/src/util/workerServe.js";
import { counter } from "../../../dist/src/util/metrics.js";
import { WorkerHostError, WorkerHostErrorCode } from "../../../dist/src/util/workerHost.js";

const echoes = counter({ name: "basalt_proofs_probe_echoes_total", help: "probe echoes" });
const foreign = counter({ name: "basalt_chain_probe_foreign_total", help: "not under the probe's prefix" });

serveWorker(async (outbox) => {
  if (workerData.failSetup) throw new WorkerHostError({ code: WorkerHostErrorCode.START_FAILED, worker: "probe" }, "probe setup refused");
  let stopped = false;
  return {
    handlers: {
      echo: (p) => {
        echoes.inc();
        foreign.inc();
        return p;
      },
      fail: () => {
        throw new WorkerHostError({ code: WorkerHostErrorCode.TIMEOUT, worker: "probe", method: "fail", timeoutMs: 7 }, "probe typed failure");
      },
      plain: () => {
        throw new RangeError("plain failure");
      },
      never: () => new Promise(() => undefined),
      die: () => process.exit(3),
      stoppedYet: () => stopped,
      data: () => workerData.n ?? null,
    },
    notes: { ping: (p) => outbox.emit("pong", p) },
    stop: async () => {
      stopped = true;
    },
  };
});
