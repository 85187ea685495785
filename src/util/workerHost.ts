/**
 * The one way the main thread runs a dedicated worker thread (flashblocks, proofs, derivation,
 * consensus P2P, execution-layer P2P), after lodestar's worker model:
 *
 * - spawn `workers/<entry>.js` with its `workerData`, and wait for its ready handshake (a worker
 *   whose setup fails sends the error instead: {@link WorkerHost.start} rejects with it rebuilt);
 * - typed requests with ids and a timeout; answers and errors come back through one frame codec
 *   (`workerProtocol.ts`) and errors are rebuilt by one registry (`errorRegistry.ts`);
 * - one-way notes to the worker, unasked events from it;
 * - restart with exponential backoff when the worker dies (if the service wants it), requests in
 *   flight failing at once with {@link WorkerHostError} `WORKER_NOT_RUNNING`;
 * - a bounded stop: the worker finishes and closes what it opened, then is terminated; a worker
 *   that does not answer within the grace is terminated anyway;
 * - metrics: the worker's own prom-client registry is scraped into the main thread's `/metrics`
 *   (`workerMetrics.ts`), with the host's own restart counter and running gauge.
 *
 * The execution pool is the one worker family not run here: piscina runs it (many identical
 * workers, tasks balanced between them); its errors come back through the same registry.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { TypedError } from "./errors.js";
import { errorFromObject, registerErrors, type ErrorClass } from "./errorRegistry.js";
import { counter, gauge } from "./metrics.js";
import { addMetricsSource } from "./workerMetrics.js";
import { decodeFrame, encodeFrame, type FromWorker, type ToWorker, type WorkerMetrics } from "./workerProtocol.js";
import { workerUrl } from "./workerUrl.js";
import type { METRIC_SUBSYSTEMS } from "./metrics.js";

/** Codes of {@link WorkerHostError}. */
export enum WorkerHostErrorCode {
  /** No worker is running (not started, stopped, or between a death and its restart). */
  NOT_RUNNING = "WORKER_NOT_RUNNING",
  /** A request was not answered within its timeout. */
  TIMEOUT = "WORKER_TIMEOUT",
  /** The worker thread failed before it became ready (exit or uncaught error during setup). */
  START_FAILED = "WORKER_START_FAILED",
}

/** The {@link WorkerHostError} variants. */
type WorkerHostErrorType =
  | { code: WorkerHostErrorCode.NOT_RUNNING; worker: string }
  | { code: WorkerHostErrorCode.TIMEOUT; worker: string; method: string; timeoutMs: number }
  | { code: WorkerHostErrorCode.START_FAILED; worker: string; exitCode?: number };

/** A worker could not serve a request or start (not the worker's own errors, which keep their classes). */
export class WorkerHostError extends TypedError<WorkerHostErrorType> {}
registerErrors(WorkerHostError);

/** Restart policy: the delay doubles from `initialDelayMs` up to `maxDelayMs`; a worker that stayed up `stableMs` resets it. */
export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  stableMs: number;
}

/** Options of {@link WorkerHost}. */
export interface WorkerHostOptions {
  /** The worker entry's name (`workers/<entry>.ts`), also its name in logs and metric labels. */
  entry: string;
  /** The entry's compiled module, when it is not `workers/<entry>.js` (tests). */
  url?: URL;
  /** The metric subsystem its host metrics are named under (`basalt_<subsystem>_worker_…`). */
  subsystem: (typeof METRIC_SUBSYSTEMS)[number];
  /**
   * Passed to the worker as `workerData` (plain values and SharedArrayBuffers only); a function is
   * called at each spawn (a restarted worker may need what the first one bound, e.g. its ports).
   */
  workerData?: Record<string, unknown> | (() => Record<string, unknown>);
  log: Logger;
  /** How long the worker gets to stop by itself before it is terminated. */
  stopGraceMs: number;
  /** Default timeout of a request. */
  requestTimeoutMs?: number;
  /** Restart a worker that died; without it a dead worker stays down (its requests fail `WORKER_NOT_RUNNING`). */
  restart?: RestartPolicy;
  /**
   * Counts restarts instead of the host's own `basalt_<subsystem>_worker_restarts_total{worker}`
   * (for a service whose restart counter already exists under that name with other labels).
   */
  restartsCounter?: { inc(): void };
  /** Error classes this worker raises, rebuilt as themselves (registered for the whole process). */
  errors?: ErrorClass[];
  /** Called just before each spawn, and once that worker is online or gone (for V8 flags that size the new isolate's heap). */
  aroundSpawn?: { before(): void; after(): void };
  /** Unasked events from the worker. */
  onEvent?: (name: string, payload: unknown) => void;
  /** Called each time a ready worker exits (before a restart is scheduled; not on {@link WorkerHost.stop}). */
  onExit?: (exitCode: number) => void;
  /** Called each time a worker becomes ready, the first and every restarted one. */
  onReady?: () => void;
}

interface InFlight {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** Time a metrics scrape waits for a busy worker before leaving its metrics out of that scrape. */
const METRICS_SCRAPE_TIMEOUT_MS = 1_000;

/** The main thread's handle on one dedicated worker thread. */
export class WorkerHost {
  private worker: Worker | undefined;
  private ready = false;
  private stopped = false;
  private nextId = 1;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly scrapes = new Map<number, (m: WorkerMetrics | undefined) => void>();
  private restartTimer: NodeJS.Timeout | undefined;
  private restarts = 0;
  private readyAt = 0;
  private removeMetricsSource: (() => void) | undefined;
  private readonly log: Logger;
  private readonly restartsTotal: { inc(): void };
  private readonly runningGauge;

  constructor(private readonly opts: WorkerHostOptions) {
    this.log = opts.log.child({ worker: opts.entry });
    if (opts.errors !== undefined) registerErrors(...opts.errors);
    this.restartsTotal =
      opts.restartsCounter ??
      counter({ name: `basalt_${opts.subsystem}_worker_restarts_total`, help: `Times a ${opts.subsystem} worker thread died and was restarted`, labelNames: ["worker"] }).labels(opts.entry);
    this.runningGauge = gauge({ name: `basalt_${opts.subsystem}_running_workers`, help: `Whether a ${opts.subsystem} worker thread is up and ready (0 or 1)`, labelNames: ["worker"] }).labels(opts.entry);
  }

  /** Whether a worker is up and ready. */
  get running(): boolean {
    return this.ready;
  }

  /** Spawns the worker; resolves once it is ready, rejects with its setup error (rebuilt) or {@link WorkerHostError}. */
  async start(): Promise<void> {
    this.stopped = false;
    this.removeMetricsSource ??= addMetricsSource(() => this.scrapeMetrics(), [`basalt_${this.opts.subsystem}_`]);
    await this.spawn();
  }

  private spawn(): Promise<void> {
    const o = this.opts;
    o.aroundSpawn?.before();
    const workerData = typeof o.workerData === "function" ? o.workerData() : (o.workerData ?? {});
    const worker = new Worker(o.url ?? workerUrl(o.entry), { workerData });
    this.worker = worker;
    if (o.aroundSpawn !== undefined) {
      const after = o.aroundSpawn.after;
      let done = false;
      const once = (): void => {
        if (!done) after();
        done = true;
      };
      worker.once("online", once);
      worker.once("exit", once);
    }
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (e: Error): void => {
        if (settled) return;
        settled = true;
        reject(e);
      };
      worker.on("message", (bytes: Uint8Array) => {
        const f = decodeFrame<FromWorker>(bytes);
        if (f.k === "ready") {
          this.ready = true;
          this.readyAt = Date.now();
          this.runningGauge.set(1);
          settled = true;
          resolve();
          o.onReady?.();
        } else if (f.k === "fatal") {
          fail(errorFromObject(f.e));
          void worker.terminate();
        } else this.onFrame(f);
      });
      worker.on("error", (e) => {
        this.log.error({ err: e }, "worker thread failed");
        fail(e);
      });
      worker.on("exit", (exitCode) => {
        const wasReady = this.ready && this.worker === worker;
        if (this.worker === worker) {
          this.worker = undefined;
          this.ready = false;
          this.runningGauge.set(0);
        }
        this.failInFlight();
        fail(new WorkerHostError({ code: WorkerHostErrorCode.START_FAILED, worker: o.entry, exitCode }, `the ${o.entry} worker exited with code ${exitCode} before it was ready`));
        if (!wasReady || this.stopped) return;
        o.onExit?.(exitCode);
        this.scheduleRestart(exitCode);
      });
    });
  }

  private scheduleRestart(exitCode: number): void {
    const p = this.opts.restart;
    if (p === undefined) {
      this.log.error({ exitCode }, "worker thread exited; it is not restarted");
      return;
    }
    if (Date.now() - this.readyAt >= p.stableMs) this.restarts = 0;
    const delayMs = Math.min(p.maxDelayMs, p.initialDelayMs * 2 ** this.restarts);
    this.restarts++;
    this.log.error({ exitCode, delayMs }, "worker thread exited; restarting");
    this.restartTimer = setTimeout(() => {
      if (this.stopped) return;
      this.restartsTotal.inc();
      this.spawn().catch((e: unknown) => {
        this.log.error({ err: e }, "worker thread restart failed");
        if (!this.stopped && this.worker === undefined) this.scheduleRestart(-1);
      });
    }, delayMs);
  }

  private onFrame(f: FromWorker): void {
    switch (f.k) {
      case "res":
      case "err": {
        const p = this.inFlight.get(f.id);
        if (p === undefined) return;
        this.inFlight.delete(f.id);
        clearTimeout(p.timer);
        if (f.k === "res") p.resolve(f.r);
        else p.reject(errorFromObject(f.e));
        return;
      }
      case "metrics":
        this.scrapes.get(f.id)?.(f.r);
        return;
      case "event":
        try {
          this.opts.onEvent?.(f.m, f.p);
        } catch (e) {
          this.log.error({ err: e, event: f.m }, "worker event handler failed");
        }
        return;
      default:
        return;
    }
  }

  private failInFlight(): void {
    for (const [, p] of this.inFlight) {
      clearTimeout(p.timer);
      p.reject(this.notRunning());
    }
    this.inFlight.clear();
    for (const [, s] of this.scrapes) s(undefined);
    this.scrapes.clear();
  }

  private notRunning(): WorkerHostError {
    return new WorkerHostError({ code: WorkerHostErrorCode.NOT_RUNNING, worker: this.opts.entry }, `the ${this.opts.entry} worker is not running`);
  }

  private post(f: ToWorker): boolean {
    const w = this.worker;
    if (w === undefined || !this.ready) return false;
    w.postMessage(encodeFrame(f));
    return true;
  }

  /**
   * Sends a request and resolves with the worker's answer (rejects with the worker's error,
   * rebuilt, or {@link WorkerHostError} when no worker runs or it does not answer in time).
   */
  request<T>(method: string, params?: unknown, timeoutMs = this.opts.requestTimeoutMs): Promise<T> {
    if (this.worker === undefined || !this.ready) return Promise.reject(this.notRunning());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.inFlight.delete(id);
              reject(new WorkerHostError({ code: WorkerHostErrorCode.TIMEOUT, worker: this.opts.entry, method, timeoutMs }, `the ${this.opts.entry} worker did not answer ${method} within ${timeoutMs} ms`));
            }, timeoutMs);
      this.inFlight.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.post(params === undefined ? { k: "req", id, m: method } : { k: "req", id, m: method, p: params });
    });
  }

  /** Sends a one-way note; dropped (false) when no worker is ready. */
  notify(name: string, payload?: unknown): boolean {
    return this.post(payload === undefined ? { k: "note", m: name } : { k: "note", m: name, p: payload });
  }

  /** The worker's metrics, or undefined when it is down or busier than the scrape can wait. */
  scrapeMetrics(timeoutMs = METRICS_SCRAPE_TIMEOUT_MS): Promise<WorkerMetrics | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.scrapes.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.scrapes.set(id, (m) => {
        clearTimeout(timer);
        this.scrapes.delete(id);
        resolve(m);
      });
      if (!this.post({ k: "metrics", id })) this.scrapes.get(id)!(undefined);
    });
  }

  /** Stops the worker: it finishes and closes what it opened, or is terminated after the grace. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.removeMetricsSource?.();
    this.removeMetricsSource = undefined;
    const w = this.worker;
    if (w === undefined) return;
    await new Promise<void>((resolve) => {
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        clearTimeout(grace);
        void w.terminate().then(() => resolve());
      };
      const grace = setTimeout(() => {
        this.log.warn({ graceMs: this.opts.stopGraceMs }, "worker thread did not stop in time; terminating it");
        finish();
      }, this.opts.stopGraceMs);
      w.on("message", (bytes: Uint8Array) => {
        if (decodeFrame<FromWorker>(bytes).k === "stopped") finish();
      });
      w.once("exit", finish);
      if (this.ready) w.postMessage(encodeFrame({ k: "stop" }));
      else finish();
    });
    this.failInFlight();
  }
}
