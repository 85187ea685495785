/**
 * The command line of the load tool (`basalt bench load` arguments, corpus files) and the
 * `basalt bench` dispatch (parsing, help, unknown or unbuilt tools). In-process only.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PEAK_CONCURRENCY, DEFAULT_PEAK_SECONDS, LOAD_USAGE, parseLoadArgs } from "../../../bench/load/cli.js";
import { readCorpusFile } from "../../../bench/load/corpusFile.js";
import { LoadError } from "../../../bench/load/errors.js";
import { parseCli } from "../../../src/cli/args.js";
import { BENCH_HELP, BenchCommandError, benchCommand } from "../../../src/cli/commands/bench.js";
import { renderHelp } from "../../../src/cli/help.js";
import { parseWrkArgs, WRK_USAGE } from "../../../bench/wrk/cli.js";
import { makeTempDir, removeDir } from "../../helpers/basaltProcess.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => removeDir(d)));
});

function argError(argv: string[], flag: string, pattern: RegExp): LoadError {
  try {
    parseLoadArgs(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(LoadError);
    const err = e as LoadError;
    expect(err.code).toBe("BENCH_LOAD_ARG");
    expect(err.message.startsWith(`${flag}:`), err.message).toBe(true);
    expect(err.message).toMatch(pattern);
    return err;
  }
  throw new Error(`parseLoadArgs(${argv.join(" ")}) did not throw`);
}

describe("parseLoadArgs", () => {
  it("parses every flag, in both --flag value and --flag=value forms", () => {
    const a = parseLoadArgs([
      "--url",
      "a=http://127.0.0.1:1/rpc?key=v",
      "--url=b=https://example.org",
      "--pid",
      "a=42",
      "--methods",
      "eth_call,eth_getBlockByNumber(full)",
      "--steps=1,4,16",
      "--step-seconds",
      "0.5",
      "--peak-concurrency",
      "8",
      "--peak-seconds=2",
      "--max-in-flight",
      "100",
      "--timeout-ms",
      "500",
      "--blocks",
      "16",
      "--corpus",
      "c.json",
      "--out",
      "dir",
      "--threads",
      "3",
      "--pipeline=8",
      "--check-all",
      "--calibration-seconds",
      "1.5",
      "--json",
    ]);
    expect(a.endpoints).toEqual([
      { name: "a", url: "http://127.0.0.1:1/rpc?key=v", pid: 42 },
      { name: "b", url: "https://example.org" },
    ]);
    expect(a).toMatchObject({
      methods: ["eth_call", "eth_getBlockByNumber(full)"],
      steps: [1, 4, 16],
      stepSeconds: 0.5,
      peak: { concurrency: 8, seconds: 2 },
      maxInFlight: 100,
      timeoutMs: 500,
      blocks: 16,
      corpus: "c.json",
      out: "dir",
      threads: 3,
      pipeline: 8,
      checkAll: true,
      calibrationSeconds: 1.5,
      json: true,
      help: false,
    });
    expect(parseLoadArgs(["--url", "a=http://h:1", "--threads", "0"]).threads).toBe(0);
  });

  it("defaults to a peak run, and --no-peak removes it", () => {
    expect(parseLoadArgs(["--url", "a=http://h:1"]).peak).toEqual({ concurrency: DEFAULT_PEAK_CONCURRENCY, seconds: DEFAULT_PEAK_SECONDS });
    expect(parseLoadArgs(["--url", "a=http://h:1", "--no-peak"]).peak).toBeUndefined();
  });

  it("accepts --help without a URL", () => {
    expect(parseLoadArgs(["--help"]).help).toBe(true);
    expect(parseLoadArgs(["-h"]).help).toBe(true);
    expect(LOAD_USAGE).toContain("--url NAME=URL");
  });

  it("names the flag and what was expected on bad arguments", () => {
    argError([], "--url", /at least one --url NAME=URL/);
    argError(["--url", "http://h:1"], "--url", /expected NAME=VALUE/);
    argError(["--url", "a=ftp://h"], "--url", /http:\/\/ or https:\/\//);
    argError(["--url", "a=http://h:1", "--url", "a=http://h:2"], "--url", /given twice/);
    argError(["--url", "a=http://h:1", "--steps", "1,x"], "--steps", /"x".*a number > 0/);
    argError(["--url", "a=http://h:1", "--steps", "0"], "--steps", /a number > 0/);
    argError(["--url", "a=http://h:1", "--peak-concurrency", "1.5"], "--peak-concurrency", /an integer >= 1/);
    argError(["--url", "a=http://h:1", "--step-seconds"], "--step-seconds", /missing value/);
    argError(["--url", "a=http://h:1", "--step-secs", "1"], "--step-secs", /unknown flag \(did you mean --step-seconds\?\)/);
    argError(["--url", "a=http://h:1", "extra"], "extra", /unexpected argument/);
    argError(["--url", "a=http://h:1", "--no-peak", "--peak-seconds", "3"], "--no-peak", /conflicts/);
    argError(["--url", "a=http://h:1", "--pid", "b=1"], "--pid", /no --url named "b"/);
    argError(["--url", "a=http://h:1", "--json=yes"], "--json", /takes no value/);
    argError(["--url", "a=http://h:1", "--threads", "-1"], "--threads", /an integer >= 0/);
    argError(["--url", "a=http://h:1", "--pipeline", "0"], "--pipeline", /an integer >= 1/);
  });
});

describe("readCorpusFile", () => {
  async function file(content: string): Promise<string> {
    const dir = await makeTempDir("basalt-load-corpus-");
    dirs.push(dir);
    const f = path.join(dir, "corpus.json");
    writeFileSync(f, content);
    return f;
  }

  it("reads bodies given as objects, batches or JSON text", async () => {
    const f = await file(
      JSON.stringify({
        corpora: [
          {
            name: "a",
            bodies: [{ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }, '{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}'],
          },
          { name: "b", bodies: [[{ jsonrpc: "2.0", id: 1, method: "eth_chainId" }]], endpoints: ["x"] },
        ],
      }),
    );
    const corpora = readCorpusFile(f);
    expect(corpora.map((c) => c.name)).toEqual(["a", "b"]);
    expect(JSON.parse(corpora[0]!.bodies[0]!)).toMatchObject({ method: "eth_chainId" });
    expect(corpora[0]!.bodies[1]).toBe('{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}');
    expect(corpora[1]!.endpoints).toEqual(["x"]);
  });

  it("rejects files of the wrong shape, naming the entry", async () => {
    expect(() => readCorpusFile("/nonexistent/corpus.json")).toThrow(/cannot read corpus file/);
    expect(() => readCorpusFile(path.join("x", "missing.json"))).toThrow(LoadError);
    const broken = await file("{");
    expect(() => readCorpusFile(broken)).toThrow(/not JSON/);
    const noList = await file(JSON.stringify({ corpora: [] }));
    expect(() => readCorpusFile(noList)).toThrow(/no non-empty `corpora` array/);
    const badBody = await file(JSON.stringify({ corpora: [{ name: "a", bodies: [42] }] }));
    expect(() => readCorpusFile(badBody)).toThrow(/corpora\[0\]\.bodies\[0\] is not a request/);
    const badName = await file(JSON.stringify({ corpora: [{ bodies: ["{}"] }] }));
    expect(() => readCorpusFile(badName)).toThrow(/corpora\[0\]\.name/);
  });
});

describe("basalt bench", () => {
  it("is parsed with its own arguments, before any option handling", () => {
    const p = parseCli(["bench", "load", "--url", "a=http://h:1", "--help", "--http.port", "x"], {});
    expect(p.command).toBe("bench");
    expect(p.positionals).toEqual(["load", "--url", "a=http://h:1", "--help", "--http.port", "x"]);
    expect(parseCli(["help", "bench"], {})).toMatchObject({ command: "help", positionals: ["bench"] });
    expect(() => parseCli(["--log.level", "info", "bench"], {})).toThrow(/`bench` must be the first argument/);
  });

  it("has help, listed in the general help too", () => {
    expect(renderHelp("bench")).toBe(BENCH_HELP);
    for (const tool of ["load", "scenario", "micro", "wrk", "state-scale"]) expect(BENCH_HELP).toContain(tool);
    expect(renderHelp()).toContain("basalt bench <load|scenario|micro> [args]");
  });

  it("rejects an unknown tool and reports a tool whose module is not built", async () => {
    await expect(benchCommand(["nope"])).rejects.toMatchObject({ code: "BENCH_UNKNOWN_TOOL" });
    // Run from source, the compiled module (bench/<tool>/cli.js) is not next to the .ts files.
    const err = await benchCommand(["micro"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BenchCommandError);
    expect((err as BenchCommandError).code).toBe("BENCH_MODULE_MISSING");
    expect((err as BenchCommandError).message).toMatch(/bench tool micro is not available.*cli\.js/);
  });
});

describe("basalt bench wrk", () => {
  it("parses its arguments with defaults", () => {
    expect(parseWrkArgs(["--url", "http://127.0.0.1:8545", "--body", "b.json"])).toMatchObject({
      url: "http://127.0.0.1:8545",
      body: "b.json",
      connections: 32,
      seconds: 10,
      pipeline: 1,
      help: false,
    });
    expect(parseWrkArgs(["--url=http://h:1/", "--body=b", "--connections", "8", "--threads", "1", "--seconds", "3", "--pipeline", "4"])).toMatchObject({
      connections: 8,
      threads: 1,
      seconds: 3,
      pipeline: 4,
    });
    expect(parseWrkArgs(["--help"]).help).toBe(true);
    expect(WRK_USAGE).toContain("--body FILE");
  });

  it("names the flag on bad arguments", () => {
    expect(() => parseWrkArgs(["--body", "b"])).toThrow(/^--url: expected http/);
    expect(() => parseWrkArgs(["--url", "http://h:1"])).toThrow(/^--body: missing/);
    expect(() => parseWrkArgs(["--url", "http://h:1", "--body", "b", "--seconds", "0"])).toThrow(/^--seconds: invalid value "0"/);
    expect(() => parseWrkArgs(["--url", "http://h:1", "--bogus", "1"])).toThrow(/^--bogus: unknown flag/);
  });
});
