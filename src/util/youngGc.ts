/**
 * Young-generation collections at idle points, for threads whose work items are latency-bound
 * (the flashblocks worker between frames).
 *
 * V8 collects the young generation when it fills, in the middle of whatever runs; the pause
 * grows with what survives (in the flashblocks worker the pending block's recent transactions,
 * receipts and JSON: 0.3–0.5 MiB, 1–4 ms on the 2-core machine) and is a large part of the
 * tail of flashblock latency. {@link IdleYoungGc.maybeCollect}, called when the thread goes
 * idle, collects once the young generation is more than {@link IdleYoungGc} `fraction` full, so
 * the next work item starts with room to spare and the collection falls between items.
 *
 * The collector is V8's `gc` extension: `--expose-gc` is set for the process (it only adds a
 * `gc` function to contexts created afterwards) and the function is taken from a fresh context.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type GcFunction = (options?: { type?: "major" | "minor"; execution?: "sync" | "async" }) => void | Promise<void>;

let gcFunction: GcFunction | undefined | null = null;

function v8Gc(): GcFunction | undefined {
  if (gcFunction !== null) return gcFunction;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as GcFunction | undefined;
    gcFunction = typeof gc === "function" ? gc : undefined;
  } catch {
    gcFunction = undefined;
  }
  return gcFunction;
}

/** Collects the young generation at idle points once it is filled past a fraction of its capacity. */
export class IdleYoungGc {
  private readonly gc = v8Gc();
  /** Idle-time collections run (a metric for the thread's stats). */
  collections = 0;

  constructor(private readonly fraction: number) {}

  /** Whether this runtime lets the thread collect on demand. */
  get available(): boolean {
    return this.gc !== undefined;
  }

  /** Collects the young generation if it is more than `fraction` full; returns whether it did. */
  maybeCollect(): boolean {
    if (this.gc === undefined) return false;
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    if (young === undefined || young.space_used_size < young.space_size * this.fraction) return false;
    this.gc({ type: "minor" });
    this.collections++;
    return true;
  }
}
