/**
 * Constants of the P2P services' worker threads (consensus layer `workers/p2p.ts`, execution
 * layer `workers/devp2p.ts`) on the worker host, each with its reason. (The networks' own limits
 * still live in `config/constants.ts`.)
 */
import type { RestartPolicy } from "../util/workerHost.js";

/**
 * Restart of a crashed P2P or devp2p worker (same identity and ports): the first restart waits
 * 1 s (the fixed delay each service used before the worker host), later ones double up to 30 s so
 * a crash loop stays slow; a worker that stayed up a minute starts over at 1 s.
 */
export const P2P_WORKER_RESTART: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableMs: 60_000 };

/** Shutdown: how long a P2P worker gets to disconnect its peers and close its sockets (and store) after "stop" before it is terminated (the 5 s each service used). */
export const P2P_WORKER_STOP_GRACE_MS = 5_000;
