/**
 * `basalt init` with the built-in networks: Base Sepolia from the published genesis file,
 * refusal of a modified file, the download path (local servers only: a refused port, a 404, a
 * gzip-encoded answer), and the devnet / genesis-path behaviour kept.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { pino, type Logger } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { parseCli } from "../../../src/cli/args.js";
import { initCommand } from "../../../src/cli/commands/init.js";
import { nodeCommand } from "../../../src/cli/commands/node.js";
import { renderHelp } from "../../../src/cli/help.js";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { resolveGenesis } from "../../../src/blockchain/genesisSource.js";
import { OP_NETWORKS } from "../../../src/chain/op/networks.js";
import type { BasaltOptions } from "../../../src/config/options.js";
import { isBaseNetwork, isBuiltinNetwork, networkName } from "../../../src/config/options.js";
import { ChainStore, MetaKey } from "../../../src/storage/store.js";
import { to0x } from "../../../src/util/bytes.js";
import { getFreePorts } from "../../helpers/ports.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const FIXTURES = path.join(REPO, "..", "shared", "fixtures", "op", "base-genesis");
const SEPOLIA_FILE = path.join(FIXTURES, "base-sepolia-genesis.json");
const SEPOLIA_HASH = "0x0dcc9e089e30b90ddfc55be9a37dd15bc551aeee999d2e2b51414c54eaf934e4";
const MAINNET_HASH = "0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd";

const tempDirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-"));
  tempDirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A logger whose entries are collected as parsed JSON objects. */
function captureLogger(): { log: Logger; entries: Record<string, unknown>[] } {
  const entries: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") entries.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  return { log: pino({ level: "info" }, stream), entries };
}

/** Options of `basalt init <args>` as the CLI resolves them (no environment). */
function initOpts(args: string[], env: NodeJS.ProcessEnv = {}): BasaltOptions {
  const parsed = parseCli(["init", ...args], env);
  expect(parsed.command).toBe("init");
  return parsed.options;
}

/** A URL on 127.0.0.1 whose port refuses connections (a free port nobody listens on). */
async function refusedUrl(): Promise<string> {
  const [port] = await getFreePorts(1);
  return `http://127.0.0.1:${port as number}/genesis.json`;
}

/** Serves `handler` on 127.0.0.1; resolves to the base URL and a close function. */
async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("--network option", () => {
  it("accepts the built-in Base networks and names their datadirs after them", () => {
    const o = parseCli(["--network", "base-mainnet"], {}).options;
    expect(o.datadir).toBe("./data/base-mainnet");
    expect(o.archive).toBe(false);
    expect(initOpts(["--network", "base-sepolia", "--genesis", "/x/genesis-l2.json"]).datadir).toBe("./data/base-sepolia");
    expect(networkName("base-sepolia")).toBe("base-sepolia");
    expect(networkName("/x/base-sepolia.json")).toBe("base-sepolia");
    expect(isBuiltinNetwork("devnet") && isBuiltinNetwork("base-mainnet") && isBuiltinNetwork("base-sepolia")).toBe(true);
    expect(isBuiltinNetwork("/x/g.json")).toBe(false);
    expect(isBaseNetwork("devnet")).toBe(false);
  });

  it("takes --genesis-url from the command line or BASALT_GENESIS_URL, for node and init", () => {
    expect(initOpts(["--network", "base-mainnet", "--genesis-url", "http://h/g.json"])["genesis-url"]).toBe("http://h/g.json");
    expect(parseCli(["--network", "base-mainnet"], { BASALT_GENESIS_URL: "http://e/g.json" }).options["genesis-url"]).toBe("http://e/g.json");
    expect(parseCli([], {}).options["genesis-url"]).toBeUndefined();
    const notForExport = expect.objectContaining({ code: "CLI_OPTION_NOT_FOR_COMMAND" });
    expect(() => parseCli(["export", "--genesis-url", "http://h", "out.rlp"], {})).toThrow(notForExport);
  });

  it("documents the built-in networks in the help text", () => {
    const text = renderHelp("init");
    expect(text).toContain("--network <devnet|devnet-l1|base-mainnet|base-sepolia|path>");
    expect(text).toContain('"base-mainnet" or "base-sepolia"');
    expect(text).toContain("--genesis-url <url>");
    expect(text).toContain("BASALT_GENESIS_URL");
  });

  it("basalt node refuses an unknown network name before starting anything", async () => {
    const o = parseCli(["--network", "base-goerli", "--datadir", path.join(tempDir(), "d")], {}).options;
    await expect(nodeCommand(o, captureLogger().log, true)).rejects.toThrow(
      expect.objectContaining({ code: "CLI_INVALID_VALUE", message: expect.stringMatching(/base-goerli.*devnet, devnet-l1, base-mainnet, base-sepolia/) }),
    );
  });
});

describe("basalt init --network base-sepolia", () => {
  it("initializes from the published genesis file and reports the network's genesis hash", async () => {
    const datadir = path.join(tempDir(), "sepolia");
    const { log, entries } = captureLogger();
    await initCommand(initOpts(["--network", "base-sepolia", "--genesis", SEPOLIA_FILE, "--datadir", datadir]), log);
    expect(entries.at(-1)).toMatchObject({ msg: "initialized datadir", genesis: SEPOLIA_HASH, created: true, network: "base-sepolia" });

    const chain = Chain.open(datadir, { readOnly: true });
    try {
      expect(to0x(chain.genesisHash)).toBe(SEPOLIA_HASH);
      expect(chain.chainId).toBe(84532n);
      expect(chain.head.header.number).toBe(0n);
      expect(chain.genesis.config.canyonTime).toBe(1699981200);
      expect(chain.genesis.config.azulTime).toBe(1776708000);
    } finally {
      await chain.close();
    }

    // Again without --genesis: the datadir already holds the network's genesis, so nothing is
    // downloaded (the URL would refuse the connection).
    const again = captureLogger();
    await initCommand(initOpts(["--network", "base-sepolia", "--datadir", datadir, "--genesis-url", await refusedUrl()]), again.log);
    expect(again.entries.at(-1)).toMatchObject({ msg: "datadir already holds this genesis", genesis: SEPOLIA_HASH, created: false });
    const reopened = Chain.open(datadir);
    try {
      expect(to0x(reopened.genesisHash)).toBe(SEPOLIA_HASH);
    } finally {
      await reopened.close();
    }
  });

  it("runs a datadir created before an upgrade was scheduled with this basalt's schedule", async () => {
    const datadir = path.join(tempDir(), "sepolia-old");
    await initCommand(initOpts(["--network", "base-sepolia", "--genesis", SEPOLIA_FILE, "--datadir", datadir]), captureLogger().log);
    // What an older basalt stored: the schedule up to Azul.
    const store = ChainStore.open(datadir);
    const stored = JSON.parse(store.getMeta<string>(MetaKey.genesisJson)!) as { config: Record<string, unknown> };
    delete stored.config.berylTime;
    delete stored.config.cobaltTime;
    await store.meta.put(MetaKey.genesisJson, JSON.stringify(stored));
    await store.close();
    const chain = Chain.open(datadir, { readOnly: true });
    try {
      expect(chain.op?.forkTimes.beryl).toBe(1781805600n);
      expect(chain.op?.forkTimes.cobalt).toBe(1790186400n);
    } finally {
      await chain.close();
    }
  });

  it("refuses a modified genesis file, naming both hashes, and writes nothing", async () => {
    const dir = tempDir();
    const file = JSON.parse(readFileSync(SEPOLIA_FILE, "utf8")) as { alloc: Record<string, { balance?: string }> };
    const victim = Object.keys(file.alloc).find((k) => BigInt(file.alloc[k]?.balance ?? "0x0") === 0n) as string;
    (file.alloc[victim] as { balance?: string }).balance = "0x1";
    const modified = path.join(dir, "modified.json");
    writeFileSync(modified, JSON.stringify(file));
    const datadir = path.join(dir, "data");
    const err = await initCommand(initOpts(["--network", "base-sepolia", "--genesis", modified, "--datadir", datadir]), captureLogger().log).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string; meta: Record<string, unknown> },
    );
    expect(err?.code).toBe("GENESIS_HASH_MISMATCH");
    expect(err?.message).toContain(SEPOLIA_HASH);
    const actual = err?.meta.actual as string;
    expect(actual).toMatch(/^0x[0-9a-f]{64}$/);
    expect(actual).not.toBe(SEPOLIA_HASH);
    expect(err?.message).toContain(actual);
    expect(err?.message).toContain(modified);
    expect(existsSync(path.join(datadir, "chain"))).toBe(false);
  });

  it("refuses the other network's genesis file", async () => {
    const datadir = path.join(tempDir(), "data");
    const opts = initOpts(["--network", "base-mainnet", "--genesis", SEPOLIA_FILE, "--datadir", datadir]);
    await expect(initCommand(opts, captureLogger().log)).rejects.toThrow(
      expect.objectContaining({ code: "GENESIS_HASH_MISMATCH", message: expect.stringContaining(`expected ${MAINNET_HASH}`) }),
    );
  });

  it("refuses a datadir holding another chain without downloading", async () => {
    const datadir = path.join(tempDir(), "data");
    await initCommand(initOpts(["--network", "devnet", "--datadir", datadir]), captureLogger().log);
    await expect(
      initCommand(initOpts(["--network", "base-sepolia", "--datadir", datadir, "--genesis-url", await refusedUrl()]), captureLogger().log),
    ).rejects.toThrow(expect.objectContaining({ code: "CHAIN_GENESIS_MISMATCH", message: expect.stringContaining(SEPOLIA_HASH) }));
  });
});

describe("genesis download", () => {
  it("gives a clear error when the download URL is unreachable", async () => {
    const url = await refusedUrl();
    const datadir = path.join(tempDir(), "data");
    const err = await initCommand(initOpts(["--network", "base-mainnet", "--datadir", datadir, "--genesis-url", url]), captureLogger().log).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(err?.code).toBe("GENESIS_DOWNLOAD_FAILED");
    expect(err?.message).toContain(`cannot download the base-mainnet genesis from ${url}: `);
    expect(err?.message).toMatch(/ECONNREFUSED/);
    expect(err?.message).toMatch(/download it yourself and pass --genesis <file>/);
    expect(existsSync(path.join(datadir, "chain"))).toBe(false);
  });

  it("takes the URL from BASALT_GENESIS_URL", async () => {
    const url = await refusedUrl();
    await expect(resolveGenesis(initOpts(["--network", "base-sepolia"], { BASALT_GENESIS_URL: url }))).rejects.toThrow(
      expect.objectContaining({ code: "GENESIS_DOWNLOAD_FAILED", message: expect.stringContaining(url) }),
    );
  });

  it("reports HTTP errors, non-JSON answers and timeouts", async () => {
    const srv = await serve((req, res) => {
      if (req.url === "/missing") {
        res.writeHead(404).end("no");
      } else if (req.url === "/text") {
        res.writeHead(200, { "content-type": "text/plain" }).end("not json");
      } else {
        res.writeHead(200); // headers only, body never ends
      }
    });
    try {
      const opts = (p: string) => ({ network: "base-sepolia", genesis: undefined, "genesis-url": `${srv.url}${p}` });
      const notFound = /from http:\/\/127\.0\.0\.1:\d+\/missing: HTTP 404 Not Found; download it yourself/;
      await expect(resolveGenesis(opts("/missing"))).rejects.toThrow(notFound);
      await expect(resolveGenesis(opts("/text"))).rejects.toThrow(/the answer is not JSON/);
      await expect(resolveGenesis(opts("/slow"), { timeoutMs: 300 })).rejects.toThrow(/no complete answer within 0\.3 s/);
    } finally {
      await srv.close();
    }
  });

  it("downloads a (gzip-encoded) genesis, checks it and initializes the datadir", async () => {
    const body = gzipSync(readFileSync(SEPOLIA_FILE));
    let requests = 0;
    const srv = await serve((_req, res) => {
      requests++;
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(body);
    });
    try {
      const datadir = path.join(tempDir(), "data");
      const { log, entries } = captureLogger();
      await initCommand(initOpts(["--network", "base-sepolia", "--datadir", datadir, "--genesis-url", `${srv.url}/genesis-l2.json`]), log);
      expect(requests).toBe(1);
      expect(entries.at(-1)).toMatchObject({ genesis: SEPOLIA_HASH, created: true });
    } finally {
      await srv.close();
    }
  });
});

describe("devnet and genesis paths are unchanged", () => {
  it("init --network devnet writes the devnet genesis; --genesis <path> reads the file", async () => {
    const g = devnetGenesis();
    const { block } = await Chain.buildGenesis(g, commonFromGenesis(g));
    const devHash = to0x(block.hash());

    const dev = captureLogger();
    await initCommand(initOpts(["--network", "devnet", "--datadir", path.join(tempDir(), "dev")]), dev.log);
    expect(dev.entries.at(-1)).toMatchObject({ genesis: devHash, created: true });

    const dir = tempDir();
    const file = path.join(dir, "mychain.json");
    writeFileSync(file, JSON.stringify(g));
    const byPath = captureLogger();
    const opts = initOpts(["--genesis", file, "--datadir", path.join(dir, "d")]);
    expect(opts.network).toBe("devnet");
    await initCommand(opts, byPath.log);
    expect(byPath.entries.at(-1)).toMatchObject({ genesis: devHash, created: true });

    const copy = path.join(dir, "copy.json");
    copyFileSync(file, copy);
    expect(await resolveGenesis({ network: copy, genesis: undefined, "genesis-url": undefined })).toEqual(g);
    await expect(resolveGenesis({ network: path.join(dir, "absent.json"), genesis: undefined, "genesis-url": undefined })).rejects.toThrow(
      expect.objectContaining({ code: "GENESIS_UNREADABLE" }),
    );
  });

  it("fixes the devnet's --dev.beryl-time/--dev.cobalt-time when the datadir is created, and refuses another schedule later", async () => {
    const datadir = path.join(tempDir(), "dev-forks");
    const first = captureLogger();
    await initCommand(initOpts(["--network", "devnet", "--datadir", datadir, "--dev.beryl-time", "1900000000", "--dev.cobalt-time", "1900000100"]), first.log);
    expect(first.entries.at(-1)).toMatchObject({ created: true });
    const chain = Chain.open(datadir, { readOnly: true });
    try {
      expect([chain.op?.forkTimes.azul, chain.op?.forkTimes.beryl, chain.op?.forkTimes.cobalt]).toEqual([0n, 1_900_000_000n, 1_900_000_100n]);
    } finally {
      await chain.close();
    }
    // The same schedule again is accepted; another one names both.
    await initCommand(initOpts(["--network", "devnet", "--datadir", datadir, "--dev.beryl-time", "1900000000", "--dev.cobalt-time", "1900000100"]), captureLogger().log);
    await expect(initCommand(initOpts(["--network", "devnet", "--datadir", datadir, "--dev.cobalt-time", "1900000200"]), captureLogger().log)).rejects.toThrow(
      expect.objectContaining({ code: "CHAIN_SCHEDULE_MISMATCH", message: expect.stringContaining("beryl 1900000000, cobalt 1900000100") }),
    );
    await expect(initCommand(initOpts(["--network", "devnet", "--datadir", datadir, "--dev.beryl-time", "1900000100", "--dev.cobalt-time", "1900000000"]), captureLogger().log)).rejects.toThrow(
      expect.objectContaining({ code: "DEVNET_FORK_ORDER" }),
    );
  });

  it("the built-in table and init agree on the genesis hashes", () => {
    expect(OP_NETWORKS["base-sepolia"].genesisHash).toBe(SEPOLIA_HASH);
    expect(OP_NETWORKS["base-mainnet"].genesisHash).toBe(MAINNET_HASH);
  });
});
