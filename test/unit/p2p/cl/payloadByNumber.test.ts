/**
 * payload_by_number wire format (op-node sync.go): protocol id, 8-byte LE request, result byte +
 * LE u32 version + snappy frames; snappy's framing format (CRC-32C vector, chunking, bounds).
 */
import { describe, expect, it } from "vitest";
import {
  ResultCode,
  decodePayloadRequest,
  decodePayloadResponse,
  encodeErrorResponse,
  encodePayloadRequest,
  encodeSuccessResponse,
  payloadByNumberProtocol,
} from "../../../../src/p2p/cl/payloadByNumber.js";
import { SnappyFrameError, crc32c, decodeSnappyFrames, encodeSnappyFrames } from "../../../../src/p2p/cl/snappyFrames.js";

describe("snappy framing", () => {
  it("computes CRC-32C", () => {
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
  });

  it("round-trips data of many chunks and starts with the stream identifier", () => {
    const data = new Uint8Array(200_000).map((_, i) => (i * 7) % 251);
    const framed = encodeSnappyFrames(data);
    expect(Buffer.from(framed.subarray(0, 10)).toString("hex")).toBe("ff060000734e61507059");
    expect(decodeSnappyFrames(framed, 1 << 20)).toEqual(data);
  });

  it("refuses bad checksums, truncation, missing identifier and output past the bound", () => {
    const framed = encodeSnappyFrames(new Uint8Array(1000).fill(3));
    const bad = Uint8Array.from(framed);
    bad[14] = bad[14]! ^ 0xff;
    expect(() => decodeSnappyFrames(bad, 1 << 20)).toThrow(SnappyFrameError);
    expect(() => decodeSnappyFrames(framed.subarray(0, framed.length - 2), 1 << 20)).toThrow(/truncated/);
    expect(() => decodeSnappyFrames(framed.subarray(10), 1 << 20)).toThrow(/noStreamIdentifier/);
    expect(() => decodeSnappyFrames(framed, 999)).toThrow(/tooLarge/);
  });
});

describe("payload_by_number messages", () => {
  it("uses op-node's protocol id and request encoding", () => {
    expect(payloadByNumberProtocol(8453n)).toBe("/opstack/req/payload_by_number/8453/0");
    expect(Buffer.from(encodePayloadRequest(0x0102n)).toString("hex")).toBe("0201000000000000");
    expect(decodePayloadRequest(encodePayloadRequest(123456789n))).toBe(123456789n);
    expect(decodePayloadRequest(Uint8Array.of(1, 2, 3))).toBeUndefined();
  });

  it("encodes responses with the result code and version", () => {
    const payload = new Uint8Array(300).fill(9);
    const ok = encodeSuccessResponse(3, payload);
    expect(Buffer.from(ok.subarray(0, 5)).toString("hex")).toBe("0001000000");
    expect(decodePayloadResponse(ok)).toEqual({ result: 0, responseVersion: 1, payloadBytes: payload });
    expect(Buffer.from(encodeSuccessResponse(2, payload).subarray(0, 5)).toString("hex")).toBe("0000000000");
    expect(Buffer.from(encodeSuccessResponse(4, payload).subarray(0, 5)).toString("hex")).toBe("0002000000");
    expect(decodePayloadResponse(encodeErrorResponse(ResultCode.notFound))).toEqual({ result: 1 });
    expect(() => decodePayloadResponse(Uint8Array.of(0, 1))).toThrow(/truncated/);
  });
});
