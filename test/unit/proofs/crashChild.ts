/**
 * Child process of the proofs store's kill test (store.test.ts): opens the store named in the
 * JSON file `PROOFS_CRASH_INPUT` and runs its operations in order. It SIGKILLs itself right after
 * handing the `PROOFS_CRASH_AT_BATCH`-th write batch to RocksDB (the write then runs on a thread
 * of libuv's pool, so the process dies before, during or after `DB::Write`). Run through Vite's
 * module runner (`runnerImport`), so it runs this TypeScript source, not a build.
 */
import { readFileSync } from "node:fs";
import { AtomicBatch } from "../../../src/proofs/rocks.js";
import { ProofsStore } from "../../../src/proofs/store.js";
import { fromJson, runOp, type Op, type Slot } from "./model.js";

/** What the test hands the child. */
export interface CrashInput {
  dir: string;
  chainId: bigint;
  genesisHash: Uint8Array;
  slots: Slot[];
  ops: Op[];
}

const input = fromJson<CrashInput>(readFileSync(process.env.PROOFS_CRASH_INPUT!, "utf8"));
const killAt = Number(process.env.PROOFS_CRASH_AT_BATCH);
let batches = 0;
const commit = AtomicBatch.prototype.commit;
AtomicBatch.prototype.commit = function (this: AtomicBatch): Promise<void> {
  const written = commit.call(this);
  if (++batches === killAt) process.kill(process.pid, "SIGKILL");
  return written;
};

const store = await ProofsStore.open(input.dir, { chainId: input.chainId, genesisHash: input.genesisHash });
for (const op of input.ops) await runOp(store, input.slots, op);
await store.close();
process.stdout.write(`finished after ${batches} batches\n`);
