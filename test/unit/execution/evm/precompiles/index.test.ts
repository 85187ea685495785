/**
 * The precompile sets of the fast core: addresses per fork (against @ethereumjs's
 * `getActivePrecompiles` + basalt's `opPrecompiles`), unknown addresses, caching, Commons with or
 * without @ethereumjs/evm's parameters, and the OP input-size caps.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { describe, expect, it } from "vitest";
import { OP_FORK_NAMES, OpFork } from "../../../../../src/chain/op/forks.js";
import { customCrypto } from "../../../../../src/chain/crypto.js";
import { precompilesFor } from "../../../../../src/execution/evm/precompiles/index.js";
import {
  BLS12_G1_MSM_MAX_INPUT_ISTHMUS,
  BLS12_G1_MSM_MAX_INPUT_JOVIAN,
  BLS12_G2_MSM_MAX_INPUT_ISTHMUS,
  BLS12_G2_MSM_MAX_INPUT_JOVIAN,
  BLS12_PAIRING_MAX_INPUT_ISTHMUS,
  BLS12_PAIRING_MAX_INPUT_JOVIAN,
  BN254_PAIRING_MAX_INPUT_GRANITE,
  BN254_PAIRING_MAX_INPUT_JOVIAN,
  OpPrecompileError,
} from "../../../../../src/execution/op/precompiles.js";
import { ALL_FORK_CASES, AMPLE_GAS, Differential, ReferencePrecompiles, mainnetCommon, opCommon, type ForkCase } from "./reference.js";

/** Addresses that never hold a precompile (around the real ones). */
const UNKNOWN = [0, 0x12, 0x13, 0x20, 0xff, 0x101, 0x1ff, 0x200, 0x10000, -1, 0.5, Number.MAX_SAFE_INTEGER];

/** Forks before the differential ones, to check the activation of each address. */
const EARLIER_FORKS: readonly ForkCase[] = [
  ...[Hardfork.Chainstart, Hardfork.Homestead, Hardfork.Byzantium, Hardfork.Petersburg, Hardfork.Istanbul, Hardfork.Berlin, Hardfork.London, Hardfork.Paris, Hardfork.Shanghai].map(
    (hf): ForkCase => ({ label: hf, common: () => mainnetCommon(hf), opFork: undefined }),
  ),
  ...[OpFork.bedrock, OpFork.canyon, OpFork.ecotone].map(
    (f): ForkCase => ({
      label: `op-${OP_FORK_NAMES[f]}`,
      common: () => {
        const c = opCommon(OpFork.fjord);
        c.setHardfork(f === OpFork.bedrock ? Hardfork.Paris : f === OpFork.canyon ? Hardfork.Shanghai : Hardfork.Cancun);
        return c;
      },
      opFork: f,
    }),
  ),
];

describe("precompilesFor: addresses", () => {
  for (const fork of [...EARLIER_FORKS, ...ALL_FORK_CASES]) {
    it(`${fork.label}: the reference's addresses, sorted, each with a precompile; unknown addresses undefined`, async () => {
      const reference = await ReferencePrecompiles.create(fork.common(), fork.opFork);
      const set = precompilesFor(fork.common(), fork.opFork);
      expect(set.addresses).toEqual(reference.addresses());
      expect([...set.addresses].sort((a, b) => a - b)).toEqual(set.addresses);
      for (const a of set.addresses) expect(set.get(a)).toBeTypeOf("function");
      for (let a = 0; a <= 0x300; a++) expect(set.get(a) !== undefined, `0x${a.toString(16)}`).toBe(reference.has(a));
      for (const a of UNKNOWN) expect(set.get(a)).toBeUndefined();
    });
  }

  it("has the expected addresses at the forks that change them", () => {
    const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    expect(precompilesFor(mainnetCommon(Hardfork.Cancun)).addresses).toEqual(range(1, 0x0a));
    expect(precompilesFor(mainnetCommon(Hardfork.Prague)).addresses).toEqual(range(1, 0x11));
    expect(precompilesFor(mainnetCommon(Hardfork.Osaka)).addresses).toEqual([...range(1, 0x11), 0x100]);
    expect(precompilesFor(opCommon(OpFork.fjord), OpFork.fjord).addresses).toEqual([...range(1, 0x0a), 0x100]);
    expect(precompilesFor(opCommon(OpFork.isthmus), OpFork.isthmus).addresses).toEqual([...range(1, 0x11), 0x100]);
  });
});

describe("precompilesFor: caching", () => {
  it("returns the same set for the same hardfork and OP fork, from any Common instance", () => {
    const a = precompilesFor(mainnetCommon(Hardfork.Prague));
    expect(precompilesFor(mainnetCommon(Hardfork.Prague))).toBe(a);
    expect(precompilesFor(mainnetCommon(Hardfork.Osaka))).not.toBe(a);
    expect(precompilesFor(opCommon(OpFork.isthmus), OpFork.isthmus)).not.toBe(precompilesFor(opCommon(OpFork.jovian), OpFork.jovian));
    expect(precompilesFor(opCommon(OpFork.isthmus), OpFork.isthmus)).toBe(precompilesFor(opCommon(OpFork.isthmus), OpFork.isthmus));
  });

  it("follows a Common whose hardfork changes", () => {
    const common = mainnetCommon(Hardfork.Cancun);
    expect(precompilesFor(common).get(0x0b)).toBeUndefined();
    common.setHardfork(Hardfork.Prague);
    expect(precompilesFor(common).get(0x0b)).toBeTypeOf("function");
  });

  it("keeps sets apart for Commons with and without KZG", () => {
    const withKzg = precompilesFor(mainnetCommon(Hardfork.Cancun));
    const noKzg = precompilesFor(new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }));
    expect(noKzg).not.toBe(withKzg);
    // Without KZG the point evaluation fails (the reference throws "kzg not initialized").
    const input = new Uint8Array(192);
    expect(noKzg.get(0x0a)!(input, AMPLE_GAS)).toEqual({ ok: false, gasUsed: AMPLE_GAS, output: new Uint8Array(0) });
  });

  it("prices the same from a Common that already carries @ethereumjs/evm's parameters", async () => {
    const common = mainnetCommon(Hardfork.Osaka);
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Osaka, customCrypto: customCrypto(), eips: [] }) });
    const withParams = evm.common;
    expect(() => common.param("ecRecoverGas")).toThrow();
    expect(withParams.param("ecRecoverGas")).toBe(3000n);
    const a = precompilesFor(common);
    const b = precompilesFor(withParams);
    expect(b).toBe(a); // same key, same set
  });

  it("does not add @ethereumjs/evm's parameters to the caller's Common", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Berlin, customCrypto: customCrypto() });
    precompilesFor(common);
    // A rebuild of the Common's parameter cache (any hardfork change) would expose added parameters.
    common.setHardfork(Hardfork.London);
    expect(() => common.param("ecRecoverGas")).toThrow();
  });
});

describe("precompilesFor: OP rules", () => {
  it("throws OpPrecompileError when an OP fork caps a precompile the Common lacks (as opPrecompiles does)", () => {
    const cancun = opCommon(OpFork.fjord);
    expect(() => precompilesFor(cancun, OpFork.isthmus)).toThrow(OpPrecompileError);
    const paris = opCommon(OpFork.fjord);
    paris.setHardfork(Hardfork.Petersburg);
    expect(precompilesFor(paris, OpFork.granite).get(0x08)).toBeTypeOf("function");
  });

  /** Inputs above each cap that succeed without it: infinity points (skipped or zero) keep them cheap. */
  const capCases: { address: number; item: number; caps: Partial<Record<OpFork, number>> }[] = [
    { address: 0x08, item: 192, caps: { [OpFork.granite]: BN254_PAIRING_MAX_INPUT_GRANITE, [OpFork.jovian]: BN254_PAIRING_MAX_INPUT_JOVIAN } },
    { address: 0x0c, item: 160, caps: { [OpFork.isthmus]: BLS12_G1_MSM_MAX_INPUT_ISTHMUS, [OpFork.jovian]: BLS12_G1_MSM_MAX_INPUT_JOVIAN } },
    { address: 0x0e, item: 288, caps: { [OpFork.isthmus]: BLS12_G2_MSM_MAX_INPUT_ISTHMUS, [OpFork.jovian]: BLS12_G2_MSM_MAX_INPUT_JOVIAN } },
    { address: 0x0f, item: 384, caps: { [OpFork.isthmus]: BLS12_PAIRING_MAX_INPUT_ISTHMUS, [OpFork.jovian]: BLS12_PAIRING_MAX_INPUT_JOVIAN } },
  ];

  for (const fork of ALL_FORK_CASES) {
    it(`${fork.label}: inputs at and around every cap match the reference`, async () => {
      const d = await Differential.create(fork);
      for (const { address, item, caps } of capCases) {
        if (!d.reference.has(address)) continue;
        for (const cap of Object.values(caps)) {
          const below = Math.floor(cap / item) * item;
          for (const length of [below, below + item, cap, cap + 1]) {
            await d.expectSame(address, new Uint8Array(length), AMPLE_GAS, `zeros × ${length}`);
          }
        }
      }
    });
  }

  it("an input above the cap fails even when it would succeed without it", () => {
    const jovian = precompilesFor(opCommon(OpFork.jovian), OpFork.jovian);
    const prague = precompilesFor(mainnetCommon(Hardfork.Prague));
    const over = new Uint8Array((Math.floor(BLS12_PAIRING_MAX_INPUT_JOVIAN / 384) + 1) * 384);
    expect(prague.get(0x0f)!(over, AMPLE_GAS).ok).toBe(true);
    expect(jovian.get(0x0f)!(over, AMPLE_GAS)).toEqual({ ok: false, gasUsed: AMPLE_GAS, output: new Uint8Array(0) });
  });
});
