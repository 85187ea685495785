/**
 * The deployment files under deploy/ stay consistent with basalt: the systemd unit has the
 * required keys (and passes `systemd-analyze verify` where systemd's tools are installed), every
 * BASALT_* name in the env files (and the Kubernetes ConfigMap) is a real option's variable with a
 * valid value, the load balancer and Kubernetes probes use the rollup port's /health, the YAML
 * parses, and install.sh is valid bash (shellcheck-clean where shellcheck is installed).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCli, parseEnvFile, parseOptionValue } from "../../../src/cli/args.js";
import { DEFAULT_METRICS_PORT, DEFAULT_ROLLUP_PORT } from "../../../src/config/constants.js";
import { SHUTDOWN_DRAIN_MS } from "../../../src/cli/constants.js";
import { OPTION_LIST, envVarName, type OptionDefinition } from "../../../src/config/options.js";
import { REPO_ROOT } from "../../helpers/basaltProcess.js";

const DEPLOY = path.join(REPO_ROOT, "deploy");
const NETWORKS = ["base-mainnet", "base-sepolia", "devnet"] as const;
/** Base's public flashblocks streams (reference flashblocks.md §4). */
const FLASHBLOCKS_URLS: Record<string, string> = {
  "base-mainnet": "wss://mainnet.flashblocks.base.org/ws",
  "base-sepolia": "wss://sepolia.flashblocks.base.org/ws",
};
/** Variables every env file sets (the specification's node variables with basalt's prefix, and the listeners). */
const REQUIRED_ENV = [
  "BASALT_NETWORK",
  "BASALT_DATADIR",
  "BASALT_L1_ETH_RPC",
  "BASALT_L1_BEACON",
  "BASALT_FB_WEBSOCKET_URL",
  "BASALT_HISTORICAL_PROOFS",
  "BASALT_PROOFS_HISTORY_WINDOW",
  "BASALT_HTTP_ADDR",
  "BASALT_HTTP_PORT",
  "BASALT_ROLLUP_PORT",
  "BASALT_METRICS",
  "BASALT_METRICS_PORT",
];
/**
 * The P2P options the env files list (commented, at their defaults) and the Kubernetes container
 * sets: op-node's consensus-layer flags and reth's execution-layer flags.
 */
const P2P_OPTIONS = [
  "p2p.disable",
  "p2p.listen.ip",
  "p2p.listen.tcp",
  "p2p.listen.udp",
  "p2p.advertise.ip",
  "p2p.bootnodes",
  "p2p.el.disable",
  "addr",
  "port",
  "discovery.port",
  "discovery.v5.port",
  "rollup.discovery.v4",
  "nat",
  "bootnodes",
];
/** Whether this tree's option table has the P2P options yet (the P2P branches add them). */
const P2P_DECLARED = P2P_OPTIONS.some((n) => p2pOption(n) !== undefined);
/** The table's row of option `name`, when the table has it (names not yet in the table are plain strings here). */
function p2pOption(name: string): OptionDefinition | undefined {
  return OPTION_LIST.find((o) => (o.name as string) === name);
}
/** The variable of a P2P option: from the table once declared, else by the table's naming rule. */
function p2pVariable(name: string): string {
  const def = p2pOption(name);
  return def !== undefined ? envVarName(def.name) : `BASALT_${name.toUpperCase().replace(/[.-]/g, "_")}`;
}

/** Checks `BASALT_*` variables of P2P options: real options' variables with valid values once the table has them. */
function expectP2pVariables(entries: ReadonlyMap<string, string>, label: string): void {
  const known = new Set(P2P_OPTIONS.map(p2pVariable));
  for (const [key, value] of entries) {
    expect(known.has(key), `${label}: ${key} is not the variable of a P2P option`).toBe(true);
    const def = OPTION_BY_ENV.get(key);
    expect(def !== undefined || !P2P_DECLARED, `${label}: ${key} is not the variable of any option`).toBe(true);
    if (def !== undefined && value !== "" && !value.includes("$(")) parseOptionValue(def, value, `${key} (${label})`);
  }
}

/** The node forces its own exit this long after SIGTERM (src/cli/commands/node.ts SHUTDOWN_GRACE_MS). */
const NODE_FORCED_EXIT_MS = 10_000;

/** Whether a program is on PATH. */
function has(program: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" }).status === 0;
}

function read(rel: string): string {
  return readFileSync(path.join(DEPLOY, rel), "utf8");
}

/** A systemd unit as section → key → values (a key may repeat). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let section: Map<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      section = new Map();
      out.set(header[1] as string, section);
      continue;
    }
    const eq = line.indexOf("=");
    if (section === undefined || eq < 0) throw new Error(`unit line outside a section or without '=': ${line}`);
    const key = line.slice(0, eq).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return out;
}

const OPTION_BY_ENV: ReadonlyMap<string, OptionDefinition> = new Map(OPTION_LIST.map((o) => [envVarName(o.name), o]));

/** Checks every entry of an env file's text: a known BASALT_* variable whose value parses as its option's type. */
function expectValidEnv(text: string, label: string): Map<string, string> {
  const entries = parseEnvFile(text, label);
  const values = new Map<string, string>();
  for (const e of entries) {
    const def = OPTION_BY_ENV.get(e.key);
    expect(def, `${label}:${e.line}: ${e.key} is not the variable of any option`).toBeDefined();
    expect(values.has(e.key), `${label}:${e.line}: ${e.key} set twice`).toBe(false);
    if (e.value !== "") parseOptionValue(def as OptionDefinition, e.value, `${e.key} (${label}:${e.line})`);
    values.set(e.key, e.value);
  }
  return values;
}

/** The `basalt.env: |` block of the Kubernetes ConfigMap. */
function configMapEnv(yamlText: string): string {
  const lines = yamlText.split("\n");
  const start = lines.findIndex((l) => l.trim() === "basalt.env: |");
  expect(start).toBeGreaterThan(0);
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (!l.startsWith("    ") && l.trim() !== "") break;
    body.push(l.trim());
  }
  return body.join("\n");
}

describe("deploy/basalt.service", () => {
  const unit = parseUnit(read("basalt.service"));
  const service = unit.get("Service") as Map<string, string[]>;
  const one = (key: string): string | undefined => service.get(key)?.at(-1);

  it("runs basalt node as the basalt user with its env file, restarting on failure", () => {
    expect(one("User")).toBe("basalt");
    expect(one("ExecStart")).toBe("/usr/bin/env node /opt/basalt/bin/basalt.js node --env-file /etc/basalt/basalt.env");
    expect(one("Restart")).toBe("on-failure");
    expect(Number(one("RestartSec"))).toBeGreaterThan(0);
    expect(unit.get("Install")?.get("WantedBy")).toEqual(["multi-user.target"]);
    expect(unit.get("Unit")?.get("After")?.[0]).toContain("network-online.target");
  });

  it("is hardened", () => {
    const expected: Record<string, string> = {
      NoNewPrivileges: "true",
      ProtectSystem: "strict",
      ProtectHome: "true",
      PrivateTmp: "true",
      PrivateDevices: "true",
      ReadWritePaths: "/var/lib/basalt",
      CapabilityBoundingSet: "",
      RestrictAddressFamilies: "AF_INET AF_INET6 AF_UNIX",
      LockPersonality: "true",
      // V8's JIT needs W+X memory.
      MemoryDenyWriteExecute: "no",
      SystemCallArchitectures: "native",
      LimitNOFILE: "1048576",
      KillSignal: "SIGTERM",
    };
    for (const [key, value] of Object.entries(expected)) expect(one(key), key).toBe(value);
  });

  it("gives the graceful shutdown (drain, store close, the node's forced exit) time before SIGKILL", () => {
    const stopS = Number(one("TimeoutStopSec"));
    expect(stopS * 1000).toBeGreaterThan(SHUTDOWN_DRAIN_MS);
    expect(stopS * 1000).toBeGreaterThan(NODE_FORCED_EXIT_MS);
  });

  it.skipIf(!has("systemd-analyze"))("passes systemd-analyze verify (skipped where systemd-analyze is not installed)", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-unit-"));
    try {
      const file = path.join(dir, "basalt.service");
      copyFileSync(path.join(DEPLOY, "basalt.service"), file);
      const r = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8", timeout: 30_000 });
      const about = `${r.stdout}${r.stderr}`.split("\n").filter((l) => l.includes("basalt.service"));
      expect(about, about.join("\n")).toEqual([]);
      expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("deploy/env/*.env", () => {
  for (const network of NETWORKS) {
    it(`${network}.env: every BASALT_* name is an option's variable with a valid value`, () => {
      const file = path.join(DEPLOY, "env", `${network}.env`);
      const values = expectValidEnv(readFileSync(file, "utf8"), file);
      for (const key of REQUIRED_ENV) expect(values.has(key), `${network}.env lacks ${key}`).toBe(true);
      expect(values.get("BASALT_NETWORK")).toBe(network);
      expect(values.get("BASALT_DATADIR")).toBe(`/var/lib/basalt/${network}`);
      expect(values.get("BASALT_FB_WEBSOCKET_URL")).toBe(FLASHBLOCKS_URLS[network] ?? "");
      expect(values.get("BASALT_ROLLUP_PORT")).toBe(String(DEFAULT_ROLLUP_PORT));
      expect(values.get("BASALT_METRICS_PORT")).toBe(String(DEFAULT_METRICS_PORT));
      // The whole file parses as `basalt node --env-file` reads it.
      const parsed = parseCli(["node", "--env-file", file], {});
      expect(parsed.options.network).toBe(network);
      expect(parsed.sources.network).toBe("env-file");
    });

    it(`${network}.env: lists every P2P option's variable at its default, commented`, () => {
      const whole = readFileSync(path.join(DEPLOY, "env", `${network}.env`), "utf8");
      const start = whole.indexOf("# ---- Peer-to-peer");
      expect(start, `${network}.env has no Peer-to-peer section`).toBeGreaterThan(0);
      const end = whole.indexOf("# ----", start + 1);
      const text = whole.slice(start, end < 0 ? undefined : end);
      const commented = new Map([...text.matchAll(/^# (BASALT_[A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]));
      for (const name of P2P_OPTIONS) expect(commented.has(p2pVariable(name)), `${network}.env lacks # ${p2pVariable(name)}=`).toBe(true);
      expectP2pVariables(commented, `${network}.env`);
      expect(commented.get(p2pVariable("p2p.listen.tcp"))).toBe("9222");
      expect(commented.get(p2pVariable("port"))).toBe("30303");
      expect(commented.get(p2pVariable("discovery.port"))).toBe("30303");
      expect(commented.get(p2pVariable("discovery.v5.port"))).toBe("9200");
      expect(commented.get(p2pVariable("rollup.discovery.v4"))).toBe("false");
      const def = p2pOption("p2p.listen.tcp") as { default?: unknown } | undefined;
      if (def !== undefined) expect(String(def.default)).toBe("9222");
    });
  }
});

describe("deploy/haproxy.cfg", () => {
  const cfg = read("haproxy.cfg");

  it("checks every replica with GET /health?max_lag=30 on the rollup port", () => {
    expect(cfg).toContain("http-check send meth GET uri /health?max_lag=30");
    expect(cfg).toContain("http-check expect status 200");
    const servers = cfg.split("\n").filter((l) => l.trim().startsWith("server "));
    expect(servers.length).toBeGreaterThanOrEqual(2);
    for (const s of servers) expect(s).toContain(`check port ${DEFAULT_ROLLUP_PORT}`);
  });

  it.skipIf(!has("haproxy"))("is valid for haproxy -c (skipped where haproxy is not installed)", () => {
    const r = spawnSync("haproxy", ["-c", "-f", path.join(DEPLOY, "haproxy.cfg")], { encoding: "utf8", timeout: 30_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});

describe("deploy/k8s/statefulset.yaml", () => {
  const text = read("k8s/statefulset.yaml");

  it("is valid YAML (python3 yaml where installed, else a structural check)", () => {
    expect(text).not.toMatch(/\t/);
    const probe = spawnSync("python3", ["-c", "import yaml"], { stdio: "ignore" });
    if (probe.status !== 0) {
      // Without a YAML parser: documents separated by ---, each with an apiVersion and a kind.
      const docs = text.split(/^---$/m);
      for (const d of docs) expect(d).toMatch(/^apiVersion: \S+$[\s\S]*^kind: \S+$/m);
      return;
    }
    const script = "import json,sys,yaml; print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d]))";
    const r = spawnSync("python3", ["-c", script], { input: text, encoding: "utf8", timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    const docs = JSON.parse(r.stdout) as { kind: string; spec?: Record<string, unknown> }[];
    expect(docs.map((d) => d.kind).sort()).toEqual(["ConfigMap", "Service", "Service", "StatefulSet"]);
    interface Container {
      ports: { name: string; containerPort: number; hostPort?: number; protocol: string }[];
      env: { name: string; value?: string }[];
      readinessProbe: { httpGet: { path: string; port: string } };
      livenessProbe: { exec: { command: string[] } };
    }
    interface StatefulSet {
      spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } }; volumeClaimTemplates: unknown[] };
    }
    const sts = docs.find((d) => d.kind === "StatefulSet") as unknown as StatefulSet;
    const pod = sts.spec.template.spec;
    const unit = parseUnit(read("basalt.service"));
    expect(pod.terminationGracePeriodSeconds).toBe(Number(unit.get("Service")?.get("TimeoutStopSec")?.[0]));
    const c = pod.containers[0] as Container;
    expect(c.ports.map((p) => p.containerPort)).toEqual(expect.arrayContaining([8545, 8546, DEFAULT_ROLLUP_PORT, DEFAULT_METRICS_PORT]));
    // P2P: 9222 and 30303, TCP and UDP, and the execution layer's basev0 discv5 on 9200 UDP, on the Kubernetes node's address (host ports), and in the headless Service.
    const p2p = [
      { name: "libp2p", containerPort: 9222, hostPort: 9222, protocol: "TCP" },
      { name: "discv5", containerPort: 9222, hostPort: 9222, protocol: "UDP" },
      { name: "rlpx", containerPort: 30303, hostPort: 30303, protocol: "TCP" },
      { name: "discv4", containerPort: 30303, hostPort: 30303, protocol: "UDP" },
      { name: "el-discv5", containerPort: 9200, hostPort: 9200, protocol: "UDP" },
    ];
    expect(c.ports).toEqual(expect.arrayContaining(p2p));
    const headless = docs.find((d) => d.kind === "Service" && (d as { metadata?: { name?: string } }).metadata?.name === "basalt-headless") as unknown as {
      spec: { ports: { name: string; port: number; targetPort: string; protocol?: string }[] };
    };
    for (const p of p2p) expect(headless.spec.ports).toContainEqual({ name: p.name, port: p.containerPort, targetPort: p.name, protocol: p.protocol });
    // The public Service load-balances clients: never the P2P ports (each replica is its own peer).
    const clients = docs.find((d) => d.kind === "Service" && (d as { metadata?: { name?: string } }).metadata?.name === "basalt") as unknown as { spec: { ports: { port: number }[] } };
    expect(clients.spec.ports.map((p) => p.port)).not.toContain(9222);
    expect(clients.spec.ports.map((p) => p.port)).not.toContain(30303);
    const env = new Map(c.env.filter((e) => e.name.startsWith("BASALT_")).map((e) => [e.name, e.value ?? ""]));
    expect(env.get(p2pVariable("p2p.advertise.ip"))).toBe("$(HOST_IP)");
    expect(env.get(p2pVariable("nat"))).toBe("extip:$(HOST_IP)");
    expectP2pVariables(env, "statefulset.yaml container env");
    expect(c.readinessProbe.httpGet).toEqual({ path: "/health?max_lag=30", port: "rollup" });
    expect(c.livenessProbe.exec.command.join(" ")).toContain('"method":"healthz"');
    expect(sts.spec.volumeClaimTemplates.length).toBe(1);
  });

  it("its ConfigMap env file holds only real BASALT_* variables with valid values", () => {
    const values = expectValidEnv(configMapEnv(text), "statefulset.yaml ConfigMap");
    expect(values.get("BASALT_ROLLUP_PORT")).toBe(String(DEFAULT_ROLLUP_PORT));
    expect(values.get("BASALT_ROLLUP_ADDR")).toBe("0.0.0.0");
  });
});

describe("deploy/install.sh", () => {
  const script = path.join(DEPLOY, "install.sh");

  it("is strict bash that validates its arguments before touching the system", () => {
    expect(readFileSync(script, "utf8")).toContain("set -euo pipefail");
    expect(spawnSync("bash", ["-n", script]).status).toBe(0);
    const help = spawnSync("bash", [script, "--help"], { encoding: "utf8", timeout: 30_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--network");
    expect(help.stdout).toContain("--prefix");
    const bad = spawnSync("bash", [script, "--network", "mainnet"], { encoding: "utf8", timeout: 30_000 });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("expected devnet, base-mainnet or base-sepolia");
  });

  it.skipIf(!has("shellcheck"))("is shellcheck-clean (skipped where shellcheck is not installed)", () => {
    const r = spawnSync("shellcheck", [script], { encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stdout).toBe(0);
  });
});
