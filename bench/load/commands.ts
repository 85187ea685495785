/**
 * What the main thread asks a generator thread to do, and how a thread does it (the same code
 * runs in a worker thread or, for corpora whose validator cannot cross threads, on the main
 * thread).
 */
import { runClosedLoop, type ClosedLoopOptions } from "./closedLoop.js";
import type { HttpOutcome } from "./client.js";
import { Engine, type EngineOptions, type ShardResult } from "./engine.js";
import { runOpenLoop, type OpenLoopOptions } from "./openLoop.js";
import type { TallyData } from "./stats.js";
import type { Corpus, ValidatorRef } from "./types.js";
import { resolveValidator } from "./validator.js";

/** A command of the main thread to one generator thread. */
export type Command =
  | { kind: "warm"; indices: number[] }
  | { kind: "capture"; bodyIndex: number }
  | { kind: "probe"; depth: number }
  | ({ kind: "open" } & OpenLoopOptions)
  | ({ kind: "closed" } & ClosedLoopOptions);

/** What each command returns. */
export type CommandResult =
  | { kind: "warm"; tally: TallyData; sizes: Array<[number, number]> }
  | { kind: "capture"; outcome: HttpOutcome; ok: boolean }
  | { kind: "probe"; failure?: string }
  | { kind: "run"; result: ShardResult };

/** What a generator thread is started with (structured-cloneable: the validator travels as a reference). */
export interface ThreadInit extends Omit<EngineOptions, "corpus"> {
  corpus: { name: string; bodies: string[]; validator?: ValidatorRef };
  /** the body index the validator is told (calibration replays one body of a corpus as a corpus of its own) */
  validateAs?: number;
}

/** The corpus an engine checks with: `validate` made to see `validateAs` as the body index when set. */
export function engineCorpus(corpus: Corpus, validateAs: number | undefined): Corpus {
  const validate = corpus.validate;
  if (validate === undefined || validateAs === undefined) return corpus;
  return { ...corpus, validate: (result, _bodyIndex, elementIndex) => validate(result, validateAs, elementIndex) };
}

/** Builds a thread's engine from its init data (imports the validator's module). */
export async function engineFromInit(init: ThreadInit): Promise<Engine> {
  const validate = init.corpus.validator === undefined ? undefined : await resolveValidator(init.corpus.validator);
  const corpus: Corpus = { name: init.corpus.name, bodies: init.corpus.bodies, ...(validate !== undefined ? { validate } : {}) };
  return new Engine({ ...init, corpus: engineCorpus(corpus, init.validateAs) });
}

/** Executes `cmd` on `engine`. */
export async function execute(engine: Engine, cmd: Command): Promise<CommandResult> {
  switch (cmd.kind) {
    case "warm":
      return { kind: "warm", ...(await engine.warm(cmd.indices)) };
    case "capture":
      return { kind: "capture", ...(await engine.capture(cmd.bodyIndex)) };
    case "probe": {
      const failure = await engine.probePipeline(cmd.depth);
      return failure === undefined ? { kind: "probe" } : { kind: "probe", failure };
    }
    case "open":
      return { kind: "run", result: await runOpenLoop(engine, cmd) };
    case "closed":
      return { kind: "run", result: await runClosedLoop(engine, cmd) };
  }
}

/** The buffers a result can hand over to the main thread without copying. */
export function transferables(r: CommandResult): ArrayBuffer[] {
  if (r.kind === "warm") return [r.tally.counts.buffer as ArrayBuffer];
  if (r.kind === "run") return [r.result.tally.counts.buffer as ArrayBuffer];
  return [];
}
