/**
 * `basalt doctor` checks of the L1 endpoints: "l1.rpc" (reachable, `eth_chainId` is the L1 of
 * `--network`, round-trip time, not syncing) and "l1.beacon" (reachable at
 * `/eth/v1/node/version`, and `/eth/v1/beacon/genesis` is the beacon chain of that L1).
 */
import { isOpNetworkName, opNetwork } from "../../chain/op/networks.js";
import { envVarName } from "../../config/options.js";
import { failureReason, getJson, jsonRpc, ms, type JsonRpcAnswer } from "./probe.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";
import { DOCTOR_L1_LATENCY_WARN_MS } from "../constants.js";

/** Known L1 chains: name and beacon genesis time (seconds; the beacon chain's `genesis_time`). */
const L1_CHAINS: ReadonlyMap<bigint, { name: string; beaconGenesisTime: bigint }> = new Map([
  // Ethereum mainnet beacon chain genesis: 2020-12-01 12:00:23 UTC.
  [1n, { name: "Ethereum mainnet", beaconGenesisTime: 1_606_824_023n }],
  // Sepolia beacon chain genesis: 2022-06-20 14:00:00 UTC.
  [11_155_111n, { name: "Sepolia", beaconGenesisTime: 1_655_733_600n }],
]);

/** The L1 chain id `--network` settles on, when it is a built-in Base network. */
function expectedL1ChainId(network: string): bigint | undefined {
  return isOpNetworkName(network) ? opNetwork(network).l1ChainId : undefined;
}

/** `1 (Ethereum mainnet)` / `845337`: a chain id with its name when known. */
function chainLabel(id: bigint): string {
  const known = L1_CHAINS.get(id);
  return known === undefined ? String(id) : `${id} (${known.name})`;
}

/** The verdict for an endpoint that is not configured: WARN on a Base network (derivation will need it), SKIP elsewhere. */
function notConfigured(id: string, title: string, network: string, variable: string, what: string): CheckResult {
  if (!isOpNetworkName(network)) return result(id, title, "SKIP", `not configured (${network} needs no L1 ${what})`);
  return result(
    id,
    title,
    "WARN",
    `not configured; deriving ${network} from L1 (a later release) will need an L1 ${what}`,
    `set ${variable}=<url> in the env file (deploy/env/${network}.env)`,
  );
}

/** Check "l1.rpc": the L1 execution RPC answers `eth_chainId` with the L1 of `--network`, quickly, and is not syncing. */
export async function checkL1Rpc(ctx: DoctorContext): Promise<CheckResult> {
  const id = "l1.rpc";
  const title = "L1 RPC";
  const url = ctx.options["l1.rpc"];
  const variable = envVarName("l1.rpc");
  if (url === undefined) return notConfigured(id, title, ctx.options.network, variable, "execution RPC");
  let answer: JsonRpcAnswer;
  try {
    answer = await jsonRpc(url, "eth_chainId", [], ctx.timeoutMs);
  } catch (e) {
    const fix = `check that ${url} is an L1 execution node's JSON-RPC URL reachable from this machine (${variable})`;
    return result(id, title, "FAIL", `${url} unreachable: ${failureReason(e)}`, fix, { url });
  }
  if (answer.error !== undefined || typeof answer.result !== "string" || !/^0x[0-9a-fA-F]+$/.test(answer.result)) {
    const got = answer.error !== undefined ? `error ${answer.error.code} ${answer.error.message}` : JSON.stringify(answer.result);
    const fix = `point ${variable} at an Ethereum JSON-RPC endpoint`;
    return result(id, title, "FAIL", `${url} answered eth_chainId with ${got}, expected a hex quantity`, fix, { url });
  }
  const chainId = BigInt(answer.result);
  const data: Record<string, unknown> = { url, chainId: Number(chainId), latencyMs: Math.round(answer.latencyMs) };
  const expected = expectedL1ChainId(ctx.options.network);
  if (expected !== undefined && chainId !== expected) {
    const detail = `${url} is chain ${chainLabel(chainId)}, expected ${chainLabel(expected)} for ${ctx.options.network}`;
    return result(id, title, "FAIL", detail, `set ${variable} to an RPC of ${chainLabel(expected)}`, { ...data, expectedChainId: Number(expected) });
  }
  // eth_syncing: a still-syncing L1 node serves stale heads (ignored when the method is not offered).
  let syncing = false;
  try {
    const s = await jsonRpc(url, "eth_syncing", [], ctx.timeoutMs);
    syncing = s.error === undefined && s.result !== false && s.result !== null && s.result !== undefined;
  } catch {
    // eth_chainId answered: a failing eth_syncing alone is not worth a verdict.
  }
  const detail = `${url}: chain ${chainLabel(chainId)}, ${ms(answer.latencyMs)}${expected === undefined ? " (no expected L1 for this network)" : ""}`;
  if (syncing) {
    return result(id, title, "WARN", `${detail}; the L1 node is still syncing`, "wait for the L1 node to finish syncing, or use another", data);
  }
  if (answer.latencyMs > DOCTOR_L1_LATENCY_WARN_MS) {
    const fix = "use an L1 RPC closer to this machine (same region) or your own L1 node";
    return result(id, title, "WARN", `${detail}; slower than ${DOCTOR_L1_LATENCY_WARN_MS} ms`, fix, data);
  }
  return result(id, title, "OK", detail, undefined, data);
}

/** Check "l1.beacon": the beacon API answers its version and genesis, and the genesis is the beacon chain of `--network`'s L1. */
export async function checkL1Beacon(ctx: DoctorContext): Promise<CheckResult> {
  const id = "l1.beacon";
  const title = "L1 beacon";
  const base = ctx.options["l1.beacon"];
  const variable = envVarName("l1.beacon");
  if (base === undefined) return notConfigured(id, title, ctx.options.network, variable, "beacon API");
  const root = base.replace(/\/+$/, "");
  const fix = `check that ${base} is an L1 beacon node's REST API reachable from this machine (${variable})`;
  let version: string;
  let latencyMs: number;
  try {
    const v = await getJson(`${root}/eth/v1/node/version`, ctx.timeoutMs);
    version = String((v.body as { data?: { version?: unknown } }).data?.version ?? "unknown");
    latencyMs = v.latencyMs;
  } catch (e) {
    return result(id, title, "FAIL", `${base} unreachable: ${failureReason(e)}`, fix, { url: base });
  }
  let genesisTime: bigint;
  try {
    const g = await getJson(`${root}/eth/v1/beacon/genesis`, ctx.timeoutMs);
    const raw = (g.body as { data?: { genesis_time?: unknown } }).data?.genesis_time;
    if (typeof raw !== "string" && typeof raw !== "number") {
      throw new Error(`no data.genesis_time in the answer (got ${JSON.stringify(g.body).slice(0, 200)})`);
    }
    genesisTime = BigInt(raw);
  } catch (e) {
    return result(id, title, "FAIL", `${base}/eth/v1/beacon/genesis: ${failureReason(e)}`, fix, { url: base, version });
  }
  const data: Record<string, unknown> = { url: base, version, genesisTime: Number(genesisTime), latencyMs: Math.round(latencyMs) };
  const expectedL1 = expectedL1ChainId(ctx.options.network);
  const l1 = expectedL1 === undefined ? undefined : L1_CHAINS.get(expectedL1);
  if (l1 !== undefined && genesisTime !== l1.beaconGenesisTime) {
    const detail = `${base} has beacon genesis time ${genesisTime}, expected ${l1.beaconGenesisTime} (${l1.name}) for ${ctx.options.network}`;
    return result(id, title, "FAIL", detail, `set ${variable} to a beacon node of ${l1.name}`, data);
  }
  // Blob retention (MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS epochs): derivation re-reads blobs back to
  // the safe head's L1 origin, at least a sequencing window plus a channel timeout after downtime.
  const retention = await blobRetentionSeconds(root, ctx.timeoutMs);
  let keeps = "blob retention unknown (no /eth/v1/config/spec)";
  if (retention !== undefined) {
    data.blobRetentionSeconds = retention;
    keeps = `keeps blobs ${(retention / 86_400).toFixed(1)} days`;
    const net = isOpNetworkName(ctx.options.network) ? opNetwork(ctx.options.network) : undefined;
    if (net !== undefined) {
      const needed = Number(net.seqWindowSize + net.channelTimeoutGranite) * L1_SLOT_SECONDS;
      data.blobRetentionNeededSeconds = needed;
      if (retention < needed) {
        const detail = `${base} ${keeps}, but deriving ${ctx.options.network} after downtime needs blobs of the last ${(needed / 3600).toFixed(1)} hours (sequencing window + channel timeout)`;
        return result(id, title, "WARN", detail, "use a beacon node that keeps blobs for the default 4096 epochs (~18 days), or a blob archive", data);
      }
    }
  }
  return result(id, title, "OK", `${base}: ${version}, genesis time ${genesisTime}, ${keeps}, ${ms(latencyMs)}`, undefined, data);
}

/** Ethereum's slot time (mainnet and Sepolia), for the retention a network's derivation needs. */
const L1_SLOT_SECONDS = 12;

/** How long the beacon node keeps blobs, from its spec (`MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS × SLOTS_PER_EPOCH × SECONDS_PER_SLOT`); undefined when it does not say. */
async function blobRetentionSeconds(root: string, timeoutMs: number): Promise<number | undefined> {
  try {
    const s = await getJson(`${root}/eth/v1/config/spec`, timeoutMs);
    const d = (s.body as { data?: Record<string, unknown> }).data ?? {};
    const epochs = Number(d.MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS);
    const slots = Number(d.SLOTS_PER_EPOCH);
    const seconds = Number(d.SECONDS_PER_SLOT);
    if (![epochs, slots, seconds].every((n) => Number.isFinite(n) && n > 0)) return undefined;
    return epochs * slots * seconds;
  } catch {
    return undefined;
  }
}
