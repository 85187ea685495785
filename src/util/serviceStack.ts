/**
 * A process as an ordered list of services (the shape of TC39's `AsyncDisposableStack`, which
 * Node 20 lacks): each service is started in turn and pushed on a stack; a start that throws
 * stops everything already started, in reverse order, and rethrows its error; {@link
 * ServiceStack.stop} stops every service in reverse order, each bounded in time and logged, a
 * failing or late stop never keeping the others from running.
 */
import type { Logger } from "pino";
import { TypedError } from "./errors.js";

/**
 * Default bound on one service's stop: the grace a worker thread gets to stop by itself
 * (each service's WorkerHost `stopGraceMs`, 5 s). Past it the stop is left running and the next service stops, so one
 * stuck service cannot hold the rest of a shutdown.
 */
const SERVICE_STOP_TIMEOUT_MS = 5_000;

/** One part of a process that starts and stops. */
export interface Service {
  /** Its name in logs and errors (e.g. `"execution pool"`, `"rpc http"`). */
  readonly name: string;
  /**
   * Starts it; resolves once it runs. A start that throws may have started halfway (a worker
   * spawned, a socket bound): its {@link stop} is called too, so `stop` must be safe after a
   * failed start.
   */
  start(): Promise<void>;
  /** Stops it and releases what it holds. Called at most once by the stack. */
  stop(): Promise<void>;
  /** Bound on {@link stop} (default {@link SERVICE_STOP_TIMEOUT_MS}); `Infinity` waits for it. */
  readonly stopTimeoutMs?: number;
}

/** Stable codes of {@link ServiceStackError}. */
const ServiceStackErrorCode = {
  /** One or more services' stops threw (each is logged; the others ran). */
  STOP_FAILED: "SERVICE_STOP_FAILED",
  /** A service was started on a stack that is stopping or stopped. */
  STOPPED: "SERVICE_STACK_STOPPED",
} as const;

/** A {@link ServiceStackError}'s code with its metadata. */
type ServiceStackErrorType =
  | { code: typeof ServiceStackErrorCode.STOP_FAILED; services: string[] }
  | { code: typeof ServiceStackErrorCode.STOPPED; service: string };

/** A stop that failed, or a start after the stop (see the codes). */
export class ServiceStackError extends TypedError<ServiceStackErrorType> {}

/** Where the stack logs (a pino logger or a test double). */
type ServiceStackLogger = Pick<Logger, "debug" | "warn">;

/** Starts services in order and stops them in reverse, in one place (see the module comment). */
export class ServiceStack {
  /** Services whose start was called, in start order. */
  private readonly services: Service[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly log?: ServiceStackLogger) {}

  /** The names of the services on the stack, in start order. */
  get names(): string[] {
    return this.services.map((s) => s.name);
  }

  /**
   * Starts `service` and keeps it on the stack. If its start throws, the service itself and then
   * every service started before it are stopped (reverse order), and the start's error is rethrown
   * as it was (stop failures are logged, never thrown over it).
   * @throws whatever `service.start()` threw; ServiceStackError `SERVICE_STACK_STOPPED` once {@link stop} was called
   */
  async start(service: Service): Promise<void> {
    if (this.stopping !== undefined) {
      throw new ServiceStackError({ code: ServiceStackErrorCode.STOPPED, service: service.name }, `cannot start ${service.name}: the services are stopping`);
    }
    this.services.push(service);
    try {
      await service.start();
    } catch (e) {
      await this.stop().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Keeps a running resource on the stack with only a stop (something opened or built outside
   * {@link start}: a store, a client, a timer). Stopped in reverse order with the services.
   */
  defer(name: string, stop: () => void | Promise<void>, stopTimeoutMs?: number): void {
    this.services.push({ name, start: () => Promise.resolve(), stop: async () => stop(), stopTimeoutMs });
  }

  /**
   * Runs a start step that is not a service (a check, a wiring) under the stack: if it throws,
   * everything started is stopped (reverse order) and its error rethrown.
   */
  async run<T>(step: () => T | Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      await this.stop().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Stops every service on the stack, last started first, once (later calls return the same
   * promise). Each stop is awaited up to its bound; a stop that throws or outlives its bound is
   * logged and the next one runs.
   * @throws ServiceStackError `SERVICE_STOP_FAILED` naming the services whose stop threw, after every stop ran
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    const failed: string[] = [];
    let firstError: unknown;
    for (const service of [...this.services].reverse()) {
      this.log?.debug({ service: service.name }, "stopping");
      const outcome = await bounded(Promise.resolve().then(() => service.stop()), service.stopTimeoutMs ?? SERVICE_STOP_TIMEOUT_MS).catch((e: unknown) => {
        failed.push(service.name);
        firstError ??= e;
        this.log?.warn({ service: service.name, err: e }, "stop failed; stopping the others");
        return "failed" as const;
      });
      if (outcome === "late") {
        this.log?.warn({ service: service.name, timeoutMs: service.stopTimeoutMs ?? SERVICE_STOP_TIMEOUT_MS }, "stop still running after its time limit; stopping the others");
      }
    }
    if (failed.length > 0) {
      throw new ServiceStackError({ code: ServiceStackErrorCode.STOP_FAILED, services: failed }, `stopping ${failed.join(", ")} failed (each is logged); every other service stopped`, { cause: firstError });
    }
  }
}

/** Resolves "done" once `p` settles fine, "late" after `ms` (a rejection past that is dropped); rejects with `p`'s error in time. */
function bounded(p: Promise<void>, ms: number): Promise<"done" | "late"> {
  if (!Number.isFinite(ms)) return p.then(() => "done" as const);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
    timer.unref();
  });
  // A stop that rejects after its bound has been reported late: its error is not unhandled.
  p.catch(() => undefined);
  return Promise.race([p.then(() => "done" as const), late]).finally(() => clearTimeout(timer));
}
