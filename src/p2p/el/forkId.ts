/**
 * EIP-2124 fork identifiers: `FORK_HASH` = CRC32 of the genesis hash followed by the 8-byte
 * big-endian activation of every fork passed so far (block forks, then EIP-6122 time forks),
 * `FORK_NEXT` = the next scheduled activation (0 if none), and the rules by which a peer's
 * fork id is accepted or refused. Forks at block 0 and time forks at or before the genesis
 * time are not forks for this purpose (they are the genesis rules).
 */
import { EthStatusError } from "./errors.js";

/** A fork identifier as sent in the eth Status message. */
export interface ForkId {
  /** CRC32 checksum, 4 bytes. */
  hash: Uint8Array;
  /** Next activation (block number or timestamp), 0 when none is scheduled. */
  next: bigint;
}

/** Where the local chain is: the head block's number and timestamp. */
export interface ForkHead {
  number: bigint;
  timestamp: bigint;
}

/** One fork activation: by block number or by timestamp. */
interface Activation {
  by: "block" | "time";
  at: bigint;
}

/**
 * Activations above this value are timestamps, below it block numbers (geth `timestampThreshold`:
 * Ethereum mainnet's genesis time, 1438269988); used to read a peer's `FORK_NEXT`.
 */
const TIMESTAMP_THRESHOLD = 1_438_269_988n;

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32 (IEEE) of `data`, continuing from `crc` (0 to start). */
function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (const b of data) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function u32Bytes(v: number): Uint8Array {
  return Uint8Array.of(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
}

function u64Bytes(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v);
  return out;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The fork schedule of a chain as EIP-2124 sees it, with every checksum precomputed. Build it
 * with {@link ForkFilter.create}; {@link forkId} and {@link validate} take the current head.
 */
export class ForkFilter {
  /** `sums[i]`: the fork hash once the first `i` activations have passed. */
  private readonly sums: Uint8Array[];

  private constructor(private readonly forks: readonly Activation[], genesisHash: Uint8Array) {
    const sums: Uint8Array[] = [];
    let crc = crc32(genesisHash);
    sums.push(u32Bytes(crc));
    for (const f of forks) {
      crc = crc32(u64Bytes(f.at), crc);
      sums.push(u32Bytes(crc));
    }
    this.sums = sums;
  }

  /**
   * The filter of a chain: its genesis hash and time, and every fork's activation block number or
   * timestamp (duplicates are one fork; block 0 and times at or before genesis are dropped).
   */
  static create(genesisHash: Uint8Array, genesisTime: bigint, blockForks: readonly bigint[], timeForks: readonly bigint[]): ForkFilter {
    const uniq = (xs: readonly bigint[]): bigint[] => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const blocks = uniq(blockForks.filter((b) => b > 0n)).map((at): Activation => ({ by: "block", at }));
    const times = uniq(timeForks.filter((t) => t > genesisTime)).map((at): Activation => ({ by: "time", at }));
    return new ForkFilter([...blocks, ...times], genesisHash);
  }

  /** Activations the filter knows, in order (for logs and admin_nodeInfo). */
  activations(): readonly { by: "block" | "time"; at: bigint }[] {
    return this.forks;
  }

  /** Index of the first fork not yet active at `head` (= the number of passed forks). */
  private passed(head: ForkHead): number {
    let i = 0;
    for (const f of this.forks) {
      const reached = f.by === "block" ? head.number >= f.at : head.timestamp >= f.at;
      if (!reached) break;
      i++;
    }
    return i;
  }

  /** The fork id to announce with the head at `head`. */
  forkId(head: ForkHead): ForkId {
    const i = this.passed(head);
    return { hash: this.sums[i]!, next: this.forks[i]?.at ?? 0n };
  }

  /**
   * Checks a peer's fork id against the local chain at `head` (EIP-2124 "Validation rules"):
   * 1. same hash: accepted unless the peer announces a next fork the local head has passed;
   * 2. the hash of a fork the local chain passed: accepted only if the peer's next fork is the
   *    local chain's next one after it (the peer is syncing), else the peer is stale;
   * 3. the hash of a local future fork: accepted (the local node is syncing);
   * 4. anything else: refused.
   * @throws EthStatusError naming the rule that refused.
   */
  validate(head: ForkHead, remote: ForkId): void {
    const i = this.passed(head);
    const show = (f: ForkId): string => `${Buffer.from(f.hash).toString("hex")}/${f.next}`;
    if (equal(this.sums[i]!, remote.hash)) {
      if (remote.next > 0n) {
        const passed = remote.next >= TIMESTAMP_THRESHOLD ? head.timestamp >= remote.next : head.number >= remote.next;
        if (passed) throw new EthStatusError("forkIdLocalIncompatible", `fork id ${show(remote)}: the peer's next fork at ${remote.next} is already active here; expected no fork there (local ${show(this.forkId(head))})`);
      }
      return;
    }
    for (let j = 0; j < i; j++) {
      if (!equal(this.sums[j]!, remote.hash)) continue;
      if (this.forks[j]!.at !== remote.next) {
        throw new EthStatusError("forkIdRemoteStale", `fork id ${show(remote)}: the peer's next fork should be ${this.forks[j]!.at} (the peer needs a software update)`);
      }
      return;
    }
    for (let j = i + 1; j < this.sums.length; j++) {
      if (equal(this.sums[j]!, remote.hash)) return;
    }
    throw new EthStatusError("forkIdIncompatible", `fork id ${show(remote)}: not a fork hash of this chain (local ${show(this.forkId(head))})`);
  }
}
