/**
 * eth_config (EIP-7910): the configuration of the current fork, the next scheduled one and
 * another, per chain kind.
 *
 * - Plain Ethereum chains answer as geth (the execution-apis fixtures were recorded from geth):
 *   `current`, `next` and `last` = the last scheduled fork; the forks are the Common's
 *   timestamp-scheduled ones.
 * - OP chains answer as base-reth-node / op-reth (reth `EthConfigHandler`): the forks are every
 *   timestamp-activated fork of the chain spec — the Ethereum ones and the OP/Base ones (Regolith
 *   through Cobalt; Delta, a consensus-only upgrade, is none) — deduplicated by time;
 *   `current` is the last one at or before the head, `next` the one after it, and `last` the one
 *   BEFORE it (reth's reading of "last", which differs from EIP-7910's "last configured fork";
 *   basalt matches the node Base runs). `blobSchedule` is zero on OP chains (no blobs on L2;
 *   base-reth reports zeros), the precompiles are named as reth names them (`P256_VERIFY`) plus
 *   Base's native precompiles from Beryl (their `PrecompileId::Custom` names), and the fork id
 *   is the EIP-2124 hash of the chain at that fork — the one the execution-layer P2P announces
 *   (`p2p/el/forkSchedule.ts`; Base mainnet at Cobalt: `0x68647e86`).
 *
 * Keys of `precompiles` and `systemContracts` are sorted, as both reth (BTreeMap) and geth (Go map
 * marshalling) write them.
 */
import type { Common } from "@ethereumjs/common";
import type { Chain } from "../../blockchain/chain.js";
import { opForkAt, OpFork, type OpChainConfig } from "../../chain/op/forks.js";
import { toQuantity } from "../../chain/json/index.js";
import { basePrecompileNames } from "../../execution/base/registry.js";
import { chainForkActivations, forkFilterOf } from "../../p2p/el/forkSchedule.js";

/** Precompile names and addresses by the Ethereum fork that introduced them (EIP-7910 / geth names). */
const PRECOMPILES: [string, number, string][] = [
  ["chainstart", 0x01, "ECREC"],
  ["chainstart", 0x02, "SHA256"],
  ["chainstart", 0x03, "RIPEMD160"],
  ["chainstart", 0x04, "ID"],
  ["byzantium", 0x05, "MODEXP"],
  ["byzantium", 0x06, "BN254_ADD"],
  ["byzantium", 0x07, "BN254_MUL"],
  ["byzantium", 0x08, "BN254_PAIRING"],
  ["istanbul", 0x09, "BLAKE2F"],
  ["cancun", 0x0a, "KZG_POINT_EVALUATION"],
  ["prague", 0x0b, "BLS12_G1ADD"],
  ["prague", 0x0c, "BLS12_G1MSM"],
  ["prague", 0x0d, "BLS12_G2ADD"],
  ["prague", 0x0e, "BLS12_G2MSM"],
  ["prague", 0x0f, "BLS12_PAIRING_CHECK"],
  ["prague", 0x10, "BLS12_MAP_FP_TO_G1"],
  ["prague", 0x11, "BLS12_MAP_FP2_TO_G2"],
  ["osaka", 0x100, "P256VERIFY"],
];

/** Address of P256VERIFY: RIP-7212 on OP chains from Fjord, EIP-7951 on Ethereum from Osaka. */
const P256VERIFY_ADDRESS = 0x100;
/** reth's name of P256VERIFY (`PrecompileId::P256Verify` → "P256_VERIFY"), used on OP chains. */
const RETH_P256VERIFY_NAME = "P256_VERIFY";
/** EIP-4788 beacon roots contract (Cancun; OP Ecotone). */
const BEACON_ROOTS_ADDRESS = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02";
/** EIP-2935 history storage contract (Prague; OP Isthmus). */
const HISTORY_STORAGE_ADDRESS = "0x0000f90827f1c53a10cb7a02335b175320002935";
/** EIP-7251 consolidation requests contract (Prague, Ethereum only). */
const CONSOLIDATION_REQUEST_ADDRESS = "0x0000bbddc7ce488642fb579f8b00f3a590007251";
/** EIP-7002 withdrawal requests contract (Prague, Ethereum only). */
const WITHDRAWAL_REQUEST_ADDRESS = "0x00000961ef480eb55e80d19ad83579a64c007002";

function addr(n: number): string {
  return "0x" + n.toString(16).padStart(40, "0");
}

/** An object with its keys in sorted order. */
function sorted(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A Common at Ethereum hardfork `hf`. */
function commonAtFork(common: Common, hf: string): Common {
  const c = common.copy();
  c.setHardfork(hf);
  return c;
}

/** The Ethereum precompiles active in `c` (EIP-7910 names). */
function ethereumPrecompiles(c: Common, p256Name: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [fork, a, name] of PRECOMPILES) {
    if (a === P256VERIFY_ADDRESS) {
      if (p256Name !== undefined) out[p256Name] = addr(a);
    } else if (c.gteHardfork(fork)) out[name] = addr(a);
  }
  return out;
}

/** EIP-7910 fork configuration of a plain Ethereum chain at hardfork `hf` (geth's answer), or null. */
function ethereumForkConfig(common: Common, hf: string | undefined, genesisHash: Uint8Array): Record<string, unknown> | null {
  if (hf === undefined) return null;
  const c = commonAtFork(common, hf);
  const systemContracts: Record<string, string> = {};
  if (c.gteHardfork("cancun")) systemContracts.BEACON_ROOTS_ADDRESS = BEACON_ROOTS_ADDRESS;
  if (c.gteHardfork("prague")) {
    systemContracts.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = CONSOLIDATION_REQUEST_ADDRESS;
    systemContracts.DEPOSIT_CONTRACT_ADDRESS = (c as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams.depositContractAddress?.toLowerCase() ?? addr(0);
    systemContracts.HISTORY_STORAGE_ADDRESS = HISTORY_STORAGE_ADDRESS;
    systemContracts.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = WITHDRAWAL_REQUEST_ADDRESS;
  }
  const sched = c.gteHardfork("cancun") ? c.getBlobGasSchedule() : undefined;
  return {
    activationTime: Number(c.hardforkTimestamp(hf) ?? 0),
    blobSchedule:
      sched === undefined
        ? null
        : {
            target: Number(sched.targetBlobGasPerBlock) / 131072,
            max: Number(sched.maxBlobGasPerBlock) / 131072,
            baseFeeUpdateFraction: Number(sched.blobGasPriceUpdateFraction),
          },
    chainId: toQuantity(c.chainId()),
    forkId: c.forkHash(hf, genesisHash),
    precompiles: sorted(ethereumPrecompiles(c, c.gteHardfork("osaka") ? "P256VERIFY" : undefined)),
    systemContracts: sorted(systemContracts),
  };
}

/** geth's eth_config of a plain Ethereum chain. */
function ethereumEthConfig(chain: Chain, now: bigint): Record<string, unknown> {
  const head = chain.head.header;
  const common = chain.common;
  const timed = common
    .hardforks()
    .filter((h) => h.timestamp !== undefined && h.timestamp !== null)
    .map((h) => ({ name: h.name, time: BigInt(h.timestamp as number | string) }));
  const past = timed.filter((t) => t.time <= now);
  const future = timed.filter((t) => t.time > now);
  const current = past.length > 0 ? past[past.length - 1]!.name : common.getHardforkBy({ blockNumber: head.number, timestamp: head.timestamp });
  const next = future[0];
  const last = future.length === 0 ? undefined : future[future.length - 1];
  return {
    current: ethereumForkConfig(common, current, chain.genesisHash),
    next: ethereumForkConfig(common, next?.name, chain.genesisHash),
    last: ethereumForkConfig(common, last?.name, chain.genesisHash),
  };
}

/** The EIP-7910 fork configuration of an OP chain at fork time `time` (base-reth's answer). */
function opForkConfig(chain: Chain, op: OpChainConfig, time: bigint): Record<string, unknown> {
  const c = chain.commonAt(0n, time);
  const fork = opForkAt(op, time);
  const precompiles = ethereumPrecompiles(c, fork >= OpFork.fjord ? RETH_P256VERIFY_NAME : undefined);
  for (const [name, address] of basePrecompileNames(fork)) precompiles[name] = address;
  const systemContracts: Record<string, string> = {};
  if (fork >= OpFork.ecotone) systemContracts.BEACON_ROOTS_ADDRESS = BEACON_ROOTS_ADDRESS;
  // OP Isthmus adopts Prague without the EIP-6110/7002/7251 request contracts: only EIP-2935.
  if (fork >= OpFork.isthmus) systemContracts.HISTORY_STORAGE_ADDRESS = HISTORY_STORAGE_ADDRESS;
  const filter = forkFilterOf({ common: chain.common, op, genesisHash: chain.genesisHash, genesisTime: BigInt(chain.genesis.timestamp ?? 0) });
  const id = filter.forkId({ number: BigInt(Number.MAX_SAFE_INTEGER), timestamp: time });
  return {
    activationTime: Number(time),
    blobSchedule: { baseFeeUpdateFraction: 0, max: 0, target: 0 },
    chainId: toQuantity(chain.chainId),
    forkId: `0x${Buffer.from(id.hash).toString("hex")}`,
    precompiles: sorted(precompiles),
    systemContracts: sorted(systemContracts),
  };
}

/** base-reth's eth_config of an OP chain. */
function opEthConfig(chain: Chain, op: OpChainConfig, now: bigint): Record<string, unknown> {
  const { times } = chainForkActivations({ common: chain.common, op });
  const forks = [...new Set(times)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let i = -1;
  while (i + 1 < forks.length && forks[i + 1]! <= now) i++;
  // No timestamp fork at or before the head: reth answers an error; basalt's OP chains start at Bedrock (Regolith at genesis time), so the first fork serves.
  if (i < 0) i = 0;
  return {
    current: forks.length === 0 ? null : opForkConfig(chain, op, forks[i]!),
    next: i + 1 < forks.length ? opForkConfig(chain, op, forks[i + 1]!) : null,
    last: i >= 1 ? opForkConfig(chain, op, forks[i - 1]!) : null,
  };
}

/**
 * eth_config (EIP-7910) of `chain` with its head at `now` (default: the head's timestamp): geth's
 * answer on Ethereum chains, base-reth's on OP chains.
 */
export function ethConfig(chain: Chain, now: bigint = chain.head.header.timestamp): Record<string, unknown> {
  return chain.op === undefined ? ethereumEthConfig(chain, now) : opEthConfig(chain, chain.op, now);
}
