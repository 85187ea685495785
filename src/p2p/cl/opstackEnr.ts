/**
 * The `opstack` entry of an OP Stack node's ENR (specs rollup-node-p2p.md "Consensus Layer
 * Structure"; op-node/p2p/discovery.go `OpStackENRData`): the value is one RLP byte string holding
 * the chain id and the fork version as unsigned LEB128 varints, one after the other. op-node
 * writes version 0 and its discovery keeps only records whose chain id matches and whose version is 0.
 */

/** The ENR key of the entry. */
export const OPSTACK_ENR_KEY = "opstack";
/** The version op-node writes and accepts. */
const OPSTACK_ENR_VERSION = 0n;

/** What an `opstack` entry says. */
interface OpStackEnrData {
  chainId: bigint;
  version: bigint;
}

function putUvarint(out: number[], v: bigint): void {
  let x = v;
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
}

/** Reads one uvarint at `pos`; undefined when it runs past the end or past 64 bits (Go's binary.ReadUvarint refuses both). */
function readUvarint(b: Uint8Array, pos: number): { value: bigint; next: number } | undefined {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    const byte = b[pos + i];
    if (byte === undefined) return undefined;
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) {
      if (i === 9 && byte > 1) return undefined;
      return { value, next: pos + i + 1 };
    }
  }
  return undefined;
}

/** The raw entry value (the bytes the ENR's RLP string holds) for `chainId` at op-node's version. */
export function encodeOpStackEntry(chainId: bigint, version: bigint = OPSTACK_ENR_VERSION): Uint8Array {
  const out: number[] = [];
  putUvarint(out, chainId);
  putUvarint(out, version);
  return Uint8Array.from(out);
}

/** Decodes an entry value; undefined when it does not hold two varints (op-node ignores trailing bytes, so does this). */
export function decodeOpStackEntry(value: Uint8Array): OpStackEnrData | undefined {
  const chain = readUvarint(value, 0);
  if (chain === undefined) return undefined;
  const version = readUvarint(value, chain.next);
  if (version === undefined) return undefined;
  return { chainId: chain.value, version: version.value };
}

/** Why a record is refused by {@link opStackFilter}, or undefined when it is accepted. */
type OpStackRefusal = "noEntry" | "badEntry" | "wrongChain" | "wrongVersion";

/** op-node's `FilterEnodes`: the record must carry an `opstack` entry for `chainId` at version 0. */
export function opStackFilter(entry: Uint8Array | undefined, chainId: bigint): OpStackRefusal | undefined {
  if (entry === undefined) return "noEntry";
  const d = decodeOpStackEntry(entry);
  if (d === undefined) return "badEntry";
  if (d.chainId !== chainId) return "wrongChain";
  if (d.version !== OPSTACK_ENR_VERSION) return "wrongVersion";
  return undefined;
}
