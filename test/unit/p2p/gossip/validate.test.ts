/**
 * BlockGossipValidator: one crafted message per result and reason (specs rollup-node-p2p.md
 * "Block validation", op-node BuildBlocksValidator), on messages built with the codec and signed
 * by the devnet's dev account 0 as the sequencer.
 */
import { describe, expect, it } from "vitest";
import { devAccounts } from "../../../../src/chain/devnet.js";
import { payloadBlockHash } from "../../../../src/p2p/gossip/blockHash.js";
import type { GossipEnvelope, GossipPayload } from "../../../../src/p2p/gossip/payload.js";
import { encodeBlockMessage } from "../../../../src/p2p/gossip/message.js";
import { signBlockPayload } from "../../../../src/p2p/gossip/signing.js";
import { snappyCompress } from "../../../../src/p2p/gossip/snappy.js";
import { encodeSignedBytes } from "../../../../src/p2p/gossip/ssz.js";
import type { BlocksVersion } from "../../../../src/p2p/gossip/topics.js";
import { BlockGossipValidator, type GossipValidation } from "../../../../src/p2p/gossip/validate.js";

const CHAIN_ID = 8453n;
const T = 1_750_000_000n;
const keyOf = (i: number): Uint8Array => new Uint8Array(Buffer.from(devAccounts()[i]!.privateKey.slice(2), "hex"));
const addrOf = (i: number): Uint8Array => new Uint8Array(Buffer.from(devAccounts()[i]!.address.slice(2), "hex"));
/** Forks: Isthmus from genesis, Jovian at T + 1000 (so `T` blocks are pre-Jovian unless a test moves it). */
const ROLLUP = { forkTimes: { regolith: 0n, canyon: 0n, delta: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n, isthmus: 0n, jovian: T + 1000n } };

function baseEnvelope(version: BlocksVersion, over: Partial<GossipPayload> = {}): GossipEnvelope {
  const payload: GossipPayload = {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(0x42),
    stateRoot: new Uint8Array(32).fill(2),
    receiptsRoot: new Uint8Array(32).fill(3),
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32).fill(4),
    blockNumber: 100n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: T,
    extraData: new Uint8Array(0),
    baseFeePerGas: 1_000_000n,
    blockHash: new Uint8Array(32),
    transactions: [Uint8Array.of(0x7e, 0xc0), Uint8Array.of(0x02, 0xc1, 0x80)],
  };
  if (version >= 2) payload.withdrawals = [];
  if (version >= 3) {
    payload.blobGasUsed = 0n;
    payload.excessBlobGas = 0n;
  }
  if (version >= 4) payload.withdrawalsRoot = new Uint8Array(32).fill(6);
  Object.assign(payload, over);
  const env: GossipEnvelope = { payload };
  if (version >= 3) env.parentBeaconBlockRoot = new Uint8Array(32).fill(7);
  return env;
}

/** A signed message of `env` whose blockHash is set to its fields' hash (unless `keepHash`). */
function message(version: BlocksVersion, env: GossipEnvelope, opts: { key?: Uint8Array; keepHash?: boolean; mutateSig?: (s: Uint8Array) => void } = {}): Uint8Array {
  if (opts.keepHash !== true) env.payload.blockHash = payloadBlockHash(env, version);
  const signed = encodeSignedBytes(version, env);
  const sig = signBlockPayload(opts.key ?? keyOf(0), CHAIN_ID, signed);
  opts.mutateSig?.(sig);
  return encodeBlockMessage(version, sig, signed);
}

function validator(signer: () => Uint8Array | undefined = () => addrOf(0), rollup = ROLLUP): BlockGossipValidator {
  return new BlockGossipValidator({ chainId: CHAIN_ID, rollup, signer });
}

function expectResult(r: GossipValidation, result: string, reason: string): void {
  expect({ result: r.result, reason: r.reason }, r.detail).toEqual({ result, reason });
}

describe("BlockGossipValidator", () => {
  it("accepts a valid block of every version and returns it", () => {
    for (const version of [1, 2, 3, 4] as const) {
      const env = baseEnvelope(version);
      const r = validator().validate(version, message(version, env), T);
      expectResult(r, "accept", "ok");
      expect(r.block!.version).toBe(version);
      expect(r.block!.number).toBe(100n);
      expect(r.block!.timestamp).toBe(T);
      expect(r.block!.blockHash).toEqual(env.payload.blockHash);
      expect(r.block!.parentHash).toEqual(env.payload.parentHash);
      expect(r.block!.payloadBytes).toEqual(encodeSignedBytes(version, env));
      expect(r.block!.envelope.payload.transactions).toEqual(env.payload.transactions);
    }
  });

  it("rejects bad snappy, undersized and oversized messages before decoding", () => {
    const v = validator();
    // Header announces 100 bytes; a literal claims 50 more than the input holds.
    expectResult(v.validate(4, Uint8Array.of(100, 49 << 2, 1, 2, 3), T), "reject", "bad_snappy");
    // A header that never ends.
    expectResult(v.validate(4, new Uint8Array(12).fill(0xff), T), "reject", "bad_snappy");
    // A valid message cut short.
    const good = message(4, baseEnvelope(4));
    expectResult(v.validate(4, good.subarray(0, good.length - 3), T), "reject", "bad_snappy");
    // 65 bytes decompressed: a signature and no payload.
    expectResult(v.validate(4, snappyCompress(new Uint8Array(65)), T), "reject", "too_small");
    // A header claiming 11 MiB, with 3 bytes behind it (nothing is allocated for the claim).
    const claim = 11 * 1024 * 1024;
    const uvarint: number[] = [];
    for (let x = claim; ; x = Math.floor(x / 128)) {
      if (x < 128) {
        uvarint.push(x);
        break;
      }
      uvarint.push(0x80 | (x & 0x7f));
    }
    expectResult(v.validate(4, Uint8Array.from([...uvarint, 0, 0, 0]), T), "reject", "too_large");
    // More than 10 MiB on the wire.
    expectResult(v.validate(4, new Uint8Array(10 * 1024 * 1024 + 1), T), "reject", "too_large");
  });

  it("rejects malformed SSZ: truncated payloads, long extraData, another version's layout", () => {
    const v = validator();
    const env = baseEnvelope(4);
    env.payload.blockHash = payloadBlockHash(env, 4);
    const signed = encodeSignedBytes(4, env);
    const sig = signBlockPayload(keyOf(0), CHAIN_ID, signed);
    for (const cut of [1, 8, signed.length - 100, signed.length - 31]) {
      expectResult(v.validate(4, encodeBlockMessage(4, sig, signed.subarray(0, signed.length - cut)), T), "reject", "malformed");
    }
    // extraData of 33 bytes: the transactions offset points 33 bytes past the extraData offset.
    const long = new Uint8Array([...signed.subarray(0, 32 + 560), ...new Uint8Array(33), ...signed.subarray(32 + 560)]);
    new DataView(long.buffer).setUint32(32 + 504, 560 + 33, true);
    new DataView(long.buffer).setUint32(32 + 508, new DataView(signed.buffer, signed.byteOffset).getUint32(32 + 508, true) + 33, true);
    expectResult(v.validate(4, encodeBlockMessage(4, sig, long), T), "reject", "malformed");
    // A v4 message on the v3 topic: the extraData offset is 560, v3 expects 528.
    expectResult(v.validate(3, message(4, baseEnvelope(4)), T), "reject", "malformed");
    // A v1 message on the v2 topic.
    expectResult(v.validate(2, message(1, baseEnvelope(1)), T), "reject", "malformed");
  });

  it("rejects blocks more than 60 s old or more than 5 s ahead (inclusive bounds accepted)", () => {
    const data = message(4, baseEnvelope(4));
    expectResult(validator().validate(4, data, T + 61n), "reject", "old");
    expectResult(validator().validate(4, data, T + 60n), "accept", "ok");
    expectResult(validator().validate(4, data, T - 6n), "reject", "future");
    expectResult(validator().validate(4, data, Number(T - 5n)), "accept", "ok");
  });

  it("rejects fields the topic's version forbids", () => {
    const v = validator();
    // v2 with a withdrawal.
    const w = baseEnvelope(2, { withdrawals: [{ index: 1n, validatorIndex: 2n, address: new Uint8Array(20).fill(9), amount: 3n }] });
    expectResult(v.validate(2, message(2, w), T), "reject", "bad_fields");
    // v3/v4 with non-zero excessBlobGas.
    expectResult(v.validate(3, message(3, baseEnvelope(3, { excessBlobGas: 1n })), T), "reject", "bad_fields");
    expectResult(v.validate(4, message(4, baseEnvelope(4, { excessBlobGas: 1n })), T), "reject", "bad_fields");
    // Non-zero blobGasUsed before Jovian…
    expectResult(v.validate(4, message(4, baseEnvelope(4, { blobGasUsed: 1234n })), T), "reject", "bad_fields");
    expectResult(v.validate(3, message(3, baseEnvelope(3, { blobGasUsed: 1n })), T), "reject", "bad_fields");
    // …is the DA footprint from Jovian on.
    const jovian = { forkTimes: { ...ROLLUP.forkTimes, jovian: T } };
    expectResult(validator(() => addrOf(0), jovian).validate(4, message(4, baseEnvelope(4, { blobGasUsed: 1234n })), T), "accept", "ok");
  });

  it("rejects a payload whose fields do not hash to its blockHash", () => {
    const env = baseEnvelope(4);
    env.payload.blockHash = payloadBlockHash(env, 4);
    env.payload.gasUsed = 21_000n; // altered after hashing
    expectResult(validator().validate(4, message(4, env, { keepHash: true }), T), "reject", "bad_hash");
    // The parent beacon block root is part of the v3+ hash.
    const env3 = baseEnvelope(3);
    env3.payload.blockHash = payloadBlockHash(env3, 3);
    env3.parentBeaconBlockRoot = new Uint8Array(32).fill(8);
    expectResult(validator().validate(3, message(3, env3, { keepHash: true }), T), "reject", "bad_hash");
  });

  it("rejects signatures that recover no key or another key, and follows signer changes", () => {
    let signer = addrOf(0);
    const v = validator(() => signer);
    expectResult(v.validate(4, message(4, baseEnvelope(4), { key: keyOf(1) }), T), "reject", "wrong_signer");
    expectResult(v.validate(4, message(4, baseEnvelope(4), { mutateSig: (s) => (s[64] = 2) }), T), "reject", "bad_signature");
    expectResult(v.validate(4, message(4, baseEnvelope(4), { mutateSig: (s) => s.fill(0, 0, 32) }), T), "reject", "bad_signature");
    expectResult(v.validate(4, message(4, baseEnvelope(4), { mutateSig: (s) => s.fill(0xff, 32, 64) }), T), "reject", "bad_signature");
    // A flipped parity recovers some other key.
    expectResult(v.validate(4, message(4, baseEnvelope(4), { mutateSig: (s) => (s[64] ^= 1) }), T), "reject", "wrong_signer");
    // The signer is read per message.
    signer = addrOf(1);
    expectResult(v.validate(4, message(4, baseEnvelope(4), { key: keyOf(1) }), T), "accept", "ok");
    expectResult(v.validate(4, message(4, baseEnvelope(4, { blockNumber: 101n }), { key: keyOf(0) }), T), "reject", "wrong_signer");
  });

  it("ignores blocks while no signer is configured", () => {
    expectResult(validator(() => undefined).validate(4, message(4, baseEnvelope(4)), T), "ignore", "no_signer");
    expectResult(validator(() => new Uint8Array(20)).validate(4, message(4, baseEnvelope(4)), T), "ignore", "no_signer");
  });

  it("ignores a block already accepted, and rejects a 7th different block at one height", () => {
    const v = validator();
    const first = message(4, baseEnvelope(4));
    expectResult(v.validate(4, first, T), "accept", "ok");
    expectResult(v.validate(4, first, T), "ignore", "duplicate");
    // Re-signed by a wrong key, the same block is still a duplicate (seen blocks are checked before the signature, as base/base does).
    expectResult(v.validate(4, message(4, baseEnvelope(4), { key: keyOf(1) }), T), "ignore", "duplicate");
    // Five more different blocks at height 100 (6 in all) are accepted…
    for (let i = 1; i <= 5; i++) expectResult(v.validate(4, message(4, baseEnvelope(4, { gasUsed: BigInt(i) })), T), "accept", "ok");
    // …then more than 5 are recorded: a 7th, and even a copy of a recorded one, are rejected (op-node checks the count first).
    expectResult(v.validate(4, message(4, baseEnvelope(4, { gasUsed: 99n })), T), "reject", "too_many_at_height");
    expectResult(v.validate(4, first, T), "reject", "too_many_at_height");
    // Other heights are unaffected; rejected blocks are not recorded.
    expectResult(v.validate(4, message(4, baseEnvelope(4, { blockNumber: 101n })), T), "accept", "ok");
  });
});
