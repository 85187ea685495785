import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CliError, parseCli, parseEnvFile, type CliErrorCode } from "../../../src/cli/args.js";
import {
  DEFAULT_L1_BLOCK_TIME_S,
  DEFAULT_AUTHRPC_PORT,
  DEFAULT_DEV_BLOCK_TIME_S,
  DEFAULT_BEACON_PORT,
  L1DEV_DEFAULT_SLOT_SECONDS,
  DEFAULT_FLASHBLOCKS_INTERVAL_MS,
  DEFAULT_FLASHBLOCKS_PORT,
  DEFAULT_FOLLOW_POLL_INTERVAL_MS,
  DEFAULT_WS_PORT,
  DEFAULT_HTTP_ADDR,
  DEFAULT_HTTP_PORT,
  DEFAULT_STATE_HISTORY_BLOCKS,
  MAX_BATCH_LENGTH,
  MAX_REQUEST_BODY_BYTES,
  RPC_EVM_TIMEOUT_MS,
  DEFAULT_EXECUTION_THREADS,
  DEFAULT_EVM_ENGINE,
  DEFAULT_ROLLUP_PORT,
  DEFAULT_METRICS_PORT,
  DEFAULT_PUBLIC_RATE_PER_IP,
  DEFAULT_PUBLIC_BURST_PER_IP,
  DEFAULT_PUBLIC_MAX_CONNECTIONS,
  DEFAULT_PROOFS_HISTORY_WINDOW,
  DEFAULT_PROOFS_MAX_BLOCKS_AHEAD,
  DEFAULT_BATCHER_MAX_CHANNEL_DURATION,
  DEFAULT_BATCHER_NUM_CONFIRMATIONS,
  DEFAULT_BATCHER_BLOBS_PER_TX,
  EXECUTION_QUEUE_PER_THREAD,
  RPC_GAS_CAP,
} from "../../../src/config/constants.js";
import { OPTION_LIST, envVarName } from "../../../src/config/options.js";
import { DEFAULT_P2P_EL_DISCOVERY_PORT,
  DEFAULT_P2P_EL_DISCV5_PORT, DEFAULT_P2P_EL_MAX_INBOUND, DEFAULT_P2P_EL_MAX_OUTBOUND, DEFAULT_P2P_EL_PORT } from "../../../src/config/constants.js";
import { DEFAULT_MAX_FILTERS, MAX_LOGS_BLOCK_RANGE, MAX_LOGS_PER_RESPONSE, RESPONSE_CACHE_BLOCKS, TRACE_FILTER_MAX_BLOCKS } from "../../../src/config/constants.js";
import { BasaltError } from "../../../src/util/errors.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "basalt-cli-args-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let fileCounter = 0;
function envFile(text: string): string {
  const file = path.join(tmp, `env-${fileCounter++}`);
  writeFileSync(file, text);
  return file;
}

function cliError(fn: () => unknown): CliError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    expect(e).toBeInstanceOf(BasaltError);
    return e as CliError;
  }
  throw new Error("did not throw");
}

function expectError(argv: string[], code: CliErrorCode, message: RegExp, env: NodeJS.ProcessEnv = {}): CliError {
  const e = cliError(() => parseCli(argv, env));
  expect(e.code).toBe(code);
  expect(e.message).toMatch(message);
  return e;
}

describe("commands", () => {
  it("defaults to node", () => {
    expect(parseCli([], {}).command).toBe("node");
    const r = parseCli(["--http.port", "9000"], {});
    expect(r.command).toBe("node");
    expect(r.options["http.port"]).toBe(9000);
    expect(r.help).toBe(false);
    expect(r.positionals).toEqual([]);
  });

  it("takes the first non-option token as the command", () => {
    expect(parseCli(["node"], {}).command).toBe("node");
    const init = parseCli(["init", "--datadir", "D", "--genesis", "G.json"], {});
    expect(init.command).toBe("init");
    expect(init.options.datadir).toBe("D");
    expect(init.options.genesis).toBe("G.json");
    const imp = parseCli(["--datadir", "D", "import", "a.rlp", "b.rlp"], {});
    expect(imp.command).toBe("import");
    expect(imp.positionals).toEqual(["a.rlp", "b.rlp"]);
    const exp = parseCli(["export", "--datadir", "D", "--from", "5", "--to", "9", "out.rlp"], {});
    expect(exp.command).toBe("export");
    expect(exp.options.from).toBe(5);
    expect(exp.options.to).toBe(9);
    expect(exp.positionals).toEqual(["out.rlp"]);
  });

  it("treats everything after -- as positionals", () => {
    const r = parseCli(["import", "--", "--weird.rlp", "-x"], {});
    expect(r.positionals).toEqual(["--weird.rlp", "-x"]);
  });

  it("normalizes help requests", () => {
    for (const argv of [["--help"], ["-h"], ["help"], ["--http.port", "1", "-h"]]) {
      const r = parseCli(argv, {});
      expect(r.command, argv.join(" ")).toBe("help");
      expect(r.help).toBe(true);
      expect(r.positionals).toEqual([]);
    }
    for (const argv of [["help", "init"], ["init", "--help"], ["init", "--bogus", "-h"], ["--datadir", "D", "init", "-h"]]) {
      const r = parseCli(argv, {});
      expect(r.command, argv.join(" ")).toBe("help");
      expect(r.help).toBe(true);
      expect(r.positionals).toEqual(["init"]);
    }
  });

  it("does not read the environment or env file for help", () => {
    const r = parseCli(["--help"], { BASALT_HTTP_PORT: "nope", BASALT_ENV_FILE: "/nonexistent" });
    expect(r.options["http.port"]).toBe(DEFAULT_HTTP_PORT);
  });

  it("recognizes version requests", () => {
    expect(parseCli(["--version"], {}).command).toBe("version");
    expect(parseCli(["version"], {}).command).toBe("version");
  });
});

describe("defaults", () => {
  it("fills every option from the table", () => {
    const { options, sources } = parseCli([], {});
    expect(options).toEqual({
      datadir: "./data/devnet",
      network: "devnet",
      genesis: undefined,
      "env-file": undefined,
      "http.addr": DEFAULT_HTTP_ADDR,
      "http.port": DEFAULT_HTTP_PORT,
      "http.corsdomain": "",
      "rpc.gascap": Number(RPC_GAS_CAP),
      "rpc.evmtimeout": RPC_EVM_TIMEOUT_MS,
      "rpc.threads": DEFAULT_EXECUTION_THREADS,
      evm: DEFAULT_EVM_ENGINE,
      "rpc.queue": DEFAULT_EXECUTION_THREADS * EXECUTION_QUEUE_PER_THREAD,
      "rpc.batch-limit": MAX_BATCH_LENGTH,
      rollup: true,
      "rollup.addr": "127.0.0.1",
      "rollup.port": DEFAULT_ROLLUP_PORT,
      metrics: false,
      "metrics.addr": "127.0.0.1",
      "metrics.port": DEFAULT_METRICS_PORT,
      public: false,
      "public.rate": DEFAULT_PUBLIC_RATE_PER_IP,
      "public.burst": DEFAULT_PUBLIC_BURST_PER_IP,
      "public.max-connections": DEFAULT_PUBLIC_MAX_CONNECTIONS,
      "historical-proofs": false,
      "proofs.history-window": DEFAULT_PROOFS_HISTORY_WINDOW,
      "proofs.max-blocks-ahead": DEFAULT_PROOFS_MAX_BLOCKS_AHEAD,
      "proofs.path": "",
      "rpc.eth-proof-window": 0,
      batcher: false,
      "batcher.key": undefined,
      "batcher.data": "blobs",
      "batcher.max-channel-duration": DEFAULT_BATCHER_MAX_CHANNEL_DURATION,
      "batcher.num-confirmations": DEFAULT_BATCHER_NUM_CONFIRMATIONS,
      "batcher.blobs-per-tx": DEFAULT_BATCHER_BLOBS_PER_TX,
      "rpc.max-body": MAX_REQUEST_BODY_BYTES,
      "authrpc.addr": "127.0.0.1",
      "authrpc.port": DEFAULT_AUTHRPC_PORT,
      "authrpc.jwtsecret": undefined,
      "dev.block-time": DEFAULT_DEV_BLOCK_TIME_S,
      "beacon.addr": "127.0.0.1",
      "beacon.port": DEFAULT_BEACON_PORT,
      ws: false,
      "ws.addr": "127.0.0.1",
      "ws.port": DEFAULT_WS_PORT,
      "follow-rpc": undefined,
      "follow.poll-interval": DEFAULT_FOLLOW_POLL_INTERVAL_MS,
      "sequencer-http": undefined,
      sequencer: undefined,
      "sequencer.l1-confs": 0,
      "l1.block-time": DEFAULT_L1_BLOCK_TIME_S,
      "upgrade-signal.l1-block-tag": "finalized",
      "flashblocks-url": undefined,
      "flashblocks.interval": DEFAULT_FLASHBLOCKS_INTERVAL_MS,
      "flashblocks.addr": "127.0.0.1",
      "flashblocks.port": DEFAULT_FLASHBLOCKS_PORT,
      "flashblocks.format": "brotli",
      archive: true,
      "history.blocks": DEFAULT_STATE_HISTORY_BLOCKS,
      "p2p.disable": false,
      "p2p.no-discovery": false,
      "p2p.listen.ip": "0.0.0.0",
      "p2p.listen.tcp": 9222,
      "p2p.listen.udp": 0,
      "p2p.advertise.ip": undefined,
      "p2p.bootnodes": undefined,
      "p2p.static": "",
      "p2p.peers.lo": 20,
      "p2p.peers.hi": 30,
      "p2p.priv.path": undefined,
      "p2p.sequencer.key": undefined,
      "p2p.ban.peers": true,
      "p2p.ban.duration": 3600,
      "log.level": "info",
      "log.format": "json",
      from: undefined,
      to: undefined,
      "p2p.el.disable": false,
      port: DEFAULT_P2P_EL_PORT,
      addr: "0.0.0.0",
      "discovery.port": DEFAULT_P2P_EL_DISCOVERY_PORT,
      "discovery.addr": "0.0.0.0",
      "discovery.v5.port": DEFAULT_P2P_EL_DISCV5_PORT,
      "rollup.discovery.v4": false,
      "disable-discovery": false,
      bootnodes: undefined,
      "trusted-peers": undefined,
      "max-outbound-peers": DEFAULT_P2P_EL_MAX_OUTBOUND,
      "max-inbound-peers": DEFAULT_P2P_EL_MAX_INBOUND,
      "p2p-secret-key": undefined,
      nat: undefined,
      "txpool.gossip": false,
      "rpc.max-trace-filter-blocks": TRACE_FILTER_MAX_BLOCKS,
      "rpc.response-cache-blocks": RESPONSE_CACHE_BLOCKS,
      "rpc.max-filters": DEFAULT_MAX_FILTERS,
      "enable-metering": false,
      "metering.priority-fee-percentile": 0.5,
      "metering.uncongested-priority-fee": 1_000_000,
      "rpc.max-logs-per-response": MAX_LOGS_PER_RESPONSE,
      "rpc.max-blocks-per-filter": MAX_LOGS_BLOCK_RANGE,
      "db.read-ahead": false,
    });
    expect(Object.keys(options).sort()).toEqual(OPTION_LIST.map((o) => o.name).sort());
    expect(new Set(Object.values(sources))).toEqual(new Set(["default"]));
  });

  it("derives datadir and archive from the network", () => {
    const g = parseCli(["--network", "/some/where/base-sepolia.json"], {});
    expect(g.options.datadir).toBe("./data/base-sepolia");
    expect(g.options.archive).toBe(false);
    expect(parseCli(["--network", "chains/mychain"], {}).options.datadir).toBe("./data/mychain");
    expect(parseCli(["--network", "devnet"], {}).options.archive).toBe(true);
    // explicit values win over derived ones
    const e = parseCli(["--network", "x.json", "--datadir", "D", "--archive"], {});
    expect(e.options.datadir).toBe("D");
    expect(e.options.archive).toBe(true);
    expect(parseCli(["--no-archive"], {}).options.archive).toBe(false);
  });

  it("gives devnet-l1 its datadir, archive mode and Ethereum's 12 s slot unless told otherwise", () => {
    const l1 = parseCli(["--network", "devnet-l1"], {}).options;
    expect(l1.datadir).toBe("./data/devnet-l1");
    expect(l1.archive).toBe(true);
    expect(l1["dev.block-time"]).toBe(L1DEV_DEFAULT_SLOT_SECONDS);
    expect(parseCli(["--network", "devnet-l1", "--dev.block-time", "1"], {}).options["dev.block-time"]).toBe(1);
    expect(parseCli(["--network", "devnet-l1"], { BASALT_DEV_BLOCK_TIME: "2" }).options["dev.block-time"]).toBe(2);
    // Other networks keep the devnet's block time.
    expect(parseCli(["--network", "devnet"], {}).options["dev.block-time"]).toBe(DEFAULT_DEV_BLOCK_TIME_S);
  });

  it("names an init's chain after its genesis file unless --network is given", () => {
    const r = parseCli(["init", "--genesis", "/x/hive.json"], {});
    expect(r.options.datadir).toBe("./data/hive");
    expect(r.options.archive).toBe(false);
    expect(r.options.network).toBe("devnet");
    expect(parseCli(["init", "--genesis", "/x/hive.json", "--network", "other.json"], {}).options.datadir).toBe("./data/other");
    expect(parseCli(["init"], {}).options.datadir).toBe("./data/devnet");
  });
});

describe("flag syntax", () => {
  it("accepts --name value and --name=value", () => {
    expect(parseCli(["--http.port", "1234"], {}).options["http.port"]).toBe(1234);
    expect(parseCli(["--http.port=1234"], {}).options["http.port"]).toBe(1234);
    expect(parseCli(["--http.corsdomain=a.com,b.com"], {}).options["http.corsdomain"]).toBe("a.com,b.com");
    expect(parseCli(["--http.corsdomain="], {}).options["http.corsdomain"]).toBe("");
    expect(parseCli(["--datadir=/a=b"], {}).options.datadir).toBe("/a=b");
  });

  it("parses booleans", () => {
    const net = ["--network", "g.json"];
    expect(parseCli([...net, "--archive"], {}).options.archive).toBe(true);
    expect(parseCli([...net, "--archive=true"], {}).options.archive).toBe(true);
    expect(parseCli(["--archive=false"], {}).options.archive).toBe(false);
    expect(parseCli(["--archive=0"], {}).options.archive).toBe(false);
    expect(parseCli(["--no-archive"], {}).options.archive).toBe(false);
    // a boolean flag never consumes the next token
    const r = parseCli(["import", "--archive", "chain.rlp"], {});
    expect(r.options.archive).toBe(true);
    expect(r.positionals).toEqual(["chain.rlp"]);
  });

  it("lets the last occurrence win", () => {
    expect(parseCli(["--http.port", "1", "--http.port", "2"], {}).options["http.port"]).toBe(2);
  });

  it("parses fractional block times and enumerations", () => {
    expect(parseCli(["--dev.block-time", "0.5"], {}).options["dev.block-time"]).toBe(0.5);
    expect(parseCli(["--dev.block-time", "0"], {}).options["dev.block-time"]).toBe(0);
    expect(parseCli(["--log.level", "debug", "--log.format", "pretty"], {}).options).toMatchObject({
      "log.level": "debug",
      "log.format": "pretty",
    });
  });
});

describe("errors", () => {
  it("rejects an unknown option, suggesting the closest", () => {
    const e = expectError(["--http.prot", "1"], "CLI_UNKNOWN_OPTION", /--http\.prot.*did you mean --http\.port\?/);
    expect(e.meta).toMatchObject({ option: "--http.prot", suggestion: "--http.port" });
    expectError(["--http-port=1"], "CLI_UNKNOWN_OPTION", /did you mean --http\.port/);
    expectError(["--achive"], "CLI_UNKNOWN_OPTION", /did you mean --archive/);
    expectError(["--no-achive"], "CLI_UNKNOWN_OPTION", /--no-achive/);
    expectError(["-x"], "CLI_UNKNOWN_OPTION", /-x/);
  });

  it("rejects bad numbers, naming the option and the expected type", () => {
    const e = expectError(["--http.port", "abc"], "CLI_INVALID_VALUE", /"abc".*--http\.port.*integer from 0 to 65535/);
    expect(e.meta).toMatchObject({ option: "--http.port", value: "abc" });
    expectError(["--http.port", "70000"], "CLI_INVALID_VALUE", /--http\.port/);
    expectError(["--http.port=1.5"], "CLI_INVALID_VALUE", /--http\.port/);
    expectError(["--http.port=-1"], "CLI_INVALID_VALUE", /--http\.port/);
    expectError(["--http.port="], "CLI_INVALID_VALUE", /--http\.port/);
    expectError(["--rpc.gascap", "1e9"], "CLI_INVALID_VALUE", /--rpc\.gascap.*integer/);
    expectError(["--rpc.batch-limit", "0"], "CLI_INVALID_VALUE", /--rpc\.batch-limit.*>= 1/);
    expectError(["--dev.block-time", "fast"], "CLI_INVALID_VALUE", /--dev\.block-time.*number/);
    expectError(["export", "--from", "-1", "o.rlp"], "CLI_INVALID_VALUE", /--from/);
  });

  it("rejects bad booleans and enumerations", () => {
    expectError(["--archive=maybe"], "CLI_INVALID_VALUE", /--archive.*boolean/);
    expectError(["--no-archive=true"], "CLI_INVALID_VALUE", /--no-archive takes no value/);
    expectError(["--no-http.port"], "CLI_INVALID_VALUE", /only to boolean options/);
    expectError(["--log.level", "loud"], "CLI_INVALID_VALUE", /--log\.level.*one of trace, debug, info, warn, error/);
    expectError(["--log.format", "xml"], "CLI_INVALID_VALUE", /--log\.format.*json, pretty/);
    expectError(["--datadir="], "CLI_INVALID_VALUE", /--datadir/);
  });

  it("rejects a missing value", () => {
    expectError(["--http.port"], "CLI_MISSING_VALUE", /--http\.port requires a value/);
    expectError(["--datadir", "--http.port", "1"], "CLI_MISSING_VALUE", /--datadir/);
  });

  it("rejects an option that does not apply to the command", () => {
    const e = expectError(["init", "--http.port", "1"], "CLI_OPTION_NOT_FOR_COMMAND", /--http\.port.*basalt init.*node/);
    expect(e.meta).toMatchObject({ option: "--http.port", command: "init" });
    expectError(["--genesis", "g.json"], "CLI_OPTION_NOT_FOR_COMMAND", /--genesis.*basalt node/);
    expectError(["--from", "1"], "CLI_OPTION_NOT_FOR_COMMAND", /--from/);
    expectError(["import", "--network", "devnet", "a.rlp"], "CLI_OPTION_NOT_FOR_COMMAND", /--network/);
  });

  it("gives `basalt snapshot` the proofs store's directory, from the command line or BASALT_PROOFS_PATH", () => {
    expect(parseCli(["snapshot", "export", "--datadir", "d", "--proofs.path", "/p", "f"], {}).options["proofs.path"]).toBe("/p");
    expect(parseCli(["snapshot", "import", "--datadir", "d", "f"], { BASALT_PROOFS_PATH: "/q" }).options["proofs.path"]).toBe("/q");
    expectError(["snapshot", "export", "--historical-proofs", "f"], "CLI_OPTION_NOT_FOR_COMMAND", /--historical-proofs.*basalt snapshot/);
  });

  it("parses `basalt proofs init` with the store's directory and window, and nothing a node runs with", () => {
    const p = parseCli(["proofs", "init", "--datadir", "d", "--proofs.history-window", "100"], { BASALT_PROOFS_PATH: "/q" });
    expect(p.command).toBe("proofs");
    expect(p.positionals).toEqual(["init"]);
    expect([p.options["proofs.history-window"], p.options["proofs.path"]]).toEqual([100, "/q"]);
    expectError(["proofs"], "CLI_MISSING_ARGUMENT", /basalt proofs init/);
    expectError(["proofs", "prune"], "CLI_MISSING_ARGUMENT", /basalt proofs init/);
    expectError(["proofs", "init", "extra"], "CLI_UNEXPECTED_ARGUMENT", /"extra".*basalt proofs/);
    expectError(["proofs", "init", "--http.port", "1"], "CLI_OPTION_NOT_FOR_COMMAND", /--http.port.*basalt proofs/);
  });

  it("rejects unknown commands and misplaced arguments", () => {
    expectError(["nod"], "CLI_UNKNOWN_COMMAND", /"nod".*did you mean node/);
    expectError(["help", "nod"], "CLI_UNKNOWN_COMMAND", /"nod"/);
    expectError(["node", "extra"], "CLI_UNEXPECTED_ARGUMENT", /"extra".*basalt node/);
    expectError(["init", "G.json"], "CLI_UNEXPECTED_ARGUMENT", /"G\.json".*basalt init/);
    expectError(["import"], "CLI_MISSING_ARGUMENT", /basalt import/);
    expectError(["export"], "CLI_MISSING_ARGUMENT", /basalt export/);
    expectError(["export", "a.rlp", "b.rlp"], "CLI_UNEXPECTED_ARGUMENT", /"b\.rlp"/);
    expectError(["export", "--from", "9", "--to", "5", "o.rlp"], "CLI_INVALID_VALUE", /--from 9 is after --to 5/);
  });

  it("gives structured-cloneable errors", () => {
    const e = expectError(["--bogus"], "CLI_UNKNOWN_OPTION", /--bogus/);
    expect(structuredClone(e.toObject())).toMatchObject({ name: "CliError", code: "CLI_UNKNOWN_OPTION" });
  });
});

describe("environment and env file", () => {
  it("maps option names to BASALT_* variables", () => {
    expect(envVarName("http.port")).toBe("BASALT_HTTP_PORT");
    expect(envVarName("dev.block-time")).toBe("BASALT_DEV_BLOCK_TIME");
    expect(envVarName("env-file")).toBe("BASALT_ENV_FILE");
    // The specification's flashblocks variable, with basalt's prefix (RETH_FB_WEBSOCKET_URL on base/node).
    expect(envVarName("flashblocks-url")).toBe("BASALT_FB_WEBSOCKET_URL");
    expect(parseCli(["node"], { BASALT_FB_WEBSOCKET_URL: "wss://example.org/ws" }).options["flashblocks-url"]).toBe("wss://example.org/ws");
    const names = OPTION_LIST.map((o) => envVarName(o.name));
    expect(new Set(names).size).toBe(names.length);
  });

  it("applies command line > environment > env file > default", () => {
    const file = envFile(
      ["BASALT_HTTP_PORT=1111", "BASALT_AUTHRPC_PORT=2222", "BASALT_DEV_BLOCK_TIME=3", "BASALT_LOG_LEVEL=warn"].join("\n"),
    );
    const env = { BASALT_HTTP_PORT: "3333", BASALT_AUTHRPC_PORT: "4444", BASALT_DEV_BLOCK_TIME: "5" };
    const r = parseCli(["--env-file", file, "--http.port", "5555"], env);
    expect(r.options["http.port"]).toBe(5555);
    expect(r.options["authrpc.port"]).toBe(4444);
    expect(r.options["dev.block-time"]).toBe(5);
    expect(r.options["log.level"]).toBe("warn");
    expect(r.options["rpc.gascap"]).toBe(Number(RPC_GAS_CAP));
    expect(r.sources).toMatchObject({
      "http.port": "cli",
      "authrpc.port": "env",
      "dev.block-time": "env",
      "log.level": "env-file",
      "rpc.gascap": "default",
      "env-file": "cli",
    });
    const noFlag = parseCli(["--env-file", file], {});
    expect(noFlag.options["http.port"]).toBe(1111);
    expect(noFlag.options["authrpc.port"]).toBe(2222);
  });

  it("reads the env file named by BASALT_ENV_FILE", () => {
    const file = envFile("BASALT_HTTP_PORT=6666\n");
    expect(parseCli([], { BASALT_ENV_FILE: file }).options["http.port"]).toBe(6666);
    const other = envFile("BASALT_HTTP_PORT=7777\n");
    expect(parseCli(["--env-file", other], { BASALT_ENV_FILE: file }).options["http.port"]).toBe(7777);
  });

  it("feeds derived defaults from the environment", () => {
    const r = parseCli([], { BASALT_NETWORK: "/g/net.json" });
    expect(r.options.datadir).toBe("./data/net");
    expect(r.options.archive).toBe(false);
    expect(parseCli([], { BASALT_NETWORK: "/g/net.json", BASALT_ARCHIVE: "true" }).options.archive).toBe(true);
  });

  it("rejects invalid environment values, naming the variable", () => {
    expectError([], "CLI_INVALID_VALUE", /BASALT_HTTP_PORT.*integer/, { BASALT_HTTP_PORT: "x" });
    expectError([], "CLI_INVALID_VALUE", /BASALT_ARCHIVE.*boolean/, { BASALT_ARCHIVE: "maybe" });
  });

  it("ignores empty, inapplicable and unrelated environment variables", () => {
    const r = parseCli(["init"], {
      BASALT_HTTP_PORT: "not-a-number-but-init-has-no-http",
      BASALT_DATADIR: "",
      BASALT_CLI: "/x/main.js",
      BASALT_CONFORMANCE_FILTER: "eth_",
      HTTP_PORT: "1",
    });
    expect(r.options["http.port"]).toBe(DEFAULT_HTTP_PORT);
    expect(r.options.datadir).toBe("./data/devnet");
  });

  it("parses dotenv syntax", () => {
    const file = envFile(
      [
        "# a comment",
        "",
        "export BASALT_HTTP_ADDR=0.0.0.0",
        'BASALT_DATADIR="/data/with space"',
        "BASALT_AUTHRPC_JWTSECRET='/s/jwt.hex'",
        "BASALT_HTTP_CORSDOMAIN=a.com # trailing comment",
        "  BASALT_LOG_FORMAT = pretty  ",
        "PATH=/usr/bin",
        "OTHER_THING=whatever",
        "BASALT_ARCHIVE=",
      ].join("\r\n"),
    );
    const r = parseCli(["--env-file", file], {});
    expect(r.options).toMatchObject({
      "http.addr": "0.0.0.0",
      datadir: "/data/with space",
      "authrpc.jwtsecret": "/s/jwt.hex",
      "http.corsdomain": "a.com",
      "log.format": "pretty",
      archive: true,
    });
    expect(parseEnvFile('A="x\\ny \\"q\\""')).toEqual([{ key: "A", value: 'x\ny "q"', line: 1 }]);
    expect(parseEnvFile("A='#not a comment'")).toEqual([{ key: "A", value: "#not a comment", line: 1 }]);
  });

  it("ignores env-file entries of options the command does not take", () => {
    const file = envFile("BASALT_HTTP_PORT=1\nBASALT_LOG_LEVEL=error\n");
    const r = parseCli(["init", "--env-file", file], {});
    expect(r.options["http.port"]).toBe(DEFAULT_HTTP_PORT);
    expect(r.options["log.level"]).toBe("error");
  });

  it("rejects unknown BASALT_ keys in the env file, naming the key", () => {
    const file = envFile("BASALT_HTTP_PROT=1\n");
    const e = expectError(["--env-file", file], "CLI_UNKNOWN_OPTION", /BASALT_HTTP_PROT.*did you mean BASALT_HTTP_PORT/);
    expect(e.meta).toMatchObject({ option: "BASALT_HTTP_PROT", suggestion: "BASALT_HTTP_PORT", file });
  });

  it("rejects bad env-file values, naming key and line", () => {
    const file = envFile("# c\nBASALT_HTTP_PORT=eighty\n");
    expectError(["--env-file", file], "CLI_INVALID_VALUE", /BASALT_HTTP_PORT \(.*:2\).*integer/);
  });

  it("rejects malformed and missing env files", () => {
    expectError(["--env-file", envFile("BASALT_HTTP_PORT\n")], "CLI_ENV_FILE", /:1: expected KEY=value/);
    expectError(["--env-file", envFile("BASALT_DATADIR=\"open\n")], "CLI_ENV_FILE", /unterminated quote/);
    expectError(["--env-file", envFile("BASALT_ENV_FILE=other\n")], "CLI_ENV_FILE", /cannot name another env file/);
    expectError(["--env-file", path.join(tmp, "missing.env")], "CLI_ENV_FILE", /cannot read env file/);
    expectError([], "CLI_ENV_FILE", /cannot read env file/, { BASALT_ENV_FILE: path.join(tmp, "missing.env") });
  });
});
