/**
 * Malformed input never escapes the codecs' typed outcomes: seeded mutations (byte flips, cuts,
 * insertions; half of them in the first 2 KiB, where the headers and counts are) of the real OP
 * Mainnet batcher transaction, its channel and its decompressed span batch. Each outcome is a
 * result or a DerivationCodecError, never another exception.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createTxFromRLP } from "@ethereumjs/tx";
import { describe, expect, it } from "vitest";
import { DERIVATION_FIXTURES } from "../../helpers/derivation.js";
import { seededRandom } from "../../helpers/random.js";
import { joinBytes } from "../../../src/derivation/bytes.js";
import { decodeBatchStream, readChannel } from "../../../src/derivation/channel.js";
import { decompressChannel } from "../../../src/derivation/channelCompression.js";
import { DerivationCodecError } from "../../../src/derivation/codecErrors.js";
import { parseBatcherData } from "../../../src/derivation/frame.js";
import { deriveSpanBatch, expandSpanBatch } from "../../../src/derivation/spanBatch.js";

const OP = { chainId: 10n, blockTime: 2n, genesis: { l2Time: 1_686_068_903n } };
const ROUNDS = 120;

const calldata = createTxFromRLP(new Uint8Array(readFileSync(path.join(DERIVATION_FIXTURES, "op-mainnet-batcher-tx.bin"))), {
  common: createCustomCommon({}, Mainnet, { hardfork: Hardfork.Cancun }),
}).data;

/** A copy of `input` with a few random changes. */
function mutate(input: Uint8Array, rand: () => number): Uint8Array {
  const pick = (n: number) => Math.floor(rand() * n);
  const at = () => (rand() < 0.5 ? pick(Math.min(2048, input.length)) : pick(input.length));
  switch (pick(3)) {
    case 0: {
      const out = Uint8Array.from(input);
      for (let k = 1 + pick(4); k > 0; k--) out[at()] = pick(256);
      return out;
    }
    case 1:
      return input.subarray(0, at());
    default: {
      const p = at();
      return joinBytes([input.subarray(0, p), Uint8Array.from({ length: 1 + pick(8) }, () => pick(256)), input.subarray(p)]);
    }
  }
}

/** Runs `fn`, failing on any exception that is not a DerivationCodecError. */
async function typedOnly(fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DerivationCodecError);
  }
}

describe("mutated real batch data gives typed outcomes only", () => {
  it("batcher transaction data", () => {
    const rand = seededRandom(14);
    const seen = new Set<string>();
    for (let i = 0; i < ROUNDS * 4; i++) {
      const r = parseBatcherData(mutate(calldata, rand));
      seen.add(r.status === "dropped" ? r.error.code : r.status);
      if (r.status === "frames") expect(r.frames.length).toBeGreaterThan(0);
    }
    expect(seen.size).toBeGreaterThan(2);
  });

  it("compressed channel bytes", async () => {
    const r0 = parseBatcherData(calldata);
    if (r0.status !== "frames") throw new Error("expected frames");
    const channel = r0.frames[0]!.data;
    const rand = seededRandom(15);
    for (let i = 0; i < ROUNDS / 4; i++) {
      const r = await readChannel(mutate(channel, rand), { fjord: i % 2 === 0 });
      expect(r.batches.length).toBeLessThanOrEqual(1);
      if (r.error) expect(r.error).toBeInstanceOf(DerivationCodecError);
    }
  });

  it("the decompressed span batch, through decoding, transaction rebuild and expansion", async () => {
    const r0 = parseBatcherData(calldata);
    if (r0.status !== "frames") throw new Error("expected frames");
    const stream = (await decompressChannel(r0.frames[0]!.data, { fjord: false })).data;
    const rand = seededRandom(16);
    const codes = new Set<string>();
    let derived = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const r = decodeBatchStream(mutate(stream, rand));
      if (r.error) codes.add(r.error.code);
      for (const b of r.batches) {
        if (b.type !== "span") continue;
        derived++;
        await typedOnly(() => expandSpanBatch(deriveSpanBatch(b.batch, OP), () => new Uint8Array(32)));
      }
    }
    expect(codes.size).toBeGreaterThan(1);
    expect(derived).toBeGreaterThan(ROUNDS / 10);
  });
});
