/**
 * OP Stack changes to the precompiled contracts, as `customPrecompiles` for @ethereumjs/evm.
 *
 * An OP fork runs on the precompile set of its Ethereum fork (Bedrock/Regolith = Paris,
 * Canyon/Delta = Shanghai, Ecotone…Holocene = Cancun, Isthmus/Jovian = Prague, Base Azul = Osaka),
 * which @ethereumjs provides from the `Common`. On top of it (base/base
 * crates/execution/revm/src/precompiles.rs, `fjord()` … `base_v1()`; specs protocol/<fork>/exec-engine.md):
 * - Fjord adds RIP-7212 `P256VERIFY` at 0x100 (3,450 gas);
 * - Granite caps the `bn256Pairing` (0x08) input at 112,687 bytes;
 * - Isthmus caps the EIP-2537 BLS12-381 G1 MSM (0x0c), G2 MSM (0x0e) and pairing (0x0f) inputs;
 * - Jovian lowers all four caps;
 * - Base Azul ("Base V1") keeps the Jovian caps and prices `P256VERIFY` at EIP-7951's 6,900 gas
 *   (its Osaka MODEXP rules, EIP-7823/7883, come from @ethereumjs's Osaka `Common`).
 *
 * An input above a cap is a precompile failure: the call halts and consumes all the gas given to
 * it (op-revm returns a `PrecompileError`, op-geth a non-revert error; the Granite spec calls
 * this "reverts"). The list is fixed per fork: @ethereumjs reuses `customPrecompiles` when the
 * Common's hardfork changes, so build a new EVM (or VM) when the OP fork changes.
 */
import type { Common } from "@ethereumjs/common";
import { EVMError, getActivePrecompiles, type ExecResult, type PrecompileFunc, type PrecompileInput } from "@ethereumjs/evm";
import { bytesToBigInt, createAddressFromString, type Address } from "@ethereumjs/util";
import { p256 } from "@noble/curves/nist.js";
import { OP_FORK_NAMES, OpFork } from "../../chain/op/forks.js";
import { TypedError } from "../../util/errors.js";

/** `P256VERIFY` address: 0x100 (RIP-7212; OP specs protocol/precompiles.md; EIP-7951 keeps it). */
export const P256VERIFY_ADDRESS = "0x0000000000000000000000000000000000000100";
/** `bn256Pairing` / BN254 pairing check address (EIP-197). */
export const BN254_PAIRING_ADDRESS = "0x0000000000000000000000000000000000000008";
/** BLS12-381 G1 multi-scalar multiplication address (EIP-2537). */
export const BLS12_G1_MSM_ADDRESS = "0x000000000000000000000000000000000000000c";
/** BLS12-381 G2 multi-scalar multiplication address (EIP-2537). */
export const BLS12_G2_MSM_ADDRESS = "0x000000000000000000000000000000000000000e";
/** BLS12-381 pairing check address (EIP-2537). */
export const BLS12_PAIRING_ADDRESS = "0x000000000000000000000000000000000000000f";

/** `P256VERIFY` gas from Fjord to Jovian: RIP-7212's fixed 3,450 (revm `P256VERIFY_BASE_GAS_FEE`). */
export const P256VERIFY_GAS_FJORD = 3450n;
/** `P256VERIFY` gas from Base Azul on: EIP-7951's 6,900 (revm `P256VERIFY_BASE_GAS_FEE_OSAKA`, base/base `base_v1()`). */
export const P256VERIFY_GAS_AZUL = 6900n;
/** `P256VERIFY` input: message hash, r, s, public key x, public key y — five 32-byte words (RIP-7212). */
const P256VERIFY_INPUT_LENGTH = 160;

/** Granite `bn256Pairing` input cap, bytes: ≈ 20 M gas of pairings (specs granite/exec-engine.md; op-revm `GRANITE_MAX_INPUT_SIZE`). */
export const BN254_PAIRING_MAX_INPUT_GRANITE = 112_687;
/** Jovian `bn256Pairing` input cap, bytes: 427 pairs × 192 (specs jovian/exec-engine.md; op-revm `JOVIAN_MAX_INPUT_SIZE`). */
export const BN254_PAIRING_MAX_INPUT_JOVIAN = 81_984;
/** Isthmus BLS12-381 G1 MSM input cap, bytes: 3,211 pairs × 160 (specs isthmus/exec-engine.md; op-revm `ISTHMUS_G1_MSM_MAX_INPUT_SIZE`). */
export const BLS12_G1_MSM_MAX_INPUT_ISTHMUS = 513_760;
/** Jovian BLS12-381 G1 MSM input cap, bytes: 1,806 pairs × 160 (specs jovian/exec-engine.md; op-revm `JOVIAN_G1_MSM_MAX_INPUT_SIZE`). */
export const BLS12_G1_MSM_MAX_INPUT_JOVIAN = 288_960;
/** Isthmus BLS12-381 G2 MSM input cap, bytes: 1,696 pairs × 288 (specs isthmus/exec-engine.md; op-revm `ISTHMUS_G2_MSM_MAX_INPUT_SIZE`). */
export const BLS12_G2_MSM_MAX_INPUT_ISTHMUS = 488_448;
/** Jovian BLS12-381 G2 MSM input cap, bytes: 968 pairs × 288 (specs jovian/exec-engine.md; op-revm `JOVIAN_G2_MSM_MAX_INPUT_SIZE`). */
export const BLS12_G2_MSM_MAX_INPUT_JOVIAN = 278_784;
/** Isthmus BLS12-381 pairing input cap, bytes: 612 pairs × 384 (specs isthmus/exec-engine.md; op-revm `ISTHMUS_PAIRING_MAX_INPUT_SIZE`). */
export const BLS12_PAIRING_MAX_INPUT_ISTHMUS = 235_008;
/** Jovian BLS12-381 pairing input cap, bytes: 408 pairs × 384 (specs jovian/exec-engine.md; op-revm `JOVIAN_PAIRING_MAX_INPUT_SIZE`). */
export const BLS12_PAIRING_MAX_INPUT_JOVIAN = 156_672;

/** Order n of the P-256 base point (SEC 2 v2 §2.4.2 / FIPS 186-4 D.1.2.3): r and s must lie in [1, n). */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
/** Field prime p of P-256 (SEC 2 v2 §2.4.2): public-key coordinates must lie in [0, p). */
const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
/** SEC 1 tag of an uncompressed point (0x04 ‖ x ‖ y), the form the verifier is given the key in. */
const SEC1_UNCOMPRESSED_TAG = 0x04;

/** A custom precompile entry as `createEVM({ customPrecompiles })` takes it. */
export interface OpCustomPrecompile {
  address: Address;
  function: PrecompileFunc;
}

/** Stable code of {@link OpPrecompileError}. */
const OpPrecompileErrorCode = { PRECOMPILE_BUILTIN_MISSING: "OP_PRECOMPILE_BUILTIN_MISSING" } as const;
/** A {@link OpPrecompileError}'s code with its metadata. */
type OpPrecompileErrorType = { code: typeof OpPrecompileErrorCode.PRECOMPILE_BUILTIN_MISSING; fork: string; hardfork: string; address: string };

/** The OP fork needs an @ethereumjs built-in precompile that the given Common does not activate. */
export class OpPrecompileError extends TypedError<OpPrecompileErrorType> {
  constructor(fork: string, hardfork: string, address: string, needs: string) {
    super({ code: OpPrecompileErrorCode.PRECOMPILE_BUILTIN_MISSING, fork, hardfork, address }, `OP fork ${fork} changes the precompile at ${address}, but the Common (hardfork ${hardfork}) does not activate it; ` +
        `expected a Common at ${needs} or later`);
  }
}

/**
 * RIP-7212 / EIP-7951 secp256r1 signature check of a `P256VERIFY` input: true only for a
 * 160-byte `hash ‖ r ‖ s ‖ qx ‖ qy` with r, s in [1, n), qx, qy in [0, p), (qx, qy) on the curve
 * (so not the point at infinity) and a valid ECDSA signature of the 32-byte hash taken as is
 * (no pre-hashing; high s accepted, as in op-revm's `verify_impl`).
 */
export function p256Verify(input: Uint8Array): boolean {
  if (input.length !== P256VERIFY_INPUT_LENGTH) return false;
  const r = bytesToBigInt(input.subarray(32, 64));
  const s = bytesToBigInt(input.subarray(64, 96));
  if (r === 0n || r >= P256_N || s === 0n || s >= P256_N) return false;
  const qx = bytesToBigInt(input.subarray(96, 128));
  const qy = bytesToBigInt(input.subarray(128, 160));
  if (qx >= P256_P || qy >= P256_P) return false;
  const publicKey = new Uint8Array(65);
  publicKey[0] = SEC1_UNCOMPRESSED_TAG;
  publicKey.set(input.subarray(96, 160), 1);
  try {
    // noble rejects a key off the curve (point decoding) and returns false rather than throw for bad signatures.
    return p256.verify(input.subarray(32, 96), input.subarray(0, 32), publicKey, { prehash: false, lowS: false });
  } catch {
    return false;
  }
}

/** The failed-call result @ethereumjs uses for precompiles: empty output, all gas consumed, an exception. */
function failure(gasLimit: bigint, error: EVMError): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: gasLimit, exceptionError: error };
}

/**
 * The `P256VERIFY` precompile at a fixed gas cost (3,450 under RIP-7212, 6,900 under EIP-7951).
 * With less gas than the cost it fails out of gas; otherwise it always charges the cost and returns
 * the 32-byte word 1 for a valid signature and empty output for anything else (RIP-7212 "Output").
 */
function p256VerifyPrecompile(gasCost: bigint): PrecompileFunc {
  return (opts: PrecompileInput): ExecResult => {
    if (opts.gasLimit < gasCost) return failure(opts.gasLimit, new EVMError(EVMError.errorMessages.OUT_OF_GAS));
    if (!p256Verify(opts.data)) return { executionGasUsed: gasCost, returnValue: new Uint8Array(0) };
    const one = new Uint8Array(32);
    one[31] = 1;
    return { executionGasUsed: gasCost, returnValue: one };
  };
}

/**
 * Wraps a precompile so that an input longer than `maxInputSize` bytes fails before `inner` runs,
 * consuming all gas (op-revm `run_pair_granite` / `run_g1_msm_isthmus` …: size check, then the
 * Ethereum precompile). Inputs up to and including the cap go to `inner` unchanged.
 */
export function withInputSizeLimit(inner: PrecompileFunc, maxInputSize: number): PrecompileFunc {
  return (opts: PrecompileInput) => {
    if (opts.data.length > maxInputSize) return failure(opts.gasLimit, new EVMError(EVMError.errorMessages.INVALID_INPUT_LENGTH));
    return inner(opts);
  };
}

/** The input caps in force at `fork`, by precompile address (empty before Granite). */
export function opPrecompileInputLimits(fork: OpFork): { address: string; maxInputSize: number }[] {
  const limits: { address: string; maxInputSize: number }[] = [];
  if (fork >= OpFork.jovian) {
    limits.push(
      { address: BN254_PAIRING_ADDRESS, maxInputSize: BN254_PAIRING_MAX_INPUT_JOVIAN },
      { address: BLS12_G1_MSM_ADDRESS, maxInputSize: BLS12_G1_MSM_MAX_INPUT_JOVIAN },
      { address: BLS12_G2_MSM_ADDRESS, maxInputSize: BLS12_G2_MSM_MAX_INPUT_JOVIAN },
      { address: BLS12_PAIRING_ADDRESS, maxInputSize: BLS12_PAIRING_MAX_INPUT_JOVIAN },
    );
  } else if (fork >= OpFork.isthmus) {
    limits.push(
      { address: BN254_PAIRING_ADDRESS, maxInputSize: BN254_PAIRING_MAX_INPUT_GRANITE },
      { address: BLS12_G1_MSM_ADDRESS, maxInputSize: BLS12_G1_MSM_MAX_INPUT_ISTHMUS },
      { address: BLS12_G2_MSM_ADDRESS, maxInputSize: BLS12_G2_MSM_MAX_INPUT_ISTHMUS },
      { address: BLS12_PAIRING_ADDRESS, maxInputSize: BLS12_PAIRING_MAX_INPUT_ISTHMUS },
    );
  } else if (fork >= OpFork.granite) {
    limits.push({ address: BN254_PAIRING_ADDRESS, maxInputSize: BN254_PAIRING_MAX_INPUT_GRANITE });
  }
  return limits;
}

/** Which Ethereum fork first activates the built-in at `address` (for the mismatch error). */
function builtinIntroducedBy(address: string): string {
  return address === BN254_PAIRING_ADDRESS ? "byzantium" : "prague (EIP-2537)";
}

/**
 * The custom precompiles to pass to `createEVM` for a block at OP fork `fork`, whose Ethereum
 * rules are `common`: `P256VERIFY` from Fjord on (3,450 gas; 6,900 from Base Azul) and the
 * input-size-capped versions of @ethereumjs's own BN254/BLS12-381 precompiles from Granite,
 * Isthmus and Jovian on (base/base precompiles.rs `fjord()` … `base_v1()`). Empty before Fjord.
 * Throws {@link OpPrecompileError} when a capped precompile is not active in `common` (e.g. an
 * Isthmus block with a pre-Prague Common).
 */
export function opPrecompiles(fork: OpFork, common: Common): OpCustomPrecompile[] {
  if (fork < OpFork.fjord) return [];
  const out: OpCustomPrecompile[] = [
    {
      address: createAddressFromString(P256VERIFY_ADDRESS),
      function: p256VerifyPrecompile(fork >= OpFork.azul ? P256VERIFY_GAS_AZUL : P256VERIFY_GAS_FJORD),
    },
  ];
  const builtins = getActivePrecompiles(common);
  for (const { address, maxInputSize } of opPrecompileInputLimits(fork)) {
    const inner = builtins.get(address.slice(2));
    if (inner === undefined) throw new OpPrecompileError(OP_FORK_NAMES[fork], common.hardfork(), address, builtinIntroducedBy(address));
    out.push({ address: createAddressFromString(address), function: withInputSizeLimit(inner, maxInputSize) });
  }
  return out;
}
