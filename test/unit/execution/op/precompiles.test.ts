import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM, type PrecompileFunc, type PrecompileInput } from "@ethereumjs/evm";
import { bigIntToBytes, concatBytes, createAddressFromString, setLengthLeft } from "@ethereumjs/util";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import {
  BLS12_G1_MSM_ADDRESS,
  BLS12_G1_MSM_MAX_INPUT_ISTHMUS,
  BLS12_G1_MSM_MAX_INPUT_JOVIAN,
  BLS12_G2_MSM_ADDRESS,
  BLS12_G2_MSM_MAX_INPUT_ISTHMUS,
  BLS12_G2_MSM_MAX_INPUT_JOVIAN,
  BLS12_PAIRING_ADDRESS,
  BLS12_PAIRING_MAX_INPUT_ISTHMUS,
  BLS12_PAIRING_MAX_INPUT_JOVIAN,
  BN254_PAIRING_ADDRESS,
  BN254_PAIRING_MAX_INPUT_GRANITE,
  BN254_PAIRING_MAX_INPUT_JOVIAN,
  OpPrecompileError,
  P256VERIFY_ADDRESS,
  P256VERIFY_GAS_AZUL,
  P256VERIFY_GAS_FJORD,
  opPrecompileInputLimits,
  opPrecompiles,
  p256Verify,
  withInputSizeLimit,
} from "../../../../src/execution/op/precompiles.js";
import { fromHex, toHex } from "../../../../src/util/bytes.js";

/** The Ethereum fork each OP fork runs on (Bedrock = Paris, Canyon = Shanghai, Ecotone = Cancun, Isthmus = Prague, Azul = Osaka). */
const ETH_FORK: Record<OpFork, string> = {
  [OpFork.bedrock]: Hardfork.Paris,
  [OpFork.regolith]: Hardfork.Paris,
  [OpFork.canyon]: Hardfork.Shanghai,
  [OpFork.delta]: Hardfork.Shanghai,
  [OpFork.ecotone]: Hardfork.Cancun,
  [OpFork.fjord]: Hardfork.Cancun,
  [OpFork.granite]: Hardfork.Cancun,
  [OpFork.holocene]: Hardfork.Cancun,
  [OpFork.isthmus]: Hardfork.Prague,
  [OpFork.jovian]: Hardfork.Prague,
  [OpFork.azul]: Hardfork.Osaka,
  [OpFork.beryl]: Hardfork.Osaka,
  [OpFork.cobalt]: Hardfork.Osaka,
};

function commonAt(fork: OpFork): Common {
  return new Common({ chain: Mainnet, hardfork: ETH_FORK[fork] });
}

/** A real EVM with the OP precompiles of `fork` (or none, for the plain-Ethereum baseline). */
async function evmAt(fork: OpFork, withOp = true): Promise<EVM> {
  const common = commonAt(fork);
  return createEVM({ common, customPrecompiles: withOp ? opPrecompiles(fork, common) : [] });
}

async function call(evm: EVM, to: string, data: Uint8Array, gasLimit: bigint) {
  const res = await evm.runCall({ to: createAddressFromString(to), data, gasLimit });
  return res.execResult;
}

const ONE_WORD = toHex(setLengthLeft(new Uint8Array([1]), 32));
const P256_N = p256.Point.CURVE().n;

// P-256 vectors (hash ‖ r ‖ s ‖ qx ‖ qy) from daimo-eth/p256-verifier test-vectors, as used in revm's secp256r1 tests.
const DAIMO_VALID = [
  "4cee90eb86eaa050036147a12d49004b6b9c72bd725d39d4785011fe190f0b4da73bd4903f0ce3b639bbbf6e8e80d16931ff4bcf5993d58468e8fb19086e8cac" +
    "36dbcd03009df8c59286b162af3bd7fcc0450c9aa81be5d10d312af6c66b1d604aebd3099c618202fcfe16ae7770b0c49ab5eadf74b754204a3bb6060e44eff3" +
    "7618b065f9832de4ca6ca971a7a1adc826d0f7c00181a5fb2ddf79ae00b4e10e",
  "3fec5769b5cf4e310a7d150508e82fb8e3eda1c2c94c61492d3bd8aea99e06c9e22466e928fdccef0de49e3503d2657d00494a00e764fd437bdafa05f5922b1f" +
    "bbb77c6817ccf50748419477e843d5bac67e6a70e97dde5a57e0c983b777e1ad31a80482dadf89de6302b1988c82c29544c9c07bb910596158f6062517eb089a" +
    "2f54c9a0f348752950094d3228d3b940258c75fe2a413cb70baa21dc2e352fc5",
  "e775723953ead4a90411a02908fd1a629db584bc600664c609061f221ef6bf7c440066c8626b49daaa7bf2bcc0b74be4f7a1e3dcf0e869f1542fe821498cbf2d" +
    "e73ad398194129f635de4424a07ca715838aefe8fe69d1a391cfa70470795a80dd056866e6e1125aff94413921880c437c9e2570a28ced7267c8beef7e9b2d8d" +
    "1547d76dfcf4bee592f5fefe10ddfb6aeb0991c5b9dbbee6ec80d11b17c0eb1a",
  "b5a77e7a90aa14e0bf5f337f06f597148676424fae26e175c6e5621c34351955289f319789da424845c9eac935245fcddd805950e2f02506d09be7e411199556" +
    "d262144475b1fa46ad85250728c600c53dfd10f8b3f4adf140e27241aec3c2da3a81046703fccf468b48b145f939efdbb96c3786db712b3113bb2488ef286cdc" +
    "ef8afe82d200a5bb36b5462166e8ce77f2d831a52ef2135b2af188110beaefb1",
  "858b991cfd78f16537fe6d1f4afd10273384db08bdfc843562a22b0626766686f6aec8247599f40bfe01bec0e0ecf17b4319559022d4d9bf007fe929943004eb" +
    "4866760dedf31b7c691f5ce665f8aae0bda895c23595c834fecc2390a5bcc203b04afcacbb4280713287a2d0c37e23f7513fab898f2c1fefa00ec09a924c335d" +
    "9b629f1d4fb71901c3e59611afbfea354d101324e894c788d1c01f00b3c251b2",
];

/** Replaces 32-byte word `index` (0 hash, 1 r, 2 s, 3 qx, 4 qy) of a P256VERIFY input. */
function withWord(input: Uint8Array, index: number, value: bigint): Uint8Array {
  const out = input.slice();
  out.set(setLengthLeft(bigIntToBytes(value), 32), index * 32);
  return out;
}

/** A fresh P256VERIFY input signed with @noble/curves (pre-hashed message, raw r/s, uncompressed key). */
function signedInput(): Uint8Array {
  const { secretKey, publicKey } = p256.keygen();
  const hash = sha256(new TextEncoder().encode(`basalt ${Math.random()}`));
  const sig = p256.sign(hash, secretKey, { prehash: false });
  return concatBytes(hash, sig, p256.Point.fromBytes(publicKey).toBytes(false).subarray(1));
}

/**
 * A valid P256VERIFY input for the key (x, y) on the curve, built without its secret key: for random u1, u2
 * take R = u1·G + u2·Q, r = R.x mod n, s = r / u2, hash = u1·s (mod n); verification recomputes exactly R.
 */
function inputForKeyWithX(x: bigint): Uint8Array {
  const { Fp, Fn } = p256.Point;
  const { a, b } = p256.Point.CURVE();
  const y = Fp.sqrt(Fp.add(Fp.add(Fp.mul(Fp.mul(x, x), x), Fp.mul(a, x)), b));
  const q = p256.Point.fromAffine({ x, y });
  const u1 = Fn.create(BigInt("0x" + toHex(sha256(new TextEncoder().encode("u1")))));
  const u2 = Fn.create(BigInt("0x" + toHex(sha256(new TextEncoder().encode("u2")))));
  const r = Fn.create(p256.Point.BASE.multiply(u1).add(q.multiply(u2)).toAffine().x);
  const s = Fn.div(r, u2);
  const hash = Fn.mul(u1, s);
  return concatBytes(...[hash, r, s, x, y].map((v) => setLengthLeft(bigIntToBytes(v), 32)));
}

describe("p256Verify (RIP-7212 input rules)", () => {
  it("accepts the daimo test vectors and rejects them with a changed hash", () => {
    for (const hex of DAIMO_VALID) {
      const input = fromHex(hex);
      expect(p256Verify(input)).toBe(true);
      const bad = input.slice();
      bad[0] ^= 0x01;
      expect(p256Verify(bad)).toBe(false);
    }
  });

  it("accepts signatures made with @noble/curves, including the high-s twin (low s not enforced)", () => {
    for (let i = 0; i < 5; i++) {
      const input = signedInput();
      expect(p256Verify(input)).toBe(true);
      const s = BigInt("0x" + toHex(input.subarray(64, 96)));
      expect(p256Verify(withWord(input, 2, P256_N - s))).toBe(true);
    }
  });

  it("rejects r or s outside [1, n), coordinates ≥ p, off-curve and infinity keys", () => {
    const input = fromHex(DAIMO_VALID[0]!);
    const p = p256.Point.CURVE().p;
    expect(p256Verify(withWord(input, 1, 0n))).toBe(false);
    expect(p256Verify(withWord(input, 2, 0n))).toBe(false);
    expect(p256Verify(withWord(input, 1, P256_N))).toBe(false);
    expect(p256Verify(withWord(input, 2, P256_N))).toBe(false);
    expect(p256Verify(withWord(input, 4, 0n))).toBe(false);
    // The key (0, y) is on P-256; x = p is the same residue, so only the coordinate range check rejects it.
    const zeroX = inputForKeyWithX(0n);
    expect(p256Verify(zeroX)).toBe(true);
    expect(p256Verify(withWord(zeroX, 3, p))).toBe(false);
    expect(p256Verify(withWord(withWord(input, 3, 0n), 4, 0n))).toBe(false);
  });

  it("rejects any input that is not exactly 160 bytes", () => {
    const input = fromHex(DAIMO_VALID[0]!);
    expect(p256Verify(input.subarray(0, 159))).toBe(false);
    expect(p256Verify(concatBytes(input, new Uint8Array(1)))).toBe(false);
    expect(p256Verify(new Uint8Array(0))).toBe(false);
  });
});

describe("P256VERIFY through createEVM + runCall", () => {
  const valid = fromHex(DAIMO_VALID[1]!);

  it("Fjord: valid signature returns the word 1 for 3,450 gas", async () => {
    const evm = await evmAt(OpFork.fjord);
    const res = await call(evm, P256VERIFY_ADDRESS, valid, 100_000n);
    expect(res.exceptionError).toBeUndefined();
    expect(toHex(res.returnValue)).toBe(ONE_WORD);
    expect(res.executionGasUsed).toBe(3450n);
    expect(P256VERIFY_GAS_FJORD).toBe(3450n);
  });

  it("Fjord: invalid signature and wrong lengths return empty output, still charging 3,450 gas", async () => {
    const evm = await evmAt(OpFork.fjord);
    const bad = valid.slice();
    bad[40] ^= 0xff;
    for (const data of [bad, valid.subarray(0, 159), concatBytes(valid, new Uint8Array(1)), new Uint8Array(0)]) {
      const res = await call(evm, P256VERIFY_ADDRESS, data, 100_000n);
      expect(res.exceptionError).toBeUndefined();
      expect(res.returnValue.length).toBe(0);
      expect(res.executionGasUsed).toBe(3450n);
    }
  });

  it("Fjord: fails out of gas, consuming it all, below 3,450 gas", async () => {
    const evm = await evmAt(OpFork.fjord);
    const res = await call(evm, P256VERIFY_ADDRESS, valid, 3449n);
    expect(res.exceptionError?.error).toBe("out of gas");
    expect(res.executionGasUsed).toBe(3449n);
    expect(res.returnValue.length).toBe(0);
  });

  it("is present with 3,450 gas from Fjord through Jovian", async () => {
    for (const fork of [OpFork.fjord, OpFork.granite, OpFork.holocene, OpFork.isthmus, OpFork.jovian]) {
      const res = await call(await evmAt(fork), P256VERIFY_ADDRESS, valid, 100_000n);
      expect(toHex(res.returnValue), `fork ${fork}`).toBe(ONE_WORD);
      expect(res.executionGasUsed, `fork ${fork}`).toBe(3450n);
    }
  });

  it("Azul: costs 6,900 gas (EIP-7951) and the OP implementation overrides @ethereumjs's Osaka one", async () => {
    const common = commonAt(OpFork.azul);
    const custom = opPrecompiles(OpFork.azul, common);
    const evm = await createEVM({ common, customPrecompiles: custom });
    expect(evm.getPrecompile(P256VERIFY_ADDRESS)).toBe(custom.find((c) => c.address.toString() === P256VERIFY_ADDRESS)!.function);
    const ok = await call(evm, P256VERIFY_ADDRESS, valid, 100_000n);
    expect(toHex(ok.returnValue)).toBe(ONE_WORD);
    expect(ok.executionGasUsed).toBe(6900n);
    expect(P256VERIFY_GAS_AZUL).toBe(6900n);
    const short = await call(evm, P256VERIFY_ADDRESS, valid.subarray(1), 100_000n);
    expect(short.returnValue.length).toBe(0);
    expect(short.executionGasUsed).toBe(6900n);
    const oog = await call(evm, P256VERIFY_ADDRESS, valid, 6899n);
    expect(oog.exceptionError?.error).toBe("out of gas");
  });

  it("forks before Fjord have no precompile at 0x100: the call is a plain empty account", async () => {
    for (const fork of [OpFork.bedrock, OpFork.regolith, OpFork.canyon, OpFork.delta, OpFork.ecotone]) {
      expect(opPrecompiles(fork, commonAt(fork))).toEqual([]);
      const evm = await evmAt(fork);
      expect(evm.getPrecompile(P256VERIFY_ADDRESS)).toBeUndefined();
      const res = await call(evm, P256VERIFY_ADDRESS, valid, 100_000n);
      expect(res.exceptionError).toBeUndefined();
      expect(res.returnValue.length).toBe(0);
      expect(res.executionGasUsed).toBe(0n);
    }
  });
});

describe("withInputSizeLimit", () => {
  const inner: PrecompileFunc = (opts: PrecompileInput) => ({ executionGasUsed: 7n, returnValue: new Uint8Array([opts.data.length & 0xff]) });
  const opts = (len: number) => ({ data: new Uint8Array(len), gasLimit: 1000n }) as unknown as PrecompileInput;

  it("passes inputs up to the cap (inclusive) to the wrapped precompile", async () => {
    const f = withInputSizeLimit(inner, BN254_PAIRING_MAX_INPUT_GRANITE);
    for (const len of [0, 192, BN254_PAIRING_MAX_INPUT_GRANITE]) {
      const res = await f(opts(len));
      expect(res.exceptionError).toBeUndefined();
      expect(res.executionGasUsed).toBe(7n);
      expect(res.returnValue).toEqual(new Uint8Array([len & 0xff]));
    }
  });

  it("fails one byte over the cap without calling the wrapped precompile, consuming all gas", async () => {
    let called = false;
    const f = withInputSizeLimit((o) => ((called = true), inner(o)), BN254_PAIRING_MAX_INPUT_GRANITE);
    const res = await f(opts(BN254_PAIRING_MAX_INPUT_GRANITE + 1));
    expect(called).toBe(false);
    expect(res.exceptionError?.error).toBe("invalid input length");
    expect(res.executionGasUsed).toBe(1000n);
    expect(res.returnValue.length).toBe(0);
  });
});

describe("bn256Pairing (0x08) input caps through createEVM + runCall", () => {
  /** EIP-197 gas since Istanbul: 45,000 + 34,000 per 192-byte pair. */
  const pairingGas = (pairs: number) => 45_000n + 34_000n * BigInt(pairs);
  // Two-pair input whose pairing product is 1 (revm / op-revm bn254 pair test vector).
  const PAIRING_TRUE =
    "1c76476f4def4bb94541d57ebba1193381ffa7aa76ada664dd31c16024c43f593034dd2920f673e204fee2811c678745fc819b55d3e9d294e45c9b03a76aef41" +
    "209dd15ebff5d46c4bd888e51a93cf99a7329636c63514396b4a452003a35bf704bf11ca01483bfa8b34b43561848d28905960114c8ac04049af4b6315a41678" +
    "2bb8324af6cfc93537a2ad1a445cfd0ca2a71acd7ac41fadbf933c2a51be344d120a2a4cf30c1bf9845f20c6fe39e07ea2cce61f0c9bb048165fe5e4de877550" +
    "111e129f1cf1097710d41c4ac70fcdfa5ba2023c6ff1cbeac322de49d1b6df7c2032c61a830e3c17286de9462bf242fca2883585b93870a73853face6a6bf411" +
    "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c21800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" +
    "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa";

  it("Granite: a valid pairing still runs through the wrapper", async () => {
    const res = await call(await evmAt(OpFork.granite), BN254_PAIRING_ADDRESS, fromHex(PAIRING_TRUE), pairingGas(2));
    expect(res.exceptionError).toBeUndefined();
    expect(toHex(res.returnValue)).toBe(ONE_WORD);
    expect(res.executionGasUsed).toBe(pairingGas(2));
  });

  it("Granite: 587 pairs (112,704 B > 112,687) fail with all gas used; 586 pairs run; Fjord runs 587", async () => {
    const over = new Uint8Array(587 * 192);
    expect(over.length).toBeGreaterThan(BN254_PAIRING_MAX_INPUT_GRANITE);
    const gas = pairingGas(587) + 1000n;
    const granite = await evmAt(OpFork.granite);
    const failed = await call(granite, BN254_PAIRING_ADDRESS, over, gas);
    expect(failed.exceptionError?.error).toBe("invalid input length");
    expect(failed.executionGasUsed).toBe(gas);
    const atLimit = await call(granite, BN254_PAIRING_ADDRESS, new Uint8Array(586 * 192), gas);
    expect(atLimit.exceptionError).toBeUndefined();
    expect(toHex(atLimit.returnValue)).toBe(ONE_WORD);
    expect(atLimit.executionGasUsed).toBe(pairingGas(586));
    const fjord = await call(await evmAt(OpFork.fjord), BN254_PAIRING_ADDRESS, over, gas);
    expect(fjord.exceptionError).toBeUndefined();
    expect(fjord.executionGasUsed).toBe(pairingGas(587));
  });

  it("Isthmus keeps the Granite cap; Jovian lowers it to 81,984 B (427 pairs)", async () => {
    const over = new Uint8Array(BN254_PAIRING_MAX_INPUT_JOVIAN + 192);
    const gas = pairingGas(428) + 1000n;
    const isthmus = await call(await evmAt(OpFork.isthmus), BN254_PAIRING_ADDRESS, over, gas);
    expect(isthmus.exceptionError).toBeUndefined();
    const jovian = await evmAt(OpFork.jovian);
    const failed = await call(jovian, BN254_PAIRING_ADDRESS, over, gas);
    expect(failed.exceptionError?.error).toBe("invalid input length");
    expect(failed.executionGasUsed).toBe(gas);
    const atLimit = await call(jovian, BN254_PAIRING_ADDRESS, new Uint8Array(BN254_PAIRING_MAX_INPUT_JOVIAN), gas);
    expect(atLimit.exceptionError).toBeUndefined();
    expect(toHex(atLimit.returnValue)).toBe(ONE_WORD);
    const isthmusOverGranite = await call(await evmAt(OpFork.isthmus), BN254_PAIRING_ADDRESS, new Uint8Array(587 * 192), pairingGas(587));
    expect(isthmusOverGranite.exceptionError?.error).toBe("invalid input length");
  });
});

describe("BLS12-381 (EIP-2537) input caps through createEVM + runCall", () => {
  // All-zero inputs are valid: points at infinity (and zero scalars), so only the size decides the outcome.
  const GAS = 60_000_000n;
  const cases = [
    // unit = bytes per pair, out = output bytes (EIP-2537)
    {
      name: "G1 MSM", address: BLS12_G1_MSM_ADDRESS, unit: 160, out: 128,
      isthmus: BLS12_G1_MSM_MAX_INPUT_ISTHMUS, jovian: BLS12_G1_MSM_MAX_INPUT_JOVIAN,
    },
    {
      name: "G2 MSM", address: BLS12_G2_MSM_ADDRESS, unit: 288, out: 256,
      isthmus: BLS12_G2_MSM_MAX_INPUT_ISTHMUS, jovian: BLS12_G2_MSM_MAX_INPUT_JOVIAN,
    },
    {
      name: "pairing", address: BLS12_PAIRING_ADDRESS, unit: 384, out: 32,
      isthmus: BLS12_PAIRING_MAX_INPUT_ISTHMUS, jovian: BLS12_PAIRING_MAX_INPUT_JOVIAN,
    },
  ];

  it("the caps are whole numbers of pairs, Jovian's below Isthmus's", () => {
    for (const c of cases) {
      expect(c.isthmus % c.unit, c.name).toBe(0);
      expect(c.jovian % c.unit, c.name).toBe(0);
      expect(c.jovian).toBeLessThan(c.isthmus);
    }
    expect(cases.map((c) => c.isthmus / c.unit)).toEqual([3211, 1696, 612]);
    expect(cases.map((c) => c.jovian / c.unit)).toEqual([1806, 968, 408]);
    expect(BN254_PAIRING_MAX_INPUT_JOVIAN / 192).toBe(427);
  });

  for (const c of cases) {
    it(`${c.name}: Isthmus runs ${c.isthmus} B and fails one pair more (which plain Prague runs)`, async () => {
      const isthmus = await evmAt(OpFork.isthmus);
      const atLimit = await call(isthmus, c.address, new Uint8Array(c.isthmus), GAS);
      expect(atLimit.exceptionError).toBeUndefined();
      expect(atLimit.returnValue.length).toBe(c.out);
      const over = new Uint8Array(c.isthmus + c.unit);
      const failed = await call(isthmus, c.address, over, GAS);
      expect(failed.exceptionError?.error).toBe("invalid input length");
      expect(failed.executionGasUsed).toBe(GAS);
      expect(failed.returnValue.length).toBe(0);
      const plain = await call(await evmAt(OpFork.isthmus, false), c.address, over, GAS);
      expect(plain.exceptionError).toBeUndefined();
      expect(plain.returnValue.length).toBe(c.out);
    });

    it(`${c.name}: Jovian and Azul run ${c.jovian} B and fail one pair more (which Isthmus runs)`, async () => {
      const over = new Uint8Array(c.jovian + c.unit);
      for (const fork of [OpFork.jovian, OpFork.azul]) {
        const evm = await evmAt(fork);
        const atLimit = await call(evm, c.address, new Uint8Array(c.jovian), GAS);
        expect(atLimit.exceptionError, `fork ${fork}`).toBeUndefined();
        expect(atLimit.returnValue.length).toBe(c.out);
        const failed = await call(evm, c.address, over, GAS);
        expect(failed.exceptionError?.error, `fork ${fork}`).toBe("invalid input length");
        expect(failed.executionGasUsed).toBe(GAS);
      }
      const isthmus = await call(await evmAt(OpFork.isthmus), c.address, over, GAS);
      expect(isthmus.exceptionError).toBeUndefined();
    });
  }
});

describe("opPrecompiles / opPrecompileInputLimits fork table", () => {
  it("lists the caps in force at each fork", () => {
    const table = (fork: OpFork) => Object.fromEntries(opPrecompileInputLimits(fork).map((l) => [l.address, l.maxInputSize]));
    expect(table(OpFork.fjord)).toEqual({});
    expect(table(OpFork.granite)).toEqual({ [BN254_PAIRING_ADDRESS]: 112_687 });
    expect(table(OpFork.holocene)).toEqual({ [BN254_PAIRING_ADDRESS]: 112_687 });
    const isthmus = {
      [BN254_PAIRING_ADDRESS]: 112_687,
      [BLS12_G1_MSM_ADDRESS]: 513_760,
      [BLS12_G2_MSM_ADDRESS]: 488_448,
      [BLS12_PAIRING_ADDRESS]: 235_008,
    };
    expect(table(OpFork.isthmus)).toEqual(isthmus);
    const jovian = {
      [BN254_PAIRING_ADDRESS]: 81_984,
      [BLS12_G1_MSM_ADDRESS]: 288_960,
      [BLS12_G2_MSM_ADDRESS]: 278_784,
      [BLS12_PAIRING_ADDRESS]: 156_672,
    };
    expect(table(OpFork.jovian)).toEqual(jovian);
    expect(table(OpFork.azul)).toEqual(jovian);
  });

  it("returns P256VERIFY plus one wrapper per cap, at the right addresses", () => {
    const addrs = (fork: OpFork) => opPrecompiles(fork, commonAt(fork)).map((p) => p.address.toString()).sort();
    expect(addrs(OpFork.fjord)).toEqual([P256VERIFY_ADDRESS]);
    expect(addrs(OpFork.granite)).toEqual([BN254_PAIRING_ADDRESS, P256VERIFY_ADDRESS].sort());
    const all = [BN254_PAIRING_ADDRESS, BLS12_G1_MSM_ADDRESS, BLS12_G2_MSM_ADDRESS, BLS12_PAIRING_ADDRESS, P256VERIFY_ADDRESS];
    expect(addrs(OpFork.isthmus)).toEqual([...all].sort());
    expect(addrs(OpFork.jovian)).toEqual([...all].sort());
  });

  it("throws OP_PRECOMPILE_BUILTIN_MISSING for an Isthmus block with a pre-Prague Common", () => {
    const cancun = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
    let err: unknown;
    try {
      opPrecompiles(OpFork.isthmus, cancun);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OpPrecompileError);
    expect((err as OpPrecompileError).code).toBe("OP_PRECOMPILE_BUILTIN_MISSING");
    expect((err as OpPrecompileError).meta).toEqual({ fork: "isthmus", hardfork: "cancun", address: BLS12_G1_MSM_ADDRESS });
  });
});
