/**
 * B-20 tokens and the factory under the EVM's prices (`EVM_SCHEDULE`, EIP-2929 cold/warm,
 * EIP-2200/3529): the metering of a transfer in base/base's access order, the marker code's
 * CREATE charge, V2's metered permit, and bad input — malformed calldata, unknown selectors,
 * short input, static calls, DELEGATECALL, value, uninitialized tokens, re-entry through
 * `initCalls`, out of gas at each metered step, and policy ids that do not exist.
 */
import { KECCAK256_NULL } from "@ethereumjs/util";
import { PrecompileFatalError } from "../../../../src/execution/base/errors.js";
import { describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import { encodeCall, encodeParams, selectorOf, type AbiValue } from "../../../../src/execution/base/abi.js";
import { ActivationSelectors, B20_ASSET_FEATURE, B20_STABLECOIN_FEATURE, activationAdminConfigFor, activationRegistryHandler } from "../../../../src/execution/base/activation/index.js";
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, POLICY_REGISTRY_ADDRESS } from "../../../../src/execution/base/addresses.js";
import { B20_MARKER_CODE_HASH, B20PolicyScope, B20Role, B20Variant, b20AddressPreimage, b20TokenAddress, b20TokenHandler, b20VariantOf, hasB20Prefix } from "../../../../src/execution/base/b20/index.js";
import { CoreSlot } from "../../../../src/execution/base/b20/storage.js";
import { b20FactoryHandler } from "../../../../src/execution/base/factory/index.js";
import { FREE_STORAGE_SCHEDULE } from "../../../../src/execution/base/gas.js";
import { DELEGATE_CALL_NOT_ALLOWED, type BasePrecompileHandler, type BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import { makePolicyId, PolicyType, policyRegistryHandler } from "../../../../src/execution/base/policy/index.js";
import { mappingSlotOfAddress } from "../../../../src/execution/base/slots.js";
import { keccak256 } from "../../../../src/util/keccak.js";
import { AccessTrackingHost } from "../../../helpers/baseMemoryHost.js";
import { callEnv, runFrame, type CallOpts } from "../../../helpers/basePrecompileCall.js";

const a = (byte: number): Uint8Array => new Uint8Array(20).fill(byte);
const ADMIN = a(0xad);
const ALICE = a(0xa1);
const BOB = a(0xb0);
const ACTIVATION_ADMIN = a(0xcb);
const SALT = new Uint8Array(32).fill(0x51);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const call = (sig: string, types: string[], values: AbiValue[]): Uint8Array => encodeCall(selectorOf(sig), types, values);
const word = (x: bigint): Uint8Array => encodeParams(["uint256"], [x]);

/** EVM prices the expectations below are written in. */
const G = { warm: 100, coldSload: 2100, coldAccount: 2600, set: 20_000, reset: 2900, coldSstore: 2100, log: 375, topic: 375, byte: 8, create: 32_000, deposit: 200, keccak: 30, keccakWord: 6 } as const;

/** An in-memory chain of calls into the Base precompiles, priced like the EVM, each call a journaled frame. */
class World {
  readonly host = new AccessTrackingHost();
  constructor(readonly fork: OpFork = OpFork.beryl) {}

  handler(to: Uint8Array): BasePrecompileHandler {
    if (hex(to) === hex(B20_FACTORY_ADDRESS)) return b20FactoryHandler;
    if (hex(to) === hex(POLICY_REGISTRY_ADDRESS)) return policyRegistryHandler;
    if (hex(to) === hex(ACTIVATION_REGISTRY_ADDRESS)) return activationRegistryHandler(activationAdminConfigFor(this.fork, ACTIVATION_ADMIN));
    return b20TokenHandler;
  }

  call(to: Uint8Array, input: Uint8Array, o: CallOpts = {}): BasePrecompileOutcome {
    // The EVM warms the call's target before running it.
    this.host.warmAccount(to);
    return runFrame(this.host, this.handler(to), input, callEnv(to, { fork: this.fork, gasLimit: 30_000_000, ...o }, ADMIN), o);
  }

  ok(to: Uint8Array, input: Uint8Array, o: CallOpts = {}): Uint8Array {
    const out = this.call(to, input, o);
    if (out.status !== "success") throw new Error(`call failed: ${out.status} ${out.status === "halt" ? out.error.message : hex(out.output)}`);
    return out.output;
  }

  activateAll(): void {
    for (const f of [B20_ASSET_FEATURE, B20_STABLECOIN_FEATURE]) {
      const input = new Uint8Array(36);
      input.set(ActivationSelectors.activate);
      input.set(f, 4);
      this.ok(ACTIVATION_REGISTRY_ADDRESS, input, { caller: ACTIVATION_ADMIN });
    }
  }
}

function assetParams(admin: Uint8Array, decimals = 6n): Uint8Array {
  return encodeParams(["(uint8,string,string,address,uint8)"], [[1n, "Base Asset", "bASSET", admin, decimals]]);
}

function stablecoinParams(admin: Uint8Array, currency: string): Uint8Array {
  return encodeParams(["(uint8,string,string,address,string)"], [[1n, "Base Dollar", "bUSD", admin, currency]]);
}

function createCall(variant: number, params: Uint8Array, initCalls: Uint8Array[] = [], salt = SALT): Uint8Array {
  return call("createB20(uint8,bytes32,bytes,bytes[])", ["uint8", "bytes32", "bytes", "bytes[]"], [BigInt(variant), salt, params, initCalls]);
}

const grantRole = (role: bigint, who: Uint8Array): Uint8Array => call("grantRole(bytes32,address)", ["uint256", "address"], [role, who]);
const mint = (to: Uint8Array, amount: bigint): Uint8Array => call("mint(address,uint256)", ["address", "uint256"], [to, amount]);
const transfer = (to: Uint8Array, amount: bigint): Uint8Array => call("transfer(address,uint256)", ["address", "uint256"], [to, amount]);
const balanceOf = (who: Uint8Array): Uint8Array => call("balanceOf(address)", ["address"], [who]);

/** A world with an asset token created by ADMIN (admin ADMIN, MINT_ROLE via an init call) and 100 minted to ALICE, in a finished transaction. */
function assetWorld(fork: OpFork = OpFork.beryl): { w: World; token: Uint8Array } {
  const w = new World(fork);
  w.activateAll();
  const out = w.ok(B20_FACTORY_ADDRESS, createCall(B20Variant.asset, assetParams(ADMIN), [grantRole(B20Role.mint, ADMIN)]));
  const token = out.subarray(12);
  w.ok(token, mint(ALICE, 100n));
  w.host.endTransaction();
  return { w, token };
}

/** A transfer's calldata charge: 4 + 2×32 bytes → 3 words × 6. */
const TRANSFER_CALLDATA = 3 * 6;
/** `Transfer(address indexed, address indexed, uint256)`: LOG3 with one data word. */
const TRANSFER_LOG = G.log + 3 * G.topic + 32 * G.byte;

describe("B-20 transfer metering (EVM prices)", () => {
  it("V1: calldata, the token's account, then paused, sender-policy word, receiver-policy word (warm), balances — cold reads, a reset and a set, then the log", () => {
    const { w, token } = assetWorld(OpFork.beryl);
    const out = w.call(token, transfer(BOB, 30n), { caller: ALICE });
    expect(out.status).toBe("success");
    const expected =
      TRANSFER_CALLDATA +
      G.warm + // the token's own account (the call target) for the initialization check
      G.coldSload + // paused
      G.coldSload + // transfer-policy word, sender lane (policy 0 is the built-in ALWAYS_ALLOW: no registry read)
      G.warm + // the same word again for the receiver lane
      G.coldSload + // balances[ALICE]
      G.reset + // 100 → 70 (warm after the read)
      G.coldSload + // balances[BOB]
      G.set + // 0 → 30
      TRANSFER_LOG;
    expect(out.gasUsed).toBe(expected);
    expect(hex(w.ok(token, balanceOf(BOB)))).toBe(hex(word(30n)));
  });

  it("V2: one load of the transfer-policy word serves both lanes", () => {
    const { w, token } = assetWorld(OpFork.cobalt);
    const out = w.call(token, transfer(BOB, 30n), { caller: ALICE });
    expect(out.status).toBe("success");
    expect(out.gasUsed).toBe(TRANSFER_CALLDATA + G.warm + 3 * G.coldSload + G.reset + G.coldSload + G.set + TRANSFER_LOG);
  });

  it("a second transfer in the same transaction is warm and dirty; emptying a balance earns the EIP-3529 clear refund", () => {
    const { w, token } = assetWorld(OpFork.beryl);
    w.ok(token, transfer(BOB, 30n), { caller: ALICE });
    const second = w.call(token, transfer(BOB, 70n), { caller: ALICE });
    expect(second.status).toBe("success");
    // All warm; ALICE 70 → 0 (original 100: dirty, 100 gas, refund 4,800 for clearing an originally non-zero slot), BOB 30 → 100 (dirty, 100).
    expect(second.gasUsed).toBe(TRANSFER_CALLDATA + G.warm + 3 * G.warm + G.warm + G.warm + G.warm + G.warm + TRANSFER_LOG);
    expect(second.status === "success" && second.refund).toBe(4800);
  });
});

describe("B20Factory metering (EVM prices)", () => {
  it("createB20 charges the metered address hash, the activation read, the token's cold account, and 200/byte + CREATE + the code hash for the marker", () => {
    const w = new World(OpFork.beryl);
    w.activateAll();
    w.host.endTransaction();
    const input = createCall(B20Variant.asset, assetParams(ADMIN));
    const out = w.call(B20_FACTORY_ADDRESS, input);
    expect(out.status).toBe("success");
    const token = b20TokenAddress(B20Variant.asset, keccak256(b20AddressPreimage(ADMIN, SALT)));
    expect(hex(w.host.account(token).codeHash)).toBe(hex(B20_MARKER_CODE_HASH));
    const createdLogData = encodeParams(["string", "string", "uint8", "bytes"], ["Base Asset", "bASSET", 6n, new Uint8Array(0)]);
    const expected =
      Math.ceil(input.length / 32) * 6 +
      (G.keccak + 2 * G.keccakWord) + // keccak256(abi.encode(caller, salt)): 64 bytes
      G.coldSload + // ActivationRegistry: features[base.b20_asset]
      G.coldAccount + // the token address: no code yet
      G.deposit * 1 + G.create + (G.keccak + G.keccakWord) + // the 0xef marker on an empty account
      4 * (G.coldSstore + G.set) + // name, symbol, supply cap, decimals
      (G.coldSstore + G.warm) + // multiplier written as 0 over 0
      (G.log + 3 * G.topic + createdLogData.length * G.byte) + // B20Created at the factory
      G.coldSload + G.set + // hasRole(DEFAULT_ADMIN, ADMIN), then set (warm)
      G.coldSload + G.set + // admin count 0 → 1
      (G.log + 4 * G.topic); // RoleGranted
    expect(out.gasUsed).toBe(expected);
  });

  it("a token address that already holds ether gets the marker without CREATE's 32,000 and the code hash", () => {
    const cost = (prefund: boolean): number => {
      const w = new World(OpFork.beryl);
      w.activateAll();
      const token = b20TokenAddress(B20Variant.asset, keccak256(b20AddressPreimage(ADMIN, SALT)));
      if (prefund) w.host.accounts.set(hex(token), { nonce: 0n, balance: 1n, code: new Uint8Array(0) });
      w.host.endTransaction();
      const out = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.asset, assetParams(ADMIN)));
      expect(out.status).toBe("success");
      return out.gasUsed;
    };
    expect(cost(false) - cost(true)).toBe(G.create + G.keccak + G.keccakWord);
  });
});

describe("B-20 permit metering", () => {
  const permitInput = (): Uint8Array => {
    // A signature by nobody: v = 27 and r = s = 1 recover some key that is not the owner.
    const one = new Uint8Array(32);
    one[31] = 1;
    return call("permit(address,address,uint256,uint256,uint8,bytes32,bytes32)", ["address", "address", "uint256", "uint256", "uint8", "bytes32", "bytes32"], [ALICE, BOB, 5n, (1n << 256n) - 1n, 27n, one, one]);
  };

  it("a stablecoin's V2 permit stays free, as at V1", () => {
    const w = new World(OpFork.cobalt);
    w.activateAll();
    const out = w.ok(B20_FACTORY_ADDRESS, createCall(B20Variant.stablecoin, stablecoinParams(ADMIN, "USD")));
    const token = out.subarray(12);
    const r = w.call(token, permitInput(), { caller: ALICE, schedule: FREE_STORAGE_SCHEDULE });
    expect(r.status === "revert" && hex(r.output).slice(0, 8)).toBe(hex(selectorOf("InvalidSigner(address,address)")));
    expect(r.gasUsed).toBe(Math.ceil(permitInput().length / 32) * 6);
  });

  it("V1 hashes and recovers for free; asset V2 meters five keccaks and 3,000 for the recovery", () => {
    const costs = [OpFork.beryl, OpFork.cobalt].map((fork) => {
      const { w, token } = assetWorld(fork);
      w.ok(token, balanceOf(ALICE));
      const out = w.call(token, permitInput(), { caller: ALICE, schedule: FREE_STORAGE_SCHEDULE });
      expect(out.status === "revert" && hex(out.output).slice(0, 8)).toBe(hex(selectorOf("InvalidSigner(address,address)")));
      return out.gasUsed;
    });
    const calldata = Math.ceil(permitInput().length / 32) * 6;
    expect(costs[0]).toBe(calldata);
    expect(costs[1]).toBe(calldata + 3000);
  });
});

describe("B-20 bad input", () => {
  it("an unknown selector reverts with the raw selector; input shorter than 4 bytes with 0x00000000", () => {
    const { w, token } = assetWorld();
    const unknown = w.call(token, Uint8Array.from([0xde, 0xad, 0xbe, 0xef, 1, 2]));
    expect(unknown.status === "revert" && hex(unknown.output)).toBe("deadbeef");
    const short = w.call(token, Uint8Array.from([0xa9, 0x05]));
    expect(short.status === "revert" && hex(short.output)).toBe("00000000");
    const empty = w.call(token, new Uint8Array(0));
    expect(empty.status === "revert" && hex(empty.output)).toBe("00000000");
  });

  it("malformed arguments revert AbiDecodeFailed: selector ‖ alloy's message (overrun, dirty address padding, an enum out of range)", () => {
    const { w, token } = assetWorld();
    const text = (out: BasePrecompileOutcome): string => (out.status === "revert" ? `${hex(out.output.subarray(0, 4))} ${Buffer.from(out.output.subarray(4)).toString("utf8")}` : out.status);
    expect(text(w.call(token, transfer(BOB, 1n).subarray(0, 36)))).toBe("a9059cbb ABI decoding failed: buffer overrun while deserializing");
    const dirty = transfer(BOB, 1n);
    dirty[4] = 1;
    expect(text(w.call(token, dirty))).toBe(`a9059cbb type check failed for "(address,uint256)" with data: ${hex(dirty.subarray(4))}`);
    const isPaused3 = call("isPaused(uint8)", ["uint8"], [3n]);
    expect(text(w.call(token, isPaused3))).toBe(`bc61e733 type check failed for "(uint8)" with data: ${hex(isPaused3.subarray(4))}`);
    // Cobalt adds PausableFeature.SEIZE = 3.
    const cobalt = assetWorld(OpFork.cobalt);
    expect(hex(cobalt.w.ok(cobalt.token, isPaused3))).toBe(hex(word(0n)));
  });

  it("the pre-rename SEIZE_HOLDER_POLICY() selector is unknown at V1 and V2; V2 answers SEIZE_EXEMPT_POLICY()", () => {
    for (const fork of [OpFork.beryl, OpFork.cobalt]) {
      const { w, token } = assetWorld(fork);
      const old = w.call(token, call("SEIZE_HOLDER_POLICY()", [], []));
      expect(old.status === "revert" && hex(old.output)).toBe("b279d311");
    }
    const { w, token } = assetWorld(OpFork.cobalt);
    expect(hex(w.ok(token, call("SEIZE_EXEMPT_POLICY()", [], [])))).toBe(hex(word(B20PolicyScope.seizeExempt)));
  });

  it("the factory's call enum refuses less than one argument word as a type-check failure naming IB20FactoryCalls", () => {
    const w = new World();
    const out = w.call(B20_FACTORY_ADDRESS, Uint8Array.from([0xfa, 0x19, 0xb9, 0x27]));
    expect(out.status).toBe("revert");
    expect(out.status === "revert" && Buffer.from(out.output).toString("latin1")).toBe(`${Buffer.from([0xfa, 0x19, 0xb9, 0x27]).toString("latin1")}type check failed for "IB20FactoryCalls" with data: fa19b927`);
    const unknown = w.call(B20_FACTORY_ADDRESS, Uint8Array.from([1, 2, 3, 4, 5]));
    expect(unknown.status === "revert" && hex(unknown.output)).toBe("01020304");
  });

  it("a variant out of the B20Variant enum is an ABI decoding failure, not InvalidVariant", () => {
    const w = new World();
    w.activateAll();
    const out = w.call(B20_FACTORY_ADDRESS, createCall(2, assetParams(ADMIN)));
    expect(out.status === "revert" && hex(out.output.subarray(0, 4))).toBe("62975e6a");
    expect(out.status === "revert" && Buffer.from(out.output.subarray(4)).toString("utf8")).toMatch(/^type check failed for "\(uint8,bytes32,bytes,bytes\[\]\)"/);
  });

  it("state changes in a static call revert with empty data and change nothing; reads work; Cobalt string writes refuse before reading", () => {
    const { w, token } = assetWorld(OpFork.beryl);
    const out = w.call(token, transfer(BOB, 1n), { caller: ALICE, isStatic: true });
    expect(out.status === "revert" && out.output.length).toBe(0);
    expect(hex(w.ok(token, balanceOf(ALICE), { isStatic: true }))).toBe(hex(word(100n)));
    const cobalt = assetWorld(OpFork.cobalt);
    cobalt.w.ok(cobalt.token, grantRole(B20Role.metadata, ADMIN));
    cobalt.w.host.endTransaction();
    const rename = call("updateName(string)", ["string"], ["Renamed"]);
    const before = cobalt.w.host.get(cobalt.token, CoreSlot.name);
    const r = cobalt.w.call(cobalt.token, rename, { isStatic: true });
    expect(r.status === "revert" && r.output.length).toBe(0);
    // Calldata + the token's account + hasRole(METADATA) — and no read of the name's length word.
    expect(r.gasUsed).toBe(Math.ceil(rename.length / 32) * 6 + G.warm + G.coldSload);
    expect(cobalt.w.host.get(cobalt.token, CoreSlot.name)).toBe(before);
  });

  it("createB20 in a static call reverts with empty data at the marker code, creating nothing", () => {
    const w = new World();
    w.activateAll();
    const out = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.asset, assetParams(ADMIN)), { isStatic: true });
    expect(out.status === "revert" && out.output.length).toBe(0);
    const token = b20TokenAddress(B20Variant.asset, keccak256(b20AddressPreimage(ADMIN, SALT)));
    expect(hex(w.host.account(token).codeHash)).toBe(hex(KECCAK256_NULL));
  });

  it("DELEGATECALL and CALLCODE revert DelegateCallNotAllowed() at no gas; value reverts NonPayable() before the calldata charge", () => {
    const { w, token } = assetWorld();
    const d = w.call(token, balanceOf(ALICE), { direct: false });
    expect(d.status === "revert" && hex(d.output)).toBe(hex(DELEGATE_CALL_NOT_ALLOWED));
    expect(d.gasUsed).toBe(0);
    const v = w.call(token, balanceOf(ALICE), { value: 1n });
    expect(v.status === "revert" && hex(v.output)).toBe(hex(selectorOf("NonPayable()")));
    expect(v.gasUsed).toBe(0);
    const f = w.call(B20_FACTORY_ADDRESS, createCall(0, assetParams(ADMIN)), { value: 1n });
    expect(f.status === "revert" && hex(f.output)).toBe(hex(selectorOf("NonPayable()")));
  });

  it("every 0xb2 address of a known variant is a token; one never created reverts empty after the calldata charge and its account read", () => {
    const w = new World();
    const nowhere = b20TokenAddress(B20Variant.stablecoin, new Uint8Array(32).fill(7));
    expect(b20VariantOf(nowhere)).toBe(B20Variant.stablecoin);
    const out = w.call(nowhere, balanceOf(ALICE));
    expect(out.status === "revert" && out.output.length).toBe(0);
    expect(out.gasUsed).toBe(2 * 6 + G.warm);
    const bad = new Uint8Array(nowhere);
    bad[10] = 2;
    expect(b20VariantOf(bad)).toBeUndefined();
    expect(hasB20Prefix(bad)).toBe(true);
    // No engine routes such an address to the token handler (the lookup refuses it); handed one anyway, it cannot execute.
    expect(() => w.call(bad, balanceOf(ALICE))).toThrow(PrecompileFatalError);
    // Before Beryl the entry reverts empty (the engine does not install it there).
    const pre = w.call(nowhere, balanceOf(ALICE), { fork: OpFork.azul });
    expect(pre.status === "revert" && pre.output.length).toBe(0);
  });
});

describe("B20Factory init calls", () => {
  it("an init call to createB20 (or any factory function) is an unknown token selector: InitCallFailed(index), nothing created", () => {
    const w = new World();
    w.activateAll();
    const inner = createCall(B20Variant.stablecoin, stablecoinParams(ADMIN, "USD"), [], new Uint8Array(32).fill(9));
    const out = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.asset, assetParams(ADMIN), [grantRole(B20Role.mint, ADMIN), inner]));
    expect(out.status === "revert" && hex(out.output)).toBe(hex(call("InitCallFailed(uint256)", ["uint256"], [1n])));
    const token = b20TokenAddress(B20Variant.asset, keccak256(b20AddressPreimage(ADMIN, SALT)));
    expect(hex(w.host.account(token).codeHash)).toBe(hex(KECCAK256_NULL));
    expect(w.host.logsOf(B20_FACTORY_ADDRESS)).toHaveLength(0);
    const getAddress = call("getB20Address(uint8,address,bytes32)", ["uint8", "address", "bytes32"], [0n, ADMIN, SALT]);
    const again = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.asset, assetParams(ADMIN), [getAddress]));
    expect(again.status === "revert" && hex(again.output)).toBe(hex(call("InitCallFailed(uint256)", ["uint256"], [0n])));
  });

  it("init calls run as the factory with privilege (roles skipped), and the initial admin is granted by the factory", () => {
    const w = new World();
    w.activateAll();
    const out = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.stablecoin, stablecoinParams(ADMIN, "EUR"), [mint(ALICE, 5n)]));
    expect(out.status).toBe("success");
    const token = (out.status === "success" ? out.output : new Uint8Array(32)).subarray(12);
    expect(hex(w.ok(token, balanceOf(ALICE)))).toBe(hex(word(5n)));
    const granted = w.host.logsOf(token)[0]!;
    expect(hex(granted.topics[3]!)).toBe(hex(encodeParams(["address"], [B20_FACTORY_ADDRESS])));
    const currency = w.ok(token, call("currency()", [], []));
    expect(Buffer.from(currency.subarray(64, 67)).toString()).toBe("EUR");
  });

  it("stablecoin currencies: empty is MissingRequiredField, off the ISO 4217 allowlist InvalidCurrency", () => {
    const w = new World();
    w.activateAll();
    const missing = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.stablecoin, stablecoinParams(ADMIN, "")));
    expect(missing.status === "revert" && hex(missing.output)).toBe(hex(call("MissingRequiredField(string)", ["string"], ["currency"])));
    for (const code of ["BTC", "XYZ", "usd", "USDD"]) {
      const bad = w.call(B20_FACTORY_ADDRESS, createCall(B20Variant.stablecoin, stablecoinParams(ADMIN, code)));
      expect(bad.status === "revert" && hex(bad.output)).toBe(hex(call("InvalidCurrency(string)", ["string"], [code])));
    }
  });
});

describe("out of gas", () => {
  it("every metered step halts when the gas runs out at it, using all the call's gas, and the caller's revert leaves no trace", () => {
    const { w, token } = assetWorld();
    const full = (() => {
      const probe = cloneWorld(w);
      const out = probe.call(token, transfer(BOB, 30n), { caller: ALICE });
      expect(out.status).toBe("success");
      return out.gasUsed;
    })();
    // Cumulative charges in order (see the metering test): each limit one below a boundary halts.
    const steps = [TRANSFER_CALLDATA, G.warm, G.coldSload, G.coldSload, G.warm, G.coldSload, G.reset, G.coldSload, G.set, TRANSFER_LOG];
    let cumulative = 0;
    const before = JSON.stringify([...w.host.storage.get(hex(token))!.entries()].map(([k, v]) => [k.toString(), v.toString()]));
    for (const step of steps) {
      cumulative += step;
      const probe = cloneWorld(w);
      const out = probe.call(token, transfer(BOB, 30n), { caller: ALICE, gasLimit: cumulative - 1 });
      expect(out.status, `limit ${cumulative - 1}`).toBe("halt");
      expect(out.gasUsed).toBe(cumulative - 1);
      expect(out.status === "halt" && out.reason).toBe("outOfGas");
      expect(JSON.stringify([...probe.host.storage.get(hex(token))!.entries()].map(([k, v]) => [k.toString(), v.toString()]))).toBe(before);
      expect(probe.host.logsOf(token).length).toBe(w.host.logsOf(token).length);
    }
    expect(cumulative).toBe(full);
  });

  it("an SSTORE with 2,300 gas or less left halts (EIP-2200 stipend) even when the write itself is affordable", () => {
    const { w, token } = assetWorld();
    w.ok(token, transfer(BOB, 1n), { caller: ALICE });
    // Everything warm now: calldata 18, account 100, four reads of 100 before the first (100-gas, dirty) write.
    const beforeFirstWrite = TRANSFER_CALLDATA + G.warm + 4 * G.warm;
    const out = w.call(token, transfer(BOB, 1n), { caller: ALICE, gasLimit: beforeFirstWrite + 2300 });
    expect(out.status === "halt" && out.reason).toBe("outOfGas");
    const ok = w.call(token, transfer(BOB, 1n), { caller: ALICE, gasLimit: beforeFirstWrite + 2301 + 100 + 100 + 100 + TRANSFER_LOG });
    expect(ok.status).toBe("success");
  });

  it("the factory halts out of gas at the marker code's CREATE charge, and nothing is created", () => {
    const w = new World();
    w.activateAll();
    w.host.endTransaction();
    const input = createCall(B20Variant.asset, assetParams(ADMIN));
    const beforeCode = Math.ceil(input.length / 32) * 6 + G.keccak + 2 * G.keccakWord + G.coldSload + G.coldAccount + G.deposit;
    const out = w.call(B20_FACTORY_ADDRESS, input, { gasLimit: beforeCode + G.create - 1 });
    expect(out.status === "halt" && out.reason).toBe("outOfGas");
    const token = b20TokenAddress(B20Variant.asset, keccak256(b20AddressPreimage(ADMIN, SALT)));
    expect(hex(w.host.account(token).codeHash)).toBe(hex(KECCAK256_NULL));
  });
});

describe("policies that do not exist", () => {
  const updatePolicy = (scope: bigint, id: bigint): Uint8Array => call("updatePolicy(bytes32,uint64)", ["uint256", "uint64"], [scope, id]);

  it("updatePolicy refuses an id the registry never created (PolicyNotFound); built-ins always exist", () => {
    const { w, token } = assetWorld();
    const ghost = makePolicyId(PolicyType.ALLOWLIST, 99n);
    const out = w.call(token, updatePolicy(B20PolicyScope.transferSender, ghost));
    expect(out.status === "revert" && hex(out.output)).toBe(hex(call("PolicyNotFound(uint64)", ["uint64"], [ghost])));
    expect(w.call(token, updatePolicy(B20PolicyScope.transferSender, (1n << 56n) | 1n)).status).toBe("success");
  });

  it("a guard over a never-created policy: an allowlist id authorizes nobody (PolicyForbids), a blocklist id blocks nobody", () => {
    const { w, token } = assetWorld();
    const slot = CoreSlot.transferPolicies;
    const allow = makePolicyId(PolicyType.ALLOWLIST, 77n);
    w.host.set(token, slot, allow);
    const denied = w.call(token, transfer(BOB, 1n), { caller: ALICE });
    expect(denied.status === "revert" && hex(denied.output)).toBe(hex(call("PolicyForbids(bytes32,uint64)", ["uint256", "uint64"], [B20PolicyScope.transferSender, allow])));
    w.host.set(token, slot, makePolicyId(PolicyType.BLOCKLIST, 78n) | (makePolicyId(PolicyType.BLOCKLIST, 78n) << 64n));
    expect(w.call(token, transfer(BOB, 1n), { caller: ALICE }).status).toBe("success");
    expect(w.host.get(token, mappingSlotOfAddress(BOB, CoreSlot.balances))).toBe(1n);
  });
});

/** A deep copy of a world's state (storage, accounts, logs), warm sets reset, for independent probes. */
function cloneWorld(w: World): World {
  const c = new World(w.fork);
  for (const [addr, slots] of w.host.storage) c.host.storage.set(addr, new Map(slots));
  for (const [addr, acc] of w.host.accounts) c.host.accounts.set(addr, { ...acc });
  c.host.logs.push(...w.host.logs);
  c.host.endTransaction();
  return c;
}
