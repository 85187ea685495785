/**
 * The eth/68 Status message: `[version, networkid, td, blockhash, genesis, [forkhash, forknext]]`
 * (devp2p caps/eth.md). basalt sends network id = chain id, total difficulty 0 (op-reth sends
 * the chain spec's final Paris total difficulty, 0 on OP chains, where Paris is at genesis), its
 * head hash, the genesis hash and the EIP-2124 fork id at its head; it accepts a peer on the same
 * eth version, network and genesis whose fork id passes the EIP-2124 rules.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { EthProtocolError, EthStatusError } from "./errors.js";
import type { ForkFilter, ForkHead, ForkId } from "./forkId.js";
import { rlpUint } from "./rlpItems.js";

/** The eth protocol version basalt speaks (the highest @ethereumjs/devp2p 10 knows; it has no eth/69). */
export const ETH_VERSION = 68;

/** A Status message. */
export interface EthStatus {
  version: number;
  networkId: bigint;
  totalDifficulty: bigint;
  head: Uint8Array;
  genesis: Uint8Array;
  forkId: ForkId;
}

/** RLP of a Status message. */
export function encodeStatus(s: EthStatus): Uint8Array {
  return RLP.encode([
    bigIntToUnpaddedBytes(BigInt(s.version)),
    bigIntToUnpaddedBytes(s.networkId),
    bigIntToUnpaddedBytes(s.totalDifficulty),
    s.head,
    s.genesis,
    [s.forkId.hash, bigIntToUnpaddedBytes(s.forkId.next)],
  ]);
}

/** Decodes a Status message. @throws EthProtocolError for anything but a well-formed eth/68 Status. */
export function decodeStatus(payload: Uint8Array): EthStatus {
  let v: unknown;
  try {
    v = RLP.decode(payload);
  } catch {
    throw new EthProtocolError("Status", "not valid RLP");
  }
  if (!Array.isArray(v) || v.length < 6) throw new EthProtocolError("Status", "expected a list of 6 items");
  const [ver, net, td, head, genesis, fork] = v as unknown[];
  const version = rlpUint(ver);
  const networkId = rlpUint(net);
  const totalDifficulty = td instanceof Uint8Array && td.length <= 32 ? BigInt("0x0" + Buffer.from(td).toString("hex")) : undefined;
  if (version === undefined || networkId === undefined || totalDifficulty === undefined) throw new EthProtocolError("Status", "version, network id or total difficulty is not an integer");
  if (!(head instanceof Uint8Array) || head.length !== 32 || !(genesis instanceof Uint8Array) || genesis.length !== 32) throw new EthProtocolError("Status", "head or genesis is not a 32-byte hash");
  if (!Array.isArray(fork) || fork.length < 2 || !(fork[0] instanceof Uint8Array) || fork[0].length !== 4) throw new EthProtocolError("Status", "fork id is not [4-byte hash, next]");
  const next = rlpUint(fork[1]);
  if (next === undefined) throw new EthProtocolError("Status", "fork next is not an integer");
  return { version: Number(version), networkId, totalDifficulty, head, genesis, forkId: { hash: fork[0], next } };
}

/** What a peer's Status is checked against. */
export interface LocalChain {
  networkId: bigint;
  genesis: Uint8Array;
  forks: ForkFilter;
}

/** Checks a peer's Status. @throws EthStatusError naming the mismatch. */
export function checkStatus(local: LocalChain, head: ForkHead, remote: EthStatus): void {
  if (remote.version !== ETH_VERSION) throw new EthStatusError("version", `eth version ${remote.version}: expected ${ETH_VERSION}`);
  if (remote.networkId !== local.networkId) throw new EthStatusError("network", `network id ${remote.networkId}: expected ${local.networkId}`);
  if (!Buffer.from(remote.genesis).equals(Buffer.from(local.genesis))) {
    throw new EthStatusError("genesis", `genesis 0x${Buffer.from(remote.genesis).toString("hex")}: expected 0x${Buffer.from(local.genesis).toString("hex")}`);
  }
  local.forks.validate(head, remote.forkId);
}
