/**
 * Validation of gossiped blocks (specs rollup-node-p2p.md "Block validation"; op-node p2p/gossip.go
 * `BuildBlocksValidator`; base/base crates/consensus/gossip `block_valid`), as a pure synchronous
 * function of the message, the clock reading passed in, and the blocks seen so far.
 *
 * Order, cheapest first: decode (size limits, snappy, SSZ) → timestamp window → the version's
 * field rules → block hash → blocks seen at the height → signature. All failures REJECT except a
 * block already seen and a missing signer (IGNORE), as in op-node. The timestamp window REJECTs
 * (spec and op-node; not IGNORE). From Jovian, `blobGasUsed` carries the DA footprint, so a
 * non-zero value is allowed on v3+ topics once Jovian is active (base/base `validate_v3`); before
 * it must be 0. `excessBlobGas` stays 0.
 */
import { GOSSIP_BLOCK_MAX_AGE_SECONDS, GOSSIP_BLOCK_MAX_FUTURE_SECONDS, GOSSIP_MAX_BLOCKS_PER_HEIGHT, GOSSIP_SEEN_HEIGHTS } from "../constants.js";
import { OpFork, opForkAt, type OpForkSchedule } from "../../chain/op/forks.js";
import { bytesEqual, toHex } from "../../util/bytes.js";
import { LruMap } from "../../util/lru.js";
import { payloadBlockHash } from "./blockHash.js";
import type { GossipEnvelope } from "./payload.js";
import { GossipCodecError, GossipCodecErrorCode } from "./errors.js";
import { decodeBlockMessage } from "./message.js";
import { recoverBlockSigner } from "./signing.js";
import type { BlocksVersion } from "./topics.js";

/** What gossipsub does with a message: relay and deliver it, drop it, or drop it and penalize the sender. */
type GossipResult = "accept" | "reject" | "ignore";

/**
 * Why a message got its result: a stable label (metrics). `ok` for accepted blocks.
 * - `too_large` / `too_small` / `bad_snappy` / `malformed`: the message does not decode (REJECT);
 * - `old` / `future`: timestamp more than 60 s behind or 5 s ahead of the clock (REJECT);
 * - `bad_fields`: a field the topic's version forbids or requires (REJECT);
 * - `bad_hash`: the payload's fields do not hash to its `blockHash` (REJECT);
 * - `too_many_at_height`: more than 5 different blocks already seen at the height (REJECT);
 * - `duplicate`: this block was already accepted (IGNORE);
 * - `no_signer`: no sequencer address configured (IGNORE, as op-node);
 * - `bad_signature`: no key recovers from the signature (REJECT);
 * - `wrong_signer`: signed by another key than the sequencer's (REJECT).
 */
type GossipRejectReason =
  | "ok"
  | "too_large"
  | "too_small"
  | "bad_snappy"
  | "malformed"
  | "old"
  | "future"
  | "bad_fields"
  | "bad_hash"
  | "too_many_at_height"
  | "duplicate"
  | "no_signer"
  | "bad_signature"
  | "wrong_signer";

/** An accepted block: what the main thread needs to import it (bytes only, so it can cross threads as `payloadBytes`). */
interface ValidatedGossipBlock {
  version: BlocksVersion;
  number: bigint;
  timestamp: bigint;
  /** 32 bytes. */
  blockHash: Uint8Array;
  /** 32 bytes. */
  parentHash: Uint8Array;
  /** The signed bytes (SSZ payload, or parent beacon block root ‖ payload from v3): decode with `decodeSignedBytes`. */
  payloadBytes: Uint8Array;
  envelope: GossipEnvelope;
}

/** The outcome of {@link BlockGossipValidator.validate}. */
export interface GossipValidation {
  result: GossipResult;
  reason: GossipRejectReason;
  /** Present when accepted. */
  block?: ValidatedGossipBlock;
  /** What exactly was wrong (for debug logs; may quote untrusted values). */
  detail?: string;
}

/** What a {@link BlockGossipValidator} needs to know of its chain. */
interface BlockGossipValidatorOptions {
  /** L2 chain id (part of the signed message). */
  chainId: bigint;
  /** OP fork times (a RollupConfig fits): Jovian decides whether `blobGasUsed` may be non-zero. */
  rollup: OpForkSchedule;
  /**
   * The current unsafe-block signer (20 bytes), read for every message so it can change at run
   * time (SystemConfig updates); undefined or the zero address means none configured.
   */
  signer: () => Uint8Array | undefined;
}

const ZERO_ADDRESS = new Uint8Array(20);

const CODEC_REASONS: Readonly<Record<string, GossipRejectReason>> = {
  [GossipCodecErrorCode.TOO_LARGE]: "too_large",
  [GossipCodecErrorCode.TOO_SMALL]: "too_small",
  [GossipCodecErrorCode.BAD_SNAPPY]: "bad_snappy",
  [GossipCodecErrorCode.MALFORMED_SSZ]: "malformed",
};

function reject(reason: GossipRejectReason, detail: string): GossipValidation {
  return { result: "reject", reason, detail };
}

/** The first field rule of `version` that `env` breaks (spec "Block validation"), or undefined. */
function fieldViolation(version: BlocksVersion, env: GossipEnvelope, jovian: boolean): string | undefined {
  const p = env.payload;
  if (version === 1 && p.withdrawals !== undefined) return "v1 block has a withdrawals list";
  if (version >= 2 && p.withdrawals === undefined) return `v${version} block has no withdrawals list`;
  if (version >= 2 && p.withdrawals!.length !== 0) return `v${version} block has ${p.withdrawals!.length} withdrawals, expected none`;
  if (version <= 2 && (p.blobGasUsed !== undefined || p.excessBlobGas !== undefined)) return `v${version} block has blob gas fields`;
  if (version <= 2 && env.parentBeaconBlockRoot !== undefined) return `v${version} block has a parent beacon block root`;
  if (version >= 3) {
    if (p.blobGasUsed === undefined || (!jovian && p.blobGasUsed !== 0n)) return `v${version} block has blobGasUsed ${p.blobGasUsed}, expected 0 before Jovian`;
    if (p.excessBlobGas !== 0n) return `v${version} block has excessBlobGas ${p.excessBlobGas}, expected 0`;
    if (env.parentBeaconBlockRoot === undefined) return `v${version} block has no parent beacon block root`;
  }
  if (version <= 3 && p.withdrawalsRoot !== undefined) return `v${version} block has a withdrawalsRoot`;
  if (version >= 4 && p.withdrawalsRoot === undefined) return `v${version} block has no withdrawalsRoot`;
  return undefined;
}

/**
 * op-node's block gossip validator for one chain, all four topics. Keeps the hashes of accepted
 * blocks for the last 1,000 heights. Pure and synchronous: no I/O, the clock is an argument.
 */
export class BlockGossipValidator {
  /** Accepted block hashes (hex) by height, least recently used heights dropped first. */
  private readonly seen = new LruMap<bigint, string[]>(GOSSIP_SEEN_HEIGHTS);

  constructor(private readonly opts: BlockGossipValidatorOptions) {}

  /**
   * Validates a message received on the `version` topic at `nowSeconds` (Unix seconds), and
   * remembers the block when it is accepted.
   */
  validate(version: BlocksVersion, data: Uint8Array, nowSeconds: bigint | number): GossipValidation {
    const now = BigInt(nowSeconds);
    let msg;
    try {
      msg = decodeBlockMessage(version, data);
    } catch (e) {
      if (e instanceof GossipCodecError) return reject(CODEC_REASONS[e.code] ?? "malformed", e.message);
      throw e;
    }
    const env = msg.envelope;
    const p = env.payload;
    if (p.timestamp < now - GOSSIP_BLOCK_MAX_AGE_SECONDS) return reject("old", `timestamp ${p.timestamp} is more than ${GOSSIP_BLOCK_MAX_AGE_SECONDS} s before ${now}`);
    if (p.timestamp > now + GOSSIP_BLOCK_MAX_FUTURE_SECONDS) return reject("future", `timestamp ${p.timestamp} is more than ${GOSSIP_BLOCK_MAX_FUTURE_SECONDS} s after ${now}`);
    const violation = fieldViolation(version, env, opForkAt(this.opts.rollup, p.timestamp) >= OpFork.jovian);
    if (violation !== undefined) return reject("bad_fields", violation);
    const actual = payloadBlockHash(env, version);
    if (!bytesEqual(actual, p.blockHash)) return reject("bad_hash", `payload says block hash 0x${toHex(p.blockHash)}, its fields hash to 0x${toHex(actual)}`);
    const hash = toHex(p.blockHash);
    const atHeight = this.seen.get(p.blockNumber) ?? [];
    if (atHeight.length > GOSSIP_MAX_BLOCKS_PER_HEIGHT) return reject("too_many_at_height", `${atHeight.length} blocks already seen at height ${p.blockNumber}`);
    if (atHeight.includes(hash)) return { result: "ignore", reason: "duplicate", detail: `block 0x${hash} already seen` };
    const expected = this.opts.signer();
    if (expected === undefined || bytesEqual(expected, ZERO_ADDRESS)) return { result: "ignore", reason: "no_signer", detail: "no unsafe-block signer configured" };
    const signer = recoverBlockSigner(this.opts.chainId, msg.payloadBytes, msg.signature);
    if (signer === undefined) return reject("bad_signature", "no key recovers from the block signature");
    if (!bytesEqual(signer, expected)) return reject("wrong_signer", `signed by 0x${toHex(signer)}, expected 0x${toHex(expected)}`);
    atHeight.push(hash);
    this.seen.set(p.blockNumber, atHeight);
    return {
      result: "accept",
      reason: "ok",
      block: { version, number: p.blockNumber, timestamp: p.timestamp, blockHash: p.blockHash, parentHash: p.parentHash, payloadBytes: msg.payloadBytes, envelope: env },
    };
  }
}
