/**
 * A thread of the load generator (node:worker_threads): builds its engine from `workerData`
 * ({@link ThreadInit}), answers `ready` (or `fatal`), then executes each `{ id, cmd }` message
 * and answers `{ id, result }` or `{ id, error }`. Started by {@link import("./generator.js").LoadGenerator}.
 */
import { parentPort, workerData } from "node:worker_threads";
import { engineFromInit, execute, transferables, type Command, type ThreadInit } from "./commands.js";
import type { Engine } from "./engine.js";

/** A message from the main thread. */
type Inbound = { id: number; cmd: Command } | { close: true };

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const port = parentPort;
if (port !== null) {
  let engine: Engine | undefined;
  engineFromInit(workerData as ThreadInit).then(
    (e) => {
      engine = e;
      port.postMessage({ ready: true });
    },
    (e: unknown) => port.postMessage({ fatal: message(e) }),
  );
  port.on("message", (m: Inbound) => {
    if ("close" in m) {
      engine?.close();
      port.close();
      return;
    }
    if (engine === undefined) return port.postMessage({ id: m.id, error: "the generator thread has no engine" });
    execute(engine, m.cmd).then(
      (result) => port.postMessage({ id: m.id, result }, transferables(result)),
      (e: unknown) => port.postMessage({ id: m.id, error: message(e) }),
    );
  });
}
