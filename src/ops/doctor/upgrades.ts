/**
 * `basalt doctor` check "upgrades": does the network schedule an upgrade this basalt does not
 * implement (or schedule one of its upgrades at another time)? It asks the same sources the node
 * watches — Base's L1 upgrade signal (`--l1.rpc` with the Base network's contract or
 * `--upgrade-signal.contract`) and the followed RPC's eth_config (`--follow-rpc`) — and reads
 * what a node on this datadir learnt before (kept in the datadir). Any finding is a FAIL naming
 * the upgrade, its activation time and its source: the node refuses blocks from that time on.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { commonFromGenesis } from "../../chain/chainSpec.js";
import { Chain } from "../../blockchain/chain.js";
import type { GenesisJson } from "../../chain/genesis.js";
import { isOpNetworkName, opNetwork, opNetworkByGenesisHash } from "../../chain/op/networks.js";
import { announcedFindings, formatActivation, formatProtocolVersion, type UpgradeFinding } from "../../chain/op/upgradeSchedule.js";
import { genesisHashOf, resolveGenesis } from "../../blockchain/genesisSource.js";
import { envVarName, isDevnetL1 } from "../../config/options.js";
import { isWebSocketUrl } from "../../util/rpcClient.js";
import { fromHex } from "../../util/bytes.js";
import { upgradeSignalContract } from "../upgrades/fromOptions.js";
import { knownUpgradeSchedule, localForkView, networkSchedule, readEthConfigFindings, readL1Schedule, type ChainSchedule, type RpcCall } from "../upgrades/sources.js";
import { failureReason, jsonRpc } from "./probe.js";
import { DoctorError, result, type CheckResult, type DoctorContext } from "./types.js";

const ID = "upgrades";
const TITLE = "Scheduled upgrades";

/** A JSON-RPC call through the doctor's probe: a JSON-RPC error is thrown as a `DOCTOR_BAD_ANSWER`. */
function probeCall(url: string, timeoutMs: number): RpcCall {
  return async (method, params) => {
    const a = await jsonRpc(url, method, params, timeoutMs);
    if (a.error !== undefined) throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url }, `${method}: error ${a.error.code} ${a.error.message}`);
    return a.result;
  };
}

/** basalt's schedule for the options: the datadir's chain when initialized (and what its node learnt), else the network's genesis. */
async function scheduleOf(ctx: DoctorContext): Promise<{ schedule: ChainSchedule; kept: UpgradeFinding[] } | undefined> {
  const o = ctx.options;
  if (existsSync(join(o.datadir, "chain"))) {
    const chain = Chain.open(o.datadir, { readOnly: true });
    try {
      const network = opNetworkByGenesisHash(`0x${Buffer.from(chain.genesisHash).toString("hex")}`);
      const kept = [...chain.upgrades.findings().filter((f) => f.source !== "announced"), ...announcedFindings(network?.announcedUpgrades ?? [])];
      return { schedule: { genesis: chain.genesis, common: chain.common, genesisHash: chain.genesisHash }, kept };
    } finally {
      await chain.close();
    }
  }
  let genesis: GenesisJson;
  let hash: string;
  if (isOpNetworkName(o.network)) return { schedule: networkSchedule(opNetwork(o.network)), kept: announcedFindings(opNetwork(o.network).announcedUpgrades) };
  if (isDevnetL1(o.network)) {
    return undefined;
  } else {
    // The devnet (with its --dev.*-time schedule) or a genesis file: never a download.
    genesis = await resolveGenesis(o);
    hash = await genesisHashOf(genesis);
  }
  return { schedule: { genesis, common: commonFromGenesis(genesis), genesisHash: fromHex(hash) }, kept: [] };
}

const SOURCE_NAMES: Record<UpgradeFinding["source"], string> = { l1: "L1 upgrade signal", "follow-rpc": "--follow-rpc eth_config", announced: "announced by Base" };

const describe = (f: UpgradeFinding): string =>
  `${f.upgrade} at ${formatActivation(f.activation)} (${SOURCE_NAMES[f.source]}${f.kind === "conflict" ? ", differs from basalt's table" : ""})`;

/** Check "upgrades": FAIL for an upgrade a source schedules that basalt cannot run, OK when the sources agree with basalt. */
export async function checkUpgrades(ctx: DoctorContext): Promise<CheckResult> {
  const o = ctx.options;
  let found: Awaited<ReturnType<typeof scheduleOf>>;
  try {
    found = await scheduleOf(ctx);
  } catch (e) {
    return result(ID, TITLE, "SKIP", `basalt's own schedule for ${o.network} is not readable here: ${(e as Error).message}`);
  }
  if (found === undefined) return result(ID, TITLE, "SKIP", `${o.network} has no scheduled upgrades to watch`);
  const { schedule, kept } = found;
  const findings: UpgradeFinding[] = [];
  const read: string[] = [];
  const problems: string[] = [];
  const data: Record<string, unknown> = {};
  const known = knownUpgradeSchedule(schedule);
  const contract = known === undefined ? undefined : upgradeSignalContract(o["upgrade-signal.contract"], `0x${Buffer.from(schedule.genesisHash).toString("hex")}`);
  const l1Rpc = o["l1.rpc"];
  if (known !== undefined && contract !== undefined && l1Rpc !== undefined) {
    try {
      const r = await readL1Schedule(probeCall(l1Rpc, ctx.timeoutMs), contract, o["upgrade-signal.l1-block-tag"], known);
      findings.push(...r.findings);
      read.push(`L1 ProtocolVersions ${contract} (${r.timestamps.length} upgrades at L1 block ${r.l1Block.number}, minimum node ${formatProtocolVersion(r.minimumProtocolVersion)})`);
      data.l1 = { contract, l1Block: r.l1Block.number, schedule: r.timestamps, minimumProtocolVersion: formatProtocolVersion(r.minimumProtocolVersion), unsignalled: r.unsignalled };
    } catch (e) {
      problems.push(`cannot read the L1 upgrade signal ${contract} through ${l1Rpc}: ${failureReason(e)}`);
    }
  }
  const follow = o["follow-rpc"];
  if (follow !== undefined) {
    if (isWebSocketUrl(follow)) problems.push(`--follow-rpc ${follow} is a WebSocket URL: the doctor reads eth_config over HTTP only`);
    else {
      try {
        findings.push(...(await readEthConfigFindings(probeCall(follow, ctx.timeoutMs), localForkView(schedule), follow)));
        read.push(`eth_config of ${follow}`);
      } catch (e) {
        problems.push(`cannot read eth_config of ${follow}: ${failureReason(e)}`);
      }
    }
  }
  for (const f of kept) if (!findings.some((g) => g.upgrade === f.upgrade && g.activation === f.activation)) findings.push(f);
  data.findings = findings.map((f) => ({ ...f, activation: Number(f.activation) }));
  if (findings.length > 0) {
    const unknown = findings.filter((f) => f.kind === "unknown").map((f) => f.upgrade);
    const fix =
      `upgrade basalt to a release that implements ${[...new Set(findings.map((f) => f.upgrade))].join(", ")} before ${formatActivation(findings.reduce((a, f) => (f.activation < a ? f.activation : a), findings[0]!.activation))}: ` +
      "the node refuses every block from that time on and only serves what it has" +
      (unknown.length < findings.length ? "; for an upgrade scheduled differently from basalt's table, also check --network and the source" : "");
    return result(ID, TITLE, "FAIL", `this basalt cannot run ${findings.map(describe).join("; ")}`, fix, data);
  }
  if (problems.length > 0) {
    return result(ID, TITLE, "WARN", problems.join("; "), `check the sources (${envVarName("l1.rpc")}, --follow-rpc); until they answer, an upgrade basalt lacks can go unnoticed`, data);
  }
  if (read.length === 0) {
    const how = isOpNetworkName(o.network) ? `set ${envVarName("l1.rpc")} (the Base network's upgrade signal is read from L1)` : "give --follow-rpc, or --l1.rpc with --upgrade-signal.contract";
    return result(ID, TITLE, "SKIP", `no source of scheduled upgrades configured: ${how}`, undefined, data);
  }
  return result(ID, TITLE, "OK", `no upgrade basalt lacks is scheduled (${read.join("; ")})`, undefined, data);
}
