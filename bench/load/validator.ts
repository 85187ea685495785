/**
 * Validators that cross thread boundaries. A function cannot be sent to a worker thread, so a
 * corpus that should be checked on the generator's threads names its validator instead: a
 * factory exported by a module, and the (structured-cloneable) arguments it is called with. Each
 * thread imports the module and calls the factory once.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { repoRoot } from "../scenario/processes.js";
import { LoadError } from "./errors.js";
import type { Corpus, ValidatorRef } from "./types.js";

/** The check of one result: a failure reason, or undefined when it is right. */
export type Validate = NonNullable<Corpus["validate"]>;

/**
 * `{ validate, validator }` for a corpus: the validator built here (for the main thread) and its
 * reference (for the generator's threads). `factory` must be exported by `moduleUrl` under its
 * own name, and `args` must survive structured cloning (strings, numbers, bigints, arrays…).
 */
export function validatorRef<A extends unknown[]>(moduleUrl: string, factory: (...args: A) => Validate, ...args: A): { validate: Validate; validator: ValidatorRef } {
  return { validate: factory(...args), validator: { module: moduleUrl, name: factory.name, args } };
}

/**
 * The URL a thread can import for `url`: itself for compiled JavaScript, the compiled file under
 * `dist/` for a TypeScript source (tests run the sources; threads run the build). Throws
 * `BENCH_LOAD_GENERATOR` when that file is missing.
 */
export function compiledUrl(url: string): string {
  const file = fileURLToPath(url);
  if (!file.endsWith(".ts")) return url;
  const root = repoRoot();
  const compiled = path.join(root, "dist", path.relative(root, file).replace(/\.ts$/, ".js"));
  if (!existsSync(compiled)) {
    throw new LoadError("BENCH_LOAD_GENERATOR", `${compiled} not found: run \`npm run build\` first (the generator's threads run the compiled bench)`, {
      file: compiled,
    });
  }
  return pathToFileURL(compiled).href;
}

/** Builds the validator `ref` names (imports its module). Throws `BENCH_LOAD_GENERATOR` when the export is not a function. */
export async function resolveValidator(ref: ValidatorRef): Promise<Validate> {
  const mod = (await import(compiledUrl(ref.module))) as Record<string, unknown>;
  const factory = mod[ref.name];
  if (typeof factory !== "function") {
    throw new LoadError("BENCH_LOAD_GENERATOR", `validator ${ref.name} is not exported by ${ref.module}: expected a factory function`, { ...ref });
  }
  const validate: unknown = (factory as (...a: unknown[]) => unknown)(...ref.args);
  if (typeof validate !== "function") {
    throw new LoadError("BENCH_LOAD_GENERATOR", `validator factory ${ref.name} of ${ref.module} returned no function`, { ...ref });
  }
  return validate as Validate;
}

/** This module's URL, for references to the factories below. */
export const VALIDATOR_MODULE = import.meta.url;

/** Validator factory: the result is `expected` (compared as JSON). */
export function resultEquals(expected: unknown): Validate {
  const want = JSON.stringify(expected);
  return (result) => (JSON.stringify(result) === want ? undefined : `expected ${want.slice(0, 40)}`);
}

/** Validator factory: the result of body i is `expected[i]` (compared as JSON), e.g. to check answers are matched to their requests. */
export function resultsEqual(expected: unknown[]): Validate {
  const want = expected.map((e) => JSON.stringify(e));
  return (result, bodyIndex) => {
    const w = want[bodyIndex ?? 0];
    return JSON.stringify(result) === w ? undefined : `expected ${String(w).slice(0, 40)} for body ${bodyIndex ?? 0}`;
  };
}
