/**
 * The worker-thread side of {@link WorkerHost}: every dedicated worker entry (`workers/*.ts`)
 * runs through {@link serveWorker}. It sets the worker up, answers the ready handshake (or sends
 * the setup's error as fatal), dispatches requests by method and one-way notes by name, sends
 * unasked events, answers metrics scrapes from this thread's prom-client registry, and on "stop"
 * runs the worker's stop routine before reporting "stopped".
 */
import { parentPort } from "node:worker_threads";
import { register } from "prom-client";
import { errorToObject } from "./errors.js";
import { decodeFrame, encodeFrame, type FromWorker, type ToWorker } from "./workerProtocol.js";

/** What a worker serves once set up. */
interface WorkerService {
  /** Request handlers by method; the resolved value is the answer (a plain value). */
  handlers?: Record<string, (params: unknown) => unknown>;
  /** One-way notes from the main thread by name. */
  notes?: Record<string, (payload: unknown) => void>;
  /** Finishes the worker's work and closes what it opened; "stopped" is sent once it settles. */
  stop?: () => Promise<void>;
}

/** What a worker can send unasked. */
export interface WorkerOutbox {
  /** Sends an event the main thread's `onEvent` receives. */
  emit(name: string, payload?: unknown): void;
}

function post(f: FromWorker): void {
  parentPort!.postMessage(encodeFrame(f));
}

const outbox: WorkerOutbox = { emit: (m, p) => post(p === undefined ? { k: "event", m } : { k: "event", m, p }) };

/**
 * Runs a worker: `setup` opens what the worker needs and returns what it serves. A setup that
 * throws is reported to the main thread as fatal (its `start()` rejects with the rebuilt error)
 * and the thread then waits to be terminated.
 */
export function serveWorker(setup: (outbox: WorkerOutbox) => Promise<WorkerService> | WorkerService): void {
  const port = parentPort;
  if (port === null) throw new TypeError("serveWorker must run on a worker thread");
  let service: WorkerService | undefined;
  let stopping: Promise<void> | undefined;

  const answer = async (id: number, method: string, params: unknown): Promise<void> => {
    try {
      const h = service?.handlers?.[method];
      if (h === undefined) throw new TypeError(`this worker serves no method ${method}; it serves ${Object.keys(service?.handlers ?? {}).join(", ") || "none"}`);
      const r: unknown = await h(params);
      post(r === undefined ? { k: "res", id } : { k: "res", id, r });
    } catch (e) {
      post({ k: "err", id, e: errorToObject(e) });
    }
  };

  port.on("message", (bytes: Uint8Array) => {
    const f = decodeFrame<ToWorker>(bytes);
    switch (f.k) {
      case "req":
        void answer(f.id, f.m, f.p);
        return;
      case "note":
        service?.notes?.[f.m]?.(f.p);
        return;
      case "metrics":
        void register.getMetricsAsJSON().then(
          (r) => post({ k: "metrics", id: f.id, r }),
          () => post({ k: "metrics", id: f.id, r: [] }),
        );
        return;
      case "stop":
        stopping ??= Promise.resolve()
          .then(() => service?.stop?.())
          .catch(() => undefined)
          .then(() => post({ k: "stopped" }));
        return;
    }
  });

  void (async () => {
    try {
      service = await setup(outbox);
      post({ k: "ready" });
    } catch (e) {
      post({ k: "fatal", e: errorToObject(e) });
    }
  })();
}
