/**
 * The fast EVM's 256-bit limb arithmetic against bigint, the definition: every opcode-level
 * operation on random words (fast-check, with edge values mixed in: 0, 1, 2^255, 2^256 − 1,
 * small numbers, powers of two) must give exactly the bigint result mod 2^256.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as W from "../../../../src/execution/evm/u256.js";

const M = 1n << 256n;
const MASK = M - 1n;
const SIGN = 1n << 255n;

const edge = fc.constantFrom(0n, 1n, 2n, 3n, 31n, 32n, 255n, 256n, SIGN, SIGN - 1n, MASK, MASK - 1n, 1n << 32n, (1n << 32n) - 1n, 1n << 53n, (1n << 53n) - 1n, 1n << 64n);
const small = fc.bigInt({ min: 0n, max: 1n << 60n });
const any = fc.bigInt({ min: 0n, max: MASK });
const word = fc.oneof(edge, small, any, fc.integer({ min: 0, max: 255 }).map((n) => 1n << BigInt(n)));

const signed = (v: bigint): bigint => (v >= SIGN ? v - M : v);
const unsigned = (v: bigint): bigint => ((v % M) + M) % M;

/** Runs a binary operation on a fresh stack: a at offset 8, b at 0 (the interpreter's layout: top first). */
function bin(op: (s: Uint32Array, a: number, b: number, out: number) => void, a: bigint, b: bigint): bigint {
  const s = new Uint32Array(24);
  W.fromBig(s, 8, a);
  W.fromBig(s, 0, b);
  op(s, 8, 0, 16);
  return W.toBig(s, 16);
}

function tern(op: (s: Uint32Array, a: number, b: number, n: number, out: number) => void, a: bigint, b: bigint, n: bigint): bigint {
  const s = new Uint32Array(32);
  W.fromBig(s, 0, a);
  W.fromBig(s, 8, b);
  W.fromBig(s, 16, n);
  op(s, 0, 8, 16, 24);
  return W.toBig(s, 24);
}

const RUNS = { numRuns: 400 };

describe("u256 limb arithmetic equals bigint", () => {
  it("round-trips fromBig/toBig, bytes and keys", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const s = new Uint32Array(16);
        W.fromBig(s, 0, a);
        expect(W.toBig(s, 0)).toBe(a);
        const bytes = W.toBytes32(s, 0);
        expect(BigInt("0x" + Buffer.from(bytes).toString("hex"))).toBe(a);
        W.loadBE(s, 8, bytes, 0);
        expect(W.eqWords(s, 0, s, 8)).toBe(true);
        W.fromBig(s, 8, b);
        expect(W.wordKey(s, 0) === W.wordKey(s, 8)).toBe(a === b);
        expect(BigInt("0x" + (Buffer.from(W.strippedBytes(s, 0)).toString("hex") || "0"))).toBe(a);
      }),
      RUNS,
    );
  });

  it("ADD, SUB, MUL", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        expect(bin(W.add, a, b)).toBe((a + b) & MASK);
        expect(bin(W.sub, a, b)).toBe(unsigned(a - b));
        expect(bin(W.mul, a, b)).toBe((a * b) & MASK);
      }),
      RUNS,
    );
  });

  it("DIV, MOD, SDIV, SMOD (zero divisors give 0)", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        expect(bin(W.div, a, b)).toBe(b === 0n ? 0n : a / b);
        expect(bin(W.mod, a, b)).toBe(b === 0n ? 0n : a % b);
        const sa = signed(a);
        const sb = signed(b);
        expect(bin(W.sdiv, a, b)).toBe(b === 0n ? 0n : unsigned(sa / sb));
        expect(bin(W.smod, a, b)).toBe(b === 0n ? 0n : unsigned(sa % sb));
      }),
      RUNS,
    );
  });

  it("ADDMOD, MULMOD in full precision", () => {
    fc.assert(
      fc.property(word, word, word, (a, b, n) => {
        expect(tern(W.addmod, a, b, n)).toBe(n === 0n ? 0n : (a + b) % n);
        expect(tern(W.mulmod, a, b, n)).toBe(n === 0n ? 0n : (a * b) % n);
      }),
      RUNS,
    );
  });

  it("EXP mod 2^256", () => {
    const modpow = (b: bigint, e: bigint): bigint => {
      let r = 1n;
      let x = b;
      while (e > 0n) {
        if ((e & 1n) === 1n) r = (r * x) & MASK;
        x = (x * x) & MASK;
        e >>= 1n;
      }
      return r;
    };
    fc.assert(
      fc.property(word, word, (a, e) => {
        expect(bin(W.exp, a, e)).toBe(modpow(a, e));
      }),
      { numRuns: 200 },
    );
  });

  it("comparisons (unsigned and signed) and ISZERO", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const s = new Uint32Array(16);
        W.fromBig(s, 0, a);
        W.fromBig(s, 8, b);
        expect(Math.sign(W.cmp(s, 0, 8))).toBe(a < b ? -1 : a > b ? 1 : 0);
        const sa = signed(a);
        const sb = signed(b);
        expect(Math.sign(W.scmp(s, 0, 8))).toBe(sa < sb ? -1 : sa > sb ? 1 : 0);
        expect(W.isZero(s, 0)).toBe(a === 0n);
      }),
      RUNS,
    );
  });

  it("SHL, SHR, SAR, BYTE, SIGNEXTEND, CLZ", () => {
    const shift = fc.oneof(fc.integer({ min: 0, max: 300 }).map(BigInt), word);
    fc.assert(
      fc.property(shift, word, (n, x) => {
        expect(bin(W.shl, n, x)).toBe(n >= 256n ? 0n : (x << n) & MASK);
        expect(bin(W.shr, n, x)).toBe(n >= 256n ? 0n : x >> n);
        const sar = n >= 256n ? (signed(x) < 0n ? MASK : 0n) : unsigned(signed(x) >> n);
        expect(bin(W.sar, n, x)).toBe(sar);
        expect(bin(W.byteAt, n, x)).toBe(n >= 32n ? 0n : (x >> (8n * (31n - n))) & 0xffn);
        let ext = x;
        if (n < 31n) {
          const bit = 8n * n + 7n;
          const mask = (1n << (bit + 1n)) - 1n;
          ext = ((x >> bit) & 1n) === 1n ? x | (MASK ^ mask) : x & mask;
        }
        expect(bin(W.signextend, n, x)).toBe(ext);
        const s = new Uint32Array(16);
        W.fromBig(s, 0, x);
        W.clz(s, 0, 8);
        expect(W.toBig(s, 8)).toBe(x === 0n ? 256n : 255n - BigInt(x.toString(2).length - 1));
      }),
      RUNS,
    );
  });

  it("PUSH decoding and partial big-endian loads pad with zeros", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 40 }), fc.integer({ min: 0, max: 48 }), (bytes, off) => {
        const s = new Uint32Array(8);
        W.loadBE(s, 0, bytes, off);
        const window = new Uint8Array(32);
        for (let i = 0; i < 32; i++) window[i] = off + i < bytes.length ? bytes[off + i]! : 0;
        expect(W.toBig(s, 0)).toBe(BigInt("0x" + Buffer.from(window).toString("hex")));
        const len = Math.min(32, bytes.length);
        W.loadBytesBE(s, 0, bytes, 0, len);
        expect(W.toBig(s, 0)).toBe(len === 0 ? 0n : BigInt("0x" + Buffer.from(bytes.subarray(0, len)).toString("hex")));
      }),
      RUNS,
    );
  });
});
