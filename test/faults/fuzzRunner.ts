/**
 * JSON-RPC fuzzing over HTTP (fast-check), shared by test/e2e/fuzz.test.ts (3,000 requests, in
 * `npm test`) and test/faults/fuzz.test.ts (50,000, in `npm run test:faults`).
 *
 * Requests mix: valid method names with random params (of every JSON shape, hex-ish strings, huge
 * and negative numbers, deep nesting), arbitrary JSON, mutated valid requests (fields dropped,
 * retyped, truncated text), batches (empty, mixed, with non-objects), invalid UTF-8 bytes, wrong
 * content types and bodies over the size limit. Every answer must be an HTTP error status, or a
 * 200 with a well-formed JSON-RPC response (or batch of them, one per call that has an id); the
 * node must stay alive and answer `eth_chainId` afterwards.
 */
import fc from "fast-check";

/** Methods the fuzzer calls with random params (the public ones a devnet node serves; no state-changing dev_ ones). */
export const FUZZ_METHODS = [
  "eth_chainId", "eth_blockNumber", "eth_getBalance", "eth_getCode", "eth_getStorageAt", "eth_getTransactionCount", "eth_getProof",
  "eth_getBlockByNumber", "eth_getBlockByHash", "eth_getBlockReceipts", "eth_getTransactionByHash", "eth_getTransactionReceipt",
  "eth_getTransactionByBlockNumberAndIndex", "eth_getBlockTransactionCountByNumber", "eth_getUncleCountByBlockNumber",
  "eth_call", "eth_estimateGas", "eth_createAccessList", "eth_getLogs", "eth_feeHistory", "eth_gasPrice", "eth_maxPriorityFeePerGas",
  "eth_sendRawTransaction", "eth_syncing", "eth_accounts", "eth_subscribe", "eth_newFilter", "eth_getFilterChanges", "eth_uninstallFilter",
  "net_version", "web3_clientVersion", "web3_sha3", "txpool_status", "txpool_content", "debug_getRawBlock", "debug_getRawHeader",
  "debug_getRawReceipts", "debug_getRawTransaction", "eth_sendRawTransactionSync", "no_such_method", "",
] as const;

/** Largest body the fuzzer sends on purpose to test the limit: over the node's default 5 MiB-ish max body. */
const OVERSIZED_BODY_BYTES = 6 * 1024 * 1024;

/** One fuzz case: the raw bytes and the content type to send. */
export interface FuzzCase {
  body: Uint8Array | string;
  contentType: string;
  /** what kind of case (for failure messages) */
  kind: string;
}

const hexish = fc.oneof(
  fc.constantFrom("0x", "0x0", "0x00", "latest", "pending", "earliest", "safe", "finalized", "0xffffffffffffffffffffffffffffffffffffffffffffffff", "-0x1", "0x-1"),
  fc.stringMatching(/^0x[0-9a-fA-F]{0,80}$/),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map((n) => (n < 0n ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`)),
);
const jsonLeaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  hexish,
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, jsonLeaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc.dictionary(
    fc.oneof(fc.constantFrom("from", "to", "data", "input", "gas", "value", "blockHash", "fromBlock", "toBlock", "address", "topics"), fc.string({ maxLength: 8 })),
    tie("value"),
    { maxKeys: 6 },
  ),
})).value;

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.double(), fc.constant(undefined), fc.array(fc.integer(), { maxLength: 2 }));
const request = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("2.0"), fc.constant("1.0"), fc.integer()),
    id,
    method: fc.oneof(fc.constantFrom(...FUZZ_METHODS), fc.string({ maxLength: 20 }), fc.integer()),
    params: fc.oneof(fc.array(fc.oneof(hexish, jsonValue), { maxLength: 5 }), jsonValue),
  },
  { requiredKeys: ["method"] },
);

/** `depth` nested arrays or objects around a value. */
function deepNest(depth: number, useObjects: boolean): string {
  return useObjects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

/** The fast-check arbitrary of fuzz cases. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 8, arbitrary: request.map((r) => ({ body: JSON.stringify(r), contentType: "application/json", kind: "request" })) },
  { weight: 3, arbitrary: fc.array(fc.oneof(request, jsonValue), { maxLength: 12 }).map((b) => ({ body: JSON.stringify(b), contentType: "application/json", kind: "batch" })) },
  { weight: 2, arbitrary: jsonValue.map((v) => ({ body: JSON.stringify(v) ?? "null", contentType: "application/json", kind: "json" })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(request, fc.nat(), fc.nat())
      .map(([r, a, b]) => {
        const s = JSON.stringify(r);
        const from = a % (s.length + 1);
        return { body: s.slice(0, from) + s.slice(from + (b % 8)), contentType: "application/json", kind: "mutated" };
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 100_000 }), fc.boolean(), fc.constantFrom(...FUZZ_METHODS))
      .map(([depth, objects, method]) => ({
        body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":[${deepNest(depth, objects)}]}`,
        contentType: "application/json",
        kind: "deep",
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.constantFrom(...FUZZ_METHODS))
      .map(([junk, method]) => {
        const head = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":["`);
        const bad = Buffer.from(junk.map((b) => b | 0x80));
        return { body: new Uint8Array(Buffer.concat([head, bad, Buffer.from('"]}')])), contentType: "application/json", kind: "invalid-utf8" };
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(request, fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=utf-8", "APPLICATION/JSON", "multipart/form-data"))
      .map(([r, ct]) => ({ body: JSON.stringify(r), contentType: ct, kind: `content-type ${ct}` })),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((s) => ({ body: s, contentType: "application/json", kind: "text" })) },
);

/** The oversized body case (sent a few times per run, not generated: 6 MiB each). */
export function oversizedCase(): FuzzCase {
  return { body: `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${"a".repeat(OVERSIZED_BODY_BYTES)}"]}`, contentType: "application/json", kind: "oversized" };
}

/** Why an answer is not acceptable, or undefined when it is. */
export function checkAnswer(status: number, body: string): string | undefined {
  if (status !== 200) return status >= 400 && status < 600 ? undefined : `unexpected HTTP status ${status}`;
  if (body === "") return undefined; // a batch of notifications only: nothing to answer
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `HTTP 200 with a body that is not JSON: ${body.slice(0, 200)}`;
  }
  const one = (r: unknown): string | undefined => {
    if (r === null || typeof r !== "object" || Array.isArray(r)) return `response is not an object: ${JSON.stringify(r).slice(0, 200)}`;
    const o = r as Record<string, unknown>;
    if (o.jsonrpc !== "2.0") return `response without jsonrpc "2.0": ${JSON.stringify(o).slice(0, 200)}`;
    if (!("id" in o)) return `response without id: ${JSON.stringify(o).slice(0, 200)}`;
    const hasResult = "result" in o;
    const hasError = "error" in o;
    if (hasResult === hasError) return `response must have exactly one of result/error: ${JSON.stringify(o).slice(0, 200)}`;
    if (hasError) {
      const e = o.error as Record<string, unknown> | null;
      if (e === null || typeof e !== "object" || !Number.isInteger(e.code) || typeof e.message !== "string") {
        return `malformed error object: ${JSON.stringify(o.error).slice(0, 200)}`;
      }
    }
    return undefined;
  };
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return "empty batch answer";
    for (const r of parsed) {
      const bad = one(r);
      if (bad !== undefined) return `batch element: ${bad}`;
    }
    return undefined;
  }
  return one(parsed);
}

/** Sends one case; resolves with status and body text (network errors reject). */
export async function sendCase(url: string, c: FuzzCase, timeoutMs: number): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {};
  if (c.contentType !== "") headers["content-type"] = c.contentType;
  const res = await fetch(url, { method: "POST", headers, body: c.body, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: await res.text() };
}

/** Result of {@link runFuzz}. */
export interface FuzzResult {
  sent: number;
  /** answers by HTTP status */
  statuses: Record<number, number>;
  /** the first unacceptable answers (at most 5), with the case that produced them */
  failures: string[];
  /** requests whose connection failed (reset/closed without an answer) */
  transportErrors: number;
}

/** Requests in flight at once: enough to overlap slow calls, few enough for 2 shared cores. */
const FUZZ_CONCURRENCY = 8;
/** Per-request timeout: eth_call/estimateGas with random params finish far sooner (evm timeout 5 s). */
const FUZZ_TIMEOUT_MS = 20_000;
/** Oversized bodies sent per run (each is 6 MiB on the wire). */
const OVERSIZED_PER_RUN = 3;

/**
 * Sends `count` generated cases (deterministic for `seed`) plus a few oversized bodies to `url`,
 * FUZZ_CONCURRENCY at a time, and checks every answer with {@link checkAnswer}.
 */
export async function runFuzz(url: string, count: number, seed: number): Promise<FuzzResult> {
  const cases = fc.sample(fuzzCase, { seed, numRuns: count });
  for (let i = 0; i < OVERSIZED_PER_RUN; i++) cases.splice(Math.floor(((i + 1) * cases.length) / (OVERSIZED_PER_RUN + 1)), 0, oversizedCase());
  const result: FuzzResult = { sent: 0, statuses: {}, failures: [], transportErrors: 0 };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const c = cases[next++] as FuzzCase;
      result.sent++;
      try {
        const { status, body } = await sendCase(url, c, FUZZ_TIMEOUT_MS);
        result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        const bad = checkAnswer(status, body);
        if (bad !== undefined && result.failures.length < 5) {
          const sent = typeof c.body === "string" ? c.body.slice(0, 300) : Buffer.from(c.body).toString("hex").slice(0, 300);
          result.failures.push(`[${c.kind}] ${bad}\n  request (${c.contentType}): ${sent}`);
        }
      } catch (e) {
        // The server may close the connection of an oversized body before reading it all (like geth): only that is tolerated.
        if (c.kind === "oversized") continue;
        result.transportErrors++;
        if (result.failures.length < 5) {
          const sent = typeof c.body === "string" ? c.body.slice(0, 300) : Buffer.from(c.body).toString("hex").slice(0, 300);
          result.failures.push(`[${c.kind}] no answer: ${(e as Error).message}\n  request: ${sent}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: FUZZ_CONCURRENCY }, worker));
  return result;
}
