/** Reading of user-supplied corpora (`basalt bench load --corpus file.json`). */
import { readFileSync } from "node:fs";
import { LoadError } from "./errors.js";
import type { Corpus } from "./types.js";

/** The shape expected, for error messages. */
const EXPECTED = `{ "corpora": [{ "name": "…", "bodies": [<request object, batch array, or its JSON text>, …], "endpoints"?: ["…"] }] }`;

function fail(file: string, what: string): never {
  throw new LoadError("BENCH_LOAD_CORPUS_FILE", `corpus file ${file}: ${what}; expected ${EXPECTED}`, { file });
}

/**
 * Reads a corpus file: `{ corpora: [{ name, bodies, endpoints? }] }`, where each body is a
 * JSON-RPC request (object), a batch (array) or the JSON text of one. The corpora have no
 * validator (any `result` counts as success). Throws `BENCH_LOAD_CORPUS_FILE` naming the file and
 * the offending entry.
 */
export function readCorpusFile(file: string): Corpus[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new LoadError("BENCH_LOAD_CORPUS_FILE", `cannot read corpus file ${file}: ${(e as Error).message}`, { file }, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return fail(file, `not JSON (${(e as Error).message})`);
  }
  const list = (parsed as { corpora?: unknown } | null)?.corpora;
  if (!Array.isArray(list) || list.length === 0) return fail(file, "no non-empty `corpora` array");
  return list.map((entry: unknown, i): Corpus => {
    const c = entry as { name?: unknown; bodies?: unknown; endpoints?: unknown } | null;
    if (typeof c !== "object" || c === null) return fail(file, `corpora[${i}] is not an object`);
    if (typeof c.name !== "string" || c.name === "") return fail(file, `corpora[${i}].name is not a non-empty string`);
    if (!Array.isArray(c.bodies) || c.bodies.length === 0) return fail(file, `corpora[${i}] (${c.name}).bodies is not a non-empty array`);
    const bodies = c.bodies.map((b: unknown, j): string => {
      let value = b;
      if (typeof b === "string") {
        try {
          value = JSON.parse(b);
        } catch {
          return fail(file, `corpora[${i}].bodies[${j}] is a string that is not JSON`);
        }
      }
      if (typeof value !== "object" || value === null) return fail(file, `corpora[${i}].bodies[${j}] is not a request object or batch array`);
      return typeof b === "string" ? b : JSON.stringify(b);
    });
    const corpus: Corpus = { name: c.name, bodies };
    if (c.endpoints !== undefined) {
      if (!Array.isArray(c.endpoints) || !c.endpoints.every((e) => typeof e === "string")) {
        return fail(file, `corpora[${i}].endpoints is not an array of names`);
      }
      corpus.endpoints = c.endpoints as string[];
    }
    return corpus;
  });
}
