/**
 * Preparation of a corpus's request bodies for sending, and the check of every answer: HTTP
 * status, JSON, the JSON-RPC `result`/`error` members, and the corpus's own validator. Each
 * call of a batch body is checked and counted on its own. An answer whose body was not kept (a
 * large answer outside the generator's sample) counts as a success on its status and framing.
 */
import type { HttpOutcome } from "./client.js";
import { LoadError } from "./errors.js";
import type { Tally } from "./stats.js";
import type { Corpus } from "./types.js";

/** A corpus ready to send: encoded bodies and what each answer must contain. */
export interface PreparedCorpus {
  corpus: Corpus;
  /** UTF-8 bodies, in corpus order */
  payloads: Buffer[];
  /** per body: the JSON-RPC calls it holds (1 for a single request) */
  calls: number[];
  /** per body: the request ids of a batch body (undefined for a single request) */
  batchIds: (unknown[] | undefined)[];
}

/** Encodes `corpus` and records the calls of each body. Throws `BENCH_LOAD_PLAN` for an empty corpus or a body that is not a JSON object or array. */
export function prepareCorpus(corpus: Corpus): PreparedCorpus {
  if (corpus.bodies.length === 0) {
    throw new LoadError("BENCH_LOAD_PLAN", `corpus ${JSON.stringify(corpus.name)} has no bodies: expected at least one request`);
  }
  const prepared: PreparedCorpus = { corpus, payloads: [], calls: [], batchIds: [] };
  corpus.bodies.forEach((body, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new LoadError("BENCH_LOAD_PLAN", `corpus ${JSON.stringify(corpus.name)} body ${i} is not JSON: ${body.slice(0, 80)}`);
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) {
        throw new LoadError("BENCH_LOAD_PLAN", `corpus ${JSON.stringify(corpus.name)} body ${i} is an empty batch: expected at least one request`);
      }
      prepared.calls.push(parsed.length);
      prepared.batchIds.push(parsed.map((r) => (isObject(r) ? r.id : undefined)));
    } else if (isObject(parsed)) {
      prepared.calls.push(1);
      prepared.batchIds.push(undefined);
    } else {
      const what = `corpus ${JSON.stringify(corpus.name)} body ${i} is not a JSON-RPC request`;
      throw new LoadError("BENCH_LOAD_PLAN", `${what}: expected an object or an array`);
    }
    prepared.payloads.push(Buffer.from(body, "utf8"));
  });
  return prepared;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The failure kind of one JSON-RPC response object, or undefined when it succeeded. */
export function checkCall(response: unknown, corpus: Corpus, bodyIndex: number, elementIndex: number): string | undefined {
  if (!isObject(response)) return "invalid response";
  const error = response.error;
  if (error !== undefined && error !== null) {
    const code = isObject(error) ? error.code : undefined;
    return typeof code === "number" ? `rpc ${code}` : "rpc error";
  }
  if (!("result" in response)) return "missing result";
  if (corpus.validate === undefined) return undefined;
  let reason: string | undefined;
  try {
    reason = corpus.validate(response.result, bodyIndex, elementIndex);
  } catch (e) {
    reason = `validator threw ${e instanceof Error ? e.message : String(e)}`;
  }
  return reason === undefined ? undefined : `validate: ${reason}`;
}

/** The key a JSON-RPC id is matched by in a batch answer. */
function idKey(id: unknown): string {
  return JSON.stringify(id ?? null);
}

/**
 * Checks the answer to body `bodyIndex` of `prepared` and counts its calls into `tally` as ok or
 * failed by kind (an answer of status 200 without a kept body counts as ok, and as unchecked) ("http 429", "timeout", "econnrefused", "invalid json", "rpc -32005",
 * "missing result", "validate: …"). Batch answers are matched to the requests by id.
 */
export function checkOutcome(outcome: HttpOutcome, prepared: PreparedCorpus, bodyIndex: number, tally: Tally): void {
  const calls = prepared.calls[bodyIndex] as number;
  if (outcome.error !== undefined) return tally.fail(outcome.error, calls);
  if (outcome.status !== 200) return tally.fail(`http ${outcome.status}`, calls);
  if (outcome.body === undefined) {
    tally.unchecked += calls;
    return tally.succeed(calls);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.body.toString("utf8"));
  } catch {
    return tally.fail("invalid json", calls);
  }
  const corpus = prepared.corpus;
  const ids = prepared.batchIds[bodyIndex];
  if (ids === undefined) {
    const kind = Array.isArray(parsed) ? "unexpected batch answer" : checkCall(parsed, corpus, bodyIndex, 0);
    return kind === undefined ? tally.succeed() : tally.fail(kind);
  }
  if (!Array.isArray(parsed)) {
    // A batch refused as a whole (e.g. batches disabled) answers with one error object.
    const refused = isObject(parsed) && parsed.error !== undefined && parsed.error !== null;
    return tally.fail((refused ? checkCall(parsed, corpus, bodyIndex, 0) : undefined) ?? "invalid batch answer", calls);
  }
  const byId = new Map<string, unknown>();
  for (const r of parsed) if (isObject(r)) byId.set(idKey(r.id), r);
  ids.forEach((id, i) => {
    const response = byId.get(idKey(id)) ?? (id === undefined ? parsed[i] : undefined);
    if (response === undefined) return tally.fail("missing response");
    const kind = checkCall(response, corpus, bodyIndex, i);
    if (kind === undefined) tally.succeed();
    else tally.fail(kind);
  });
}
