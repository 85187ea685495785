/**
 * The eth Status message of the versions basalt speaks (devp2p caps/eth.md; EIP-7642):
 *
 * - eth/68: `[version, networkid, td, blockhash, genesis, [forkhash, forknext]]`;
 * - eth/69: `[version, networkid, genesis, [forkhash, forknext], earliestBlock, latestBlock, latestBlockHash]`
 *   (no total difficulty; the block range the node serves, its head last).
 *
 * basalt sends network id = chain id, on eth/68 total difficulty 0 (op-reth sends the chain
 * spec's final Paris total difficulty, 0 on OP chains, where Paris is at genesis) and its head
 * hash, on eth/69 the range it serves, the genesis hash and the EIP-2124 fork id at its head; it
 * accepts a peer on the negotiated eth version, the same network and genesis, whose fork id passes
 * the EIP-2124 rules and (eth/69) whose range is a range.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { EthPeerFaultError, EthProtocolError, EthStatusError } from "./errors.js";
import type { ForkFilter, ForkHead, ForkId } from "./forkId.js";
import { rlpUint } from "./rlpItems.js";

/**
 * The eth versions basalt advertises, lowest first; RLPx negotiates the highest both sides have
 * (as reth, which advertises eth/66–69). eth/69 is what Base's nodes speak since Azul (EIP-7642).
 */
export const ETH_VERSIONS = [68, 69] as const;
/** The first version whose Status carries the block range instead of the total difficulty (EIP-7642). */
export const ETH_69 = 69;

/** The blocks a node serves: `earliest` to `latest` (both included), `latest` with its hash. */
export interface BlockRange {
  earliest: bigint;
  latest: bigint;
  latestHash: Uint8Array;
}

/** A Status message of either version. */
export interface EthStatus {
  version: number;
  networkId: bigint;
  genesis: Uint8Array;
  forkId: ForkId;
  /** eth/68: the total difficulty and head hash. */
  legacy?: { totalDifficulty: bigint; head: Uint8Array };
  /** eth/69: the served range. */
  range?: BlockRange;
}

const fork = (f: ForkId): Uint8Array[] => [f.hash, bigIntToUnpaddedBytes(f.next)];

/** RLP of a Status message in its version's layout. @throws EthProtocolError when the fields of that version are missing. */
export function encodeStatus(s: EthStatus): Uint8Array {
  const head = [bigIntToUnpaddedBytes(BigInt(s.version)), bigIntToUnpaddedBytes(s.networkId)];
  if (s.version >= ETH_69) {
    if (s.range === undefined) throw new EthProtocolError("Status", `eth/${s.version} needs the block range`);
    const r = s.range;
    return RLP.encode([...head, s.genesis, fork(s.forkId), bigIntToUnpaddedBytes(r.earliest), bigIntToUnpaddedBytes(r.latest), r.latestHash]);
  }
  if (s.legacy === undefined) throw new EthProtocolError("Status", `eth/${s.version} needs the total difficulty and head`);
  return RLP.encode([...head, bigIntToUnpaddedBytes(s.legacy.totalDifficulty), s.legacy.head, s.genesis, fork(s.forkId)]);
}

function hash32(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array && v.length === 32;
}

function forkIdOf(v: unknown): ForkId {
  if (!Array.isArray(v) || v.length < 2 || !(v[0] instanceof Uint8Array) || v[0].length !== 4) throw new EthProtocolError("Status", "fork id is not [4-byte hash, next]");
  const next = rlpUint(v[1]);
  if (next === undefined) throw new EthProtocolError("Status", "fork next is not an integer");
  return { hash: v[0], next };
}

/**
 * Decodes a Status in the layout of the negotiated `version` (eth/69 has 7 fields, eth/68 6; more
 * are ignored, as EIP-8 asks). @throws EthProtocolError for anything else.
 */
export function decodeStatus(payload: Uint8Array, version: number): EthStatus {
  let v: unknown;
  try {
    v = RLP.decode(payload);
  } catch {
    throw new EthProtocolError("Status", "not valid RLP");
  }
  const want = version >= ETH_69 ? 7 : 6;
  if (!Array.isArray(v) || v.length < want) throw new EthProtocolError("Status", `expected a list of ${want} items (eth/${version})`);
  const ver = rlpUint(v[0]);
  const networkId = rlpUint(v[1]);
  if (ver === undefined || networkId === undefined) throw new EthProtocolError("Status", "version or network id is not an integer");
  if (version >= ETH_69) {
    const [, , genesis, f, e, l, latestHash] = v as unknown[];
    const earliest = rlpUint(e);
    const latest = rlpUint(l);
    if (earliest === undefined || latest === undefined) throw new EthProtocolError("Status", "earliest or latest block is not a 64-bit integer");
    if (!hash32(genesis) || !hash32(latestHash)) throw new EthProtocolError("Status", "genesis or latest block hash is not a 32-byte hash");
    return { version: Number(ver), networkId, genesis, forkId: forkIdOf(f), range: { earliest, latest, latestHash } };
  }
  const [, , td, head, genesis, f] = v as unknown[];
  const totalDifficulty = td instanceof Uint8Array && td.length <= 32 ? BigInt("0x0" + Buffer.from(td).toString("hex")) : undefined;
  if (totalDifficulty === undefined) throw new EthProtocolError("Status", "total difficulty is not an integer");
  if (!hash32(head) || !hash32(genesis)) throw new EthProtocolError("Status", "head or genesis is not a 32-byte hash");
  return { version: Number(ver), networkId, genesis, forkId: forkIdOf(f), legacy: { totalDifficulty, head } };
}

/** What a peer's Status is checked against. */
export interface LocalChain {
  networkId: bigint;
  genesis: Uint8Array;
  forks: ForkFilter;
}

/** Checks a block range a peer announces (Status or BlockRangeUpdate), as Nethermind and ethrex do. @throws EthPeerFaultError "rangeInvalid" when it is no range. */
export function checkRange(r: BlockRange, what: string): void {
  if (r.earliest > r.latest) throw new EthPeerFaultError("rangeInvalid", `${what}: earliest block ${r.earliest} is above latest block ${r.latest}`);
  if (r.latestHash.every((b) => b === 0)) throw new EthPeerFaultError("rangeInvalid", `${what}: latest block hash is zero`);
}

/**
 * Blocks the served range must advance by before another BlockRangeUpdate is sent (EIP-7642:
 * "Clients should send an update at most once per epoch (32 blocks)").
 */
const BLOCK_RANGE_UPDATE_BLOCKS = 32n;

/**
 * Whether a BlockRangeUpdate is due to a peer last told `announced`: the latest block moved
 * {@link BLOCK_RANGE_UPDATE_BLOCKS} or more ahead. A range behind the announced one is never sent
 * (a head that went back in a reorg waits until it passes the announced latest block again), since
 * peers refuse a latest block going backwards.
 */
export function rangeUpdateDue(announced: BlockRange | undefined, now: BlockRange): boolean {
  return announced !== undefined && now.latest >= announced.latest + BLOCK_RANGE_UPDATE_BLOCKS;
}

/** Checks a peer's Status on the negotiated `version`. @throws EthStatusError naming the mismatch. */
export function checkStatus(local: LocalChain, head: ForkHead, remote: EthStatus, version: number): void {
  if (remote.version !== version) throw new EthStatusError("version", `eth version ${remote.version}: expected ${version}, the negotiated version`);
  if (remote.networkId !== local.networkId) throw new EthStatusError("network", `network id ${remote.networkId}: expected ${local.networkId}`);
  if (!Buffer.from(remote.genesis).equals(Buffer.from(local.genesis))) {
    throw new EthStatusError("genesis", `genesis 0x${Buffer.from(remote.genesis).toString("hex")}: expected 0x${Buffer.from(local.genesis).toString("hex")}`);
  }
  local.forks.validate(head, remote.forkId);
  if (remote.range !== undefined) checkRange(remote.range, "Status");
}
