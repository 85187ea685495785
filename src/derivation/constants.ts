/**
 * Constants of the derivation service (main thread) and its worker, each with its reason.
 * (The pipeline's own limits still live in `config/constants.ts`.)
 */
import type { RestartPolicy } from "../util/workerHost.js";

/**
 * Restart of a crashed derivation worker: it resumes from the safe head, as at start. The first
 * restart waits 1 s (the fixed delay before the worker host), later ones double up to 30 s so a
 * crash loop stays slow; a worker that stayed up a minute starts over at 1 s.
 */
export const DERIVATION_WORKER_RESTART: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableMs: 60_000 };

/** Shutdown: how long the worker gets to finish its step and close the store after "stop" before it is terminated (util/workerStop's grace, kept). */
export const DERIVATION_WORKER_STOP_GRACE_MS = 5_000;
