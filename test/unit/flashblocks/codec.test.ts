import { describe, it, expect } from "vitest";
import { brotliCompressSync } from "node:zlib";
import { decodeFlashblockFrame, encodeFlashblock } from "../../../src/flashblocks/codec.js";
import { MAX_DECOMPRESSED_FLASHBLOCK_BYTES } from "../../../src/flashblocks/constants.js";
import { FlashblockDecodeError } from "../../../src/flashblocks/errors.js";
import { to0x } from "../../../src/util/bytes.js";

const ZERO_BLOOM = "0x" + "00".repeat(256);

// base/base crates/alloy/flashblocks/src/block.rs test constant V0_5_0_PAYLOAD_JSON (flashblocks.md §1.6), verbatim.
const V0_5_0_PAYLOAD_JSON = `{
    "payload_id": "0x0000000000000000",
    "index": 0,
    "base": {
        "parent_beacon_block_root": "0x0101010101010101010101010101010101010101010101010101010101010101",
        "parent_hash": "0x0202020202020202020202020202020202020202020202020202020202020202",
        "fee_recipient": "0x0000000000000000000000000000000000000000",
        "prev_randao": "0x0303030303030303030303030303030303030303030303030303030303030303",
        "block_number": "0x9",
        "gas_limit": "0xf4240",
        "timestamp": "0x6553f100",
        "extra_data": "0xaabb",
        "base_fee_per_gas": "0xa"
    },
    "diff": {
        "state_root": "0x0404040404040404040404040404040404040404040404040404040404040404",
        "receipts_root": "0x0505050505050505050505050505050505050505050505050505050505050505",
        "logs_bloom": "${ZERO_BLOOM}",
        "gas_used": "0x7a120",
        "block_hash": "0x0606060606060606060606060606060606060606060606060606060606060606",
        "transactions": ["0x0102"],
        "withdrawals": [],
        "withdrawals_root": "0x0707070707070707070707070707070707070707070707070707070707070707",
        "blob_gas_used": "0x2c"
    },
    "metadata": {
        "receipts": {
            "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": {
                "type": "0x2",
                "status": true,
                "cumulativeGasUsed": "0x5208",
                "logs": []
            }
        },
        "new_account_balances": {
            "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb": "0xde0b6b3a7640000"
        },
        "block_number": 1234,
        "access_list": null
    }
}`;

// docs.base.org "Flashblocks WebSocket Reference" index-0 example (§1.6), reconstructed with the keys the doc omits
// (zero/placeholder values) and a complete deposit transaction in place of the doc's truncated one.
function docsIndex0(): Record<string, unknown> {
  return {
    payload_id: "0x03997352d799c31a",
    index: 0,
    base: {
      parent_beacon_block_root: "0x" + "00".repeat(32),
      parent_hash: "0x9edc29b8b0a1e31d28616e40c16132ad0d58faa8bb952595b557526bdb9a960a",
      fee_recipient: "0x4200000000000000000000000000000000000011",
      prev_randao: "0x" + "00".repeat(32),
      block_number: "0x158a0e9",
      gas_limit: "0x3938700",
      timestamp: "0x67bf8332",
      extra_data: "0x",
      base_fee_per_gas: "0xfa",
    },
    diff: {
      state_root: "0x208fd63edc0681161105f27d03daf9f8c726d8c94e584a3c0696c98291c24333",
      receipts_root: "0x" + "00".repeat(32),
      logs_bloom: ZERO_BLOOM,
      block_hash: "0x5c330e55a190f82ea486b61e5b12e27dfb4fb3cecfc5746886ef38ca1281bce8",
      gas_used: "0xab3f",
      transactions: ["0x7ef8f8a0b4afc0b7ce10e150801bbaf08ac33fecb0f38311793abccb022120d321c6d276"],
      withdrawals: [],
      withdrawals_root: "0x" + "00".repeat(32),
    },
    metadata: {
      block_number: 22585577,
      new_account_balances: { "0x000f3df6d732807ef1319fb7b8bb8522d0beac02": "0x0" },
      receipts: {
        "0x07d7f06b06fea714c1d1d446efa2790c6970aa74ee006186a32b5b7dd8ca2d82": {
          Deposit: { status: "0x1", cumulativeGasUsed: "0xab3f", logs: [], depositNonce: "0x158a0ea" },
        },
      },
    },
  };
}

/** A valid index>0 frame of block 22585577 with the given metadata. */
function indexN(index: number, metadata: Record<string, unknown>): Record<string, unknown> {
  const f = docsIndex0();
  delete f["base"];
  f["index"] = index;
  f["metadata"] = metadata;
  return f;
}

function expectCode(fn: () => unknown, code: string, field?: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FlashblockDecodeError);
    expect((e as FlashblockDecodeError).code).toBe(code);
    if (field !== undefined) {
      expect((e as FlashblockDecodeError).meta.field).toBe(field);
      expect((e as FlashblockDecodeError).message).toContain(field);
    }
    return;
  }
  throw new Error(`expected ${code}`);
}

function withPatch(patch: (f: Record<string, any>) => void): string {
  const f = docsIndex0() as Record<string, any>;
  patch(f);
  return JSON.stringify(f);
}

describe("flashblocks codec: verbatim examples", () => {
  it("decodes base/base's V0_5_0_PAYLOAD_JSON with every field typed", () => {
    const p = decodeFlashblockFrame(V0_5_0_PAYLOAD_JSON.replace('"0x9"', '"0x4d2"'));
    expect(to0x(p.payloadId)).toBe("0x0000000000000000");
    expect(p.index).toBe(0);
    expect(p.base!.blockNumber).toBe(1234n);
    expect(p.base!.gasLimit).toBe(1_000_000n);
    expect(p.base!.timestamp).toBe(0x6553f100n);
    expect(to0x(p.base!.extraData)).toBe("0xaabb");
    expect(p.base!.baseFeePerGas).toBe(10n);
    expect(to0x(p.base!.parentBeaconBlockRoot)).toBe("0x" + "01".repeat(32));
    expect(p.diff.gasUsed).toBe(500_000n);
    expect(p.diff.blobGasUsed).toBe(44n);
    expect(p.diff.transactions.map(to0x)).toEqual(["0x0102"]);
    expect(p.diff.logsBloom.length).toBe(256);
    expect(p.metadata.blockNumber).toBe(1234n);
    expect(p.metadata.prevFlashblockId).toBeUndefined();
  });

  it("rejects V0_5_0_PAYLOAD_JSON as published: base.block_number 0x9 differs from metadata.block_number 1234", () => {
    expectCode(() => decodeFlashblockFrame(V0_5_0_PAYLOAD_JSON), "FB_BAD_FIELD", "base.block_number");
  });

  it("decodes the docs.base.org index-0 example (externally tagged receipts ignored)", () => {
    const p = decodeFlashblockFrame(JSON.stringify(docsIndex0()));
    expect(to0x(p.payloadId)).toBe("0x03997352d799c31a");
    expect(p.base!.blockNumber).toBe(22585577n);
    expect(p.metadata.blockNumber).toBe(22585577n);
    expect(to0x(p.base!.feeRecipient)).toBe("0x4200000000000000000000000000000000000011");
    expect(p.diff.blobGasUsed).toBeUndefined();
    expect(p.diff.transactions[0]![0]).toBe(0x7e);
  });

  it("rejects the docs example's incomplete base (parent_beacon_block_root missing)", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => delete f.base.parent_beacon_block_root)), "FB_BAD_FIELD", "base.parent_beacon_block_root");
  });

  it("accepts the pre-Azul, Azul and v1.1.1+ metadata eras", () => {
    const pre = {
      block_number: 43403718,
      new_account_balances: { "0x4200000000000000000000000000000000000006": "0x35277a9715c6df1c99de" },
      receipts: {
        "0x1ef9be45b3f7d44de9d98767ddb7c0e330b21777b67a3c79d469be9ffab091dd": { cumulativeGasUsed: "0x177d7bd", logs: [], status: "0x1", type: "0x2" },
      },
      access_list: null,
    };
    const azul = { block_number: 43403718, access_list: null };
    const newest = { block_number: 43403718, prev_flashblock_id: "43403718-4" };
    expect(decodeFlashblockFrame(JSON.stringify(indexN(5, pre))).metadata).toEqual({ blockNumber: 43403718n });
    expect(decodeFlashblockFrame(JSON.stringify(indexN(5, azul))).metadata).toEqual({ blockNumber: 43403718n });
    expect(decodeFlashblockFrame(JSON.stringify(indexN(5, newest))).metadata).toEqual({
      blockNumber: 43403718n,
      prevFlashblockId: { block: 43403718n, index: 4 },
    });
  });
});

describe("flashblocks codec: framing", () => {
  const text = JSON.stringify(docsIndex0());

  it("decodes a text frame, a binary raw-JSON frame and a brotli frame to the same payload", () => {
    const a = decodeFlashblockFrame(text);
    const b = decodeFlashblockFrame(new TextEncoder().encode(text));
    const c = decodeFlashblockFrame(new Uint8Array(brotliCompressSync(Buffer.from(text))));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it("treats JSON after leading whitespace as JSON", () => {
    expect(decodeFlashblockFrame(" \n\t\r" + text).index).toBe(0);
  });

  it("round-trips decode(encode(x)) uncompressed and compressed, keys in Base order", () => {
    const p = decodeFlashblockFrame(JSON.stringify(indexN(3, { block_number: 22585577, prev_flashblock_id: "22585577-2" })));
    const json = encodeFlashblock(p, { compress: false }) as string;
    expect(Object.keys(JSON.parse(json))).toEqual(["payload_id", "index", "diff", "metadata"]);
    expect(JSON.parse(json).metadata).toEqual({ block_number: 22585577, prev_flashblock_id: "22585577-2" });
    expect(decodeFlashblockFrame(json)).toEqual(p);
    const bin = encodeFlashblock(p, { compress: true });
    expect(bin).toBeInstanceOf(Uint8Array);
    expect(decodeFlashblockFrame(bin)).toEqual(p);
    const p0 = decodeFlashblockFrame(text);
    expect(Object.keys(JSON.parse(encodeFlashblock(p0, { compress: false }) as string))).toEqual(["payload_id", "index", "base", "diff", "metadata"]);
    expect(decodeFlashblockFrame(encodeFlashblock(p0, { compress: true }))).toEqual(p0);
  });

  it("rejects bytes that are neither JSON nor brotli with FB_BAD_COMPRESSION", () => {
    expectCode(() => decodeFlashblockFrame(new Uint8Array([0xff, 0xfe, 0x00, 0x01, 0x02])), "FB_BAD_COMPRESSION");
  });

  it("rejects a brotli bomb over 32 MiB with FB_TOO_LARGE", () => {
    const bomb = brotliCompressSync(Buffer.alloc(MAX_DECOMPRESSED_FLASHBLOCK_BYTES + 1, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    expectCode(() => decodeFlashblockFrame(new Uint8Array(bomb)), "FB_TOO_LARGE");
  });
});

describe("flashblocks codec: malformed frames", () => {
  it("rejects bad JSON with FB_MALFORMED_JSON", () => {
    expectCode(() => decodeFlashblockFrame('{"payload_id": "0x00",'), "FB_MALFORMED_JSON");
  });

  it("rejects a missing metadata.block_number", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => delete f.metadata.block_number)), "FB_BAD_FIELD", "metadata.block_number");
  });

  it("rejects a hex-string index", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.index = "0x0"))), "FB_BAD_FIELD", "index");
  });

  it("rejects a hex-string metadata.block_number", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.metadata.block_number = "0x158a0e9"))), "FB_BAD_FIELD", "metadata.block_number");
  });

  it("rejects a hash of the wrong length", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.diff.block_hash = "0x" + "11".repeat(31)))), "FB_BAD_FIELD", "diff.block_hash");
  });

  it("rejects a payload_id that is not 8 bytes", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.payload_id = "0x03997352d799c3"))), "FB_BAD_FIELD", "payload_id");
  });

  it("rejects a quantity with leading zeros", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.diff.gas_used = "0x0ab3f"))), "FB_BAD_FIELD", "diff.gas_used");
  });

  it("rejects base on an index>0 frame", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.index = 1))), "FB_BAD_FIELD", "base");
  });

  it("rejects an index-0 frame without base", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => delete f.base)), "FB_BAD_FIELD", "base");
  });

  it("rejects base.block_number differing from metadata.block_number", () => {
    expectCode(() => decodeFlashblockFrame(withPatch((f) => (f.metadata.block_number = 22585578))), "FB_BAD_FIELD", "base.block_number");
  });

  it("rejects index 16 (MAX_FLASHBLOCKS_PER_PAYLOAD) but accepts 15", () => {
    expect(decodeFlashblockFrame(JSON.stringify(indexN(15, { block_number: 1 }))).index).toBe(15);
    expectCode(() => decodeFlashblockFrame(JSON.stringify(indexN(16, { block_number: 1 }))), "FB_BAD_FIELD", "index");
  });

  it("rejects a malformed prev_flashblock_id", () => {
    expectCode(() => decodeFlashblockFrame(JSON.stringify(indexN(2, { block_number: 1, prev_flashblock_id: "1:1" }))), "FB_BAD_FIELD", "metadata.prev_flashblock_id");
  });
});
