/**
 * The ActivationRegistry precompile (`0x8453…0001`): Beryl's static admin, Cobalt's state-backed
 * admin (`setAdmin`), every custom error, the selector/short-input rules of base/base's
 * `decode_precompile_call!`, and the metered feature read the PolicyRegistry and factory use.
 */
import { describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import { encodeCall, eventTopic, selectorOf } from "../../../../src/execution/base/abi.js";
import {
  ACTIVATION_ADMIN_SLOT,
  ACTIVATION_FEATURES_SLOT,
  ACTIVATION_REGISTRY_ROOT,
  B20_ASSET_FEATURE,
  B20_STABLECOIN_FEATURE,
  BASE_MAINNET_ACTIVATION_ADMIN,
  BASE_SEPOLIA_ACTIVATION_ADMIN,
  POLICY_REGISTRY_FEATURE,
  activationAdminConfigFor,
  activationRegistryHandler,
  ensureFeatureActivated,
  isFeatureActivated,
  stateBackedActivationAdmin,
  staticActivationAdmin,
  type ActivationAdminConfig,
} from "../../../../src/execution/base/activation/index.js";
import { ACTIVATION_REGISTRY_ADDRESS } from "../../../../src/execution/base/addresses.js";
import { BaseCallContext } from "../../../../src/execution/base/context.js";
import { EVM_SCHEDULE, FREE_STORAGE_SCHEDULE, type BaseGasSchedule } from "../../../../src/execution/base/gas.js";
import { DELEGATE_CALL_NOT_ALLOWED, outcomeOf, type BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import { mappingSlotOfBytes32 } from "../../../../src/execution/base/slots.js";
import { MemoryBaseHost } from "../../../helpers/baseMemoryHost.js";
import { addr, callEnv, expectReturn, expectRevertData, hex, runFrame, type CallOpts } from "../../../helpers/basePrecompileCall.js";

const ADMIN = addr(0xcb);
const NEW_ADMIN = addr(0xcd);
const OUTSIDER = addr(0x0f);
const FEATURE = POLICY_REGISTRY_FEATURE;

const call = (signature: string, types: string[] = [], values: (Uint8Array | bigint)[] = []): Uint8Array => encodeCall(selectorOf(signature), types, values);
const activate = (f = FEATURE) => call("activate(bytes32)", ["bytes32"], [f]);
const deactivate = (f = FEATURE) => call("deactivate(bytes32)", ["bytes32"], [f]);
const isActivated = (f = FEATURE) => call("isActivated(bytes32)", ["bytes32"], [f]);
const checkActivated = (f = FEATURE) => call("checkActivated(bytes32)", ["bytes32"], [f]);
const admin = () => call("admin()");
const setAdmin = (a: Uint8Array) => call("setAdmin(address)", ["address"], [a]);
const errorData = (signature: string, types: string[] = [], values: (Uint8Array | bigint)[] = []) => hex(call(signature, types, values));
const word = (a: Uint8Array) => `0x${"00".repeat(12)}${Buffer.from(a).toString("hex")}`;

/** One call frame at the registry (static-call and fork defaults as the tests need; free storage unless `o.schedule`). */
function run(host: MemoryBaseHost, config: ActivationAdminConfig, input: Uint8Array, o: CallOpts = {}): BasePrecompileOutcome {
  return runFrame(host, activationRegistryHandler(config), input, callEnv(ACTIVATION_REGISTRY_ADDRESS, o, ADMIN), { schedule: FREE_STORAGE_SCHEDULE, ...o });
}

const expectOk = (out: BasePrecompileOutcome, output = "0x"): void => void expectReturn(out, output);
const expectRevert = expectRevertData;

const BERYL = staticActivationAdmin(ADMIN);
const COBALT = stateBackedActivationAdmin(ADMIN);
const featureSlot = (f: Uint8Array) => mappingSlotOfBytes32(f, ACTIVATION_FEATURES_SLOT);

describe("ActivationRegistry constants", () => {
  it("feature ids are keccak256 of their names, the asset id being base.b20_asset (not the pre-release base.b20_security)", () => {
    expect(hex(POLICY_REGISTRY_FEATURE)).toBe("0xb582ebae03f16fee49a6763f78df482fb11ae73f103ed0d330bbe556aa90a43f");
    expect(hex(B20_STABLECOIN_FEATURE)).toBe("0xecfa0def2c10020caaf65e6155aa69c84b24892aaef76eeac52e0e2b3a0b8601");
    expect(hex(B20_ASSET_FEATURE)).toBe("0xcdcc772fe4cbdb1029f822861176d09e646db96723d4c1e82ddfdeb8163ef54c");
  });

  it("storage sits at the ERC-7201 root of base.activation_registry, features at +0 and the stored admin at +1", () => {
    expect(ACTIVATION_REGISTRY_ROOT).toBe(0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00n);
    expect(ACTIVATION_FEATURES_SLOT).toBe(ACTIVATION_REGISTRY_ROOT);
    expect(ACTIVATION_ADMIN_SLOT).toBe(ACTIVATION_REGISTRY_ROOT + 1n);
  });

  it("chain admins are base/base config.rs's, and the configuration is state-backed from Cobalt", () => {
    expect(hex(BASE_MAINNET_ACTIVATION_ADMIN)).toBe("0xce3a3bee7e72e2a24079f3c0cb3b97740ed425a9");
    expect(hex(BASE_SEPOLIA_ACTIVATION_ADMIN)).toBe("0x5f43072722f59964d886cbb507f6a85ca0759d42");
    expect(activationAdminConfigFor(OpFork.beryl, ADMIN)).toEqual(BERYL);
    expect(activationAdminConfigFor(OpFork.cobalt, ADMIN)).toEqual(COBALT);
  });
});

describe("ActivationRegistry at Beryl (static admin)", () => {
  it("admin() is the configured admin, or zero without one", () => {
    expectOk(run(new MemoryBaseHost(), BERYL, admin()), word(ADMIN));
    expectOk(run(new MemoryBaseHost(), staticActivationAdmin(undefined), admin()), word(addr(0)));
  });

  it("activate: writes the flag, the 0xef marker and FeatureActivated(feature, caller); isActivated/checkActivated see it", () => {
    const host = new MemoryBaseHost();
    expectOk(run(host, BERYL, isActivated()), `0x${"0".repeat(64)}`);
    expectRevert(run(host, BERYL, checkActivated()), errorData("FeatureNotActivated(bytes32)", ["bytes32"], [FEATURE]));
    expectOk(run(host, BERYL, activate()));
    expect(host.get(ACTIVATION_REGISTRY_ADDRESS, featureSlot(FEATURE))).toBe(1n);
    expect(hex(host.accounts.get(Buffer.from(ACTIVATION_REGISTRY_ADDRESS).toString("hex"))!.code)).toBe("0xef");
    const [log] = host.logsOf(ACTIVATION_REGISTRY_ADDRESS);
    expect(log!.topics.map(hex)).toEqual([hex(eventTopic("FeatureActivated(bytes32,address)")), hex(FEATURE), word(ADMIN)]);
    expect(log!.data.length).toBe(0);
    expectOk(run(host, BERYL, isActivated()), `0x${"0".repeat(63)}1`);
    expectOk(run(host, BERYL, checkActivated()));
  });

  it("activating twice reverts AlreadyActivated(feature); deactivating twice reverts FeatureNotActivated(feature)", () => {
    const host = new MemoryBaseHost();
    expectOk(run(host, BERYL, activate()));
    expectRevert(run(host, BERYL, activate()), errorData("AlreadyActivated(bytes32)", ["bytes32"], [FEATURE]));
    expectOk(run(host, BERYL, deactivate()));
    expect(host.get(ACTIVATION_REGISTRY_ADDRESS, featureSlot(FEATURE))).toBe(0n);
    expect(hex(host.logsOf(ACTIVATION_REGISTRY_ADDRESS)[1]!.topics[0]!)).toBe(hex(eventTopic("FeatureDeactivated(bytes32,address)")));
    expectRevert(run(host, BERYL, deactivate()), errorData("FeatureNotActivated(bytes32)", ["bytes32"], [FEATURE]));
    expect(host.logsOf(ACTIVATION_REGISTRY_ADDRESS)).toHaveLength(2);
  });

  it("a caller other than the admin, or any caller without a configured admin, reverts Unauthorized(caller)", () => {
    expectRevert(run(new MemoryBaseHost(), BERYL, activate(), { caller: OUTSIDER }), errorData("Unauthorized(address)", ["address"], [OUTSIDER]));
    expectRevert(run(new MemoryBaseHost(), BERYL, deactivate(), { caller: OUTSIDER }), errorData("Unauthorized(address)", ["address"], [OUTSIDER]));
    expectRevert(run(new MemoryBaseHost(), staticActivationAdmin(undefined), activate()), errorData("Unauthorized(address)", ["address"], [ADMIN]));
  });

  it("a state change inside a STATICCALL reverts StaticCallNotAllowed() (before the admin check)", () => {
    expectRevert(run(new MemoryBaseHost(), BERYL, activate(), { isStatic: true }), errorData("StaticCallNotAllowed()"));
    expectRevert(run(new MemoryBaseHost(), BERYL, deactivate(), { isStatic: true, caller: OUTSIDER }), errorData("StaticCallNotAllowed()"));
    expectOk(run(new MemoryBaseHost(), BERYL, isActivated(), { isStatic: true }), `0x${"0".repeat(64)}`);
  });

  it("setAdmin is an unknown selector (raw 4 bytes), with or without its argument", () => {
    const sel = hex(selectorOf("setAdmin(address)"));
    expectRevert(run(new MemoryBaseHost(), BERYL, setAdmin(NEW_ADMIN)), sel);
    expectRevert(run(new MemoryBaseHost(), BERYL, selectorOf("setAdmin(address)")), sel);
  });

  it("accepts attached value (Beryl replays live calls that carried ETH)", () => {
    expectOk(run(new MemoryBaseHost(), BERYL, isActivated(), { value: 1n }), `0x${"0".repeat(64)}`);
  });

  it("short or unknown calldata: <4 bytes → 0x00000000, a missing argument or an unknown selector → the raw selector", () => {
    expectRevert(run(new MemoryBaseHost(), BERYL, Uint8Array.of(0xba, 0x87)), "0x00000000");
    expectRevert(run(new MemoryBaseHost(), BERYL, isActivated().subarray(0, 20)), hex(selectorOf("isActivated(bytes32)")));
    expectRevert(run(new MemoryBaseHost(), BERYL, Uint8Array.of(0xde, 0xad, 0xbe, 0xef)), "0xdeadbeef");
  });

  it("a DELEGATECALL reverts DelegateCallNotAllowed() at no gas", () => {
    const out = run(new MemoryBaseHost(), BERYL, activate(), { direct: false, schedule: EVM_SCHEDULE });
    expect(out).toMatchObject({ status: "revert", gasUsed: 0 });
    expect(hex(out.status === "revert" ? out.output : new Uint8Array())).toBe(hex(DELEGATE_CALL_NOT_ALLOWED));
  });
});

describe("ActivationRegistry at Cobalt (state-backed admin, PR base/base#3489)", () => {
  const cobalt = { fork: OpFork.cobalt };

  it("setAdmin rotates the stored admin (slot root+1), emits AdminChanged(previous, new, caller), and the stored admin replaces the static one", () => {
    const host = new MemoryBaseHost();
    expectOk(run(host, COBALT, admin(), cobalt), word(ADMIN));
    expectOk(run(host, COBALT, setAdmin(NEW_ADMIN), cobalt));
    expect(host.get(ACTIVATION_REGISTRY_ADDRESS, ACTIVATION_ADMIN_SLOT)).toBe(BigInt(word(NEW_ADMIN)));
    const log = host.logsOf(ACTIVATION_REGISTRY_ADDRESS).at(-1)!;
    expect(log.topics.map(hex)).toEqual([hex(eventTopic("AdminChanged(address,address,address)")), word(ADMIN), word(NEW_ADMIN), word(ADMIN)]);
    expectOk(run(host, COBALT, admin(), cobalt), word(NEW_ADMIN));
    expectRevert(run(host, COBALT, activate(), cobalt), errorData("Unauthorized(address)", ["address"], [ADMIN]));
    expectOk(run(host, COBALT, activate(), { ...cobalt, caller: NEW_ADMIN }));
    // The same storage read through Beryl's configuration ignores the stored admin.
    expectOk(run(host, BERYL, admin()), word(ADMIN));
  });

  it("setAdmin errors: ZeroAdminAddress(), Unauthorized(caller), StaticCallNotAllowed(), AdminStorageNotEnabled() for a static configuration", () => {
    expectRevert(run(new MemoryBaseHost(), COBALT, setAdmin(addr(0)), cobalt), errorData("ZeroAdminAddress()"));
    expectRevert(run(new MemoryBaseHost(), COBALT, setAdmin(NEW_ADMIN), { ...cobalt, caller: OUTSIDER }), errorData("Unauthorized(address)", ["address"], [OUTSIDER]));
    expectRevert(run(new MemoryBaseHost(), COBALT, setAdmin(NEW_ADMIN), { ...cobalt, isStatic: true }), errorData("StaticCallNotAllowed()"));
    // Without a static admin nobody can set the first stored admin.
    expectRevert(run(new MemoryBaseHost(), stateBackedActivationAdmin(undefined), setAdmin(NEW_ADMIN), cobalt), errorData("Unauthorized(address)", ["address"], [ADMIN]));
  });

  it("attached value reverts NonPayable() before any gas is charged", () => {
    const out = run(new MemoryBaseHost(), COBALT, isActivated(), { ...cobalt, value: 1n, schedule: EVM_SCHEDULE });
    expectRevert(out, errorData("NonPayable()"));
    expect(out.gasUsed).toBe(0);
  });

  it("meters admin(): one SLOAD of the stored admin (cold 2,100) after the calldata charge (1 word = 6)", () => {
    const out = run(new MemoryBaseHost(), COBALT, admin(), { ...cobalt, schedule: EVM_SCHEDULE });
    expect(out.gasUsed).toBe(6 + 100); // MemoryBaseHost reports every slot warm
  });
});

describe("isFeatureActivated / ensureFeatureActivated (the write gate of the registries and the factory)", () => {
  function ctxOver(host: MemoryBaseHost, schedule: BaseGasSchedule): BaseCallContext {
    return new BaseCallContext(host, callEnv(ACTIVATION_REGISTRY_ADDRESS, {}, ADMIN), schedule);
  }

  it("is one metered SLOAD of features[feature]", () => {
    const host = new MemoryBaseHost();
    const ctx = ctxOver(host, EVM_SCHEDULE);
    expect(isFeatureActivated(ctx, FEATURE)).toBe(false);
    expect(ctx.counters).toEqual({ sload: 1, sstore: 0, keccak256: 0 });
    expect(ctx.gasUsed).toBe(100);
    host.set(ACTIVATION_REGISTRY_ADDRESS, featureSlot(FEATURE), 1n);
    expect(isFeatureActivated(ctx, FEATURE)).toBe(true);
  });

  it("ensureFeatureActivated reverts FeatureNotActivated(feature) when off", () => {
    const host = new MemoryBaseHost();
    const ctx = ctxOver(host, FREE_STORAGE_SCHEDULE);
    const out = outcomeOf(ctx, () => {
      ensureFeatureActivated(ctx, B20_ASSET_FEATURE);
      return new Uint8Array(0);
    });
    expectRevert(out, errorData("FeatureNotActivated(bytes32)", ["bytes32"], [B20_ASSET_FEATURE]));
  });
});
