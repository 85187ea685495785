/**
 * Every case of b20_factory_v1_golden.json (base/base `tests/b20_factory_v1_golden.rs`
 * @408548f1): the factory's full dispatch over one in-memory state with the ActivationRegistry
 * (features switched on by the static admin unless the case says otherwise) and the real
 * PolicyRegistry, created tokens read back through their own dispatch, the README's storage hash
 * over the factory and the created token, and the storage-access footprints.
 */
import { afterAll, describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import { activationAdminConfigFor, activationRegistryHandler, ActivationSelectors, B20_ASSET_FEATURE, B20_STABLECOIN_FEATURE } from "../../../../src/execution/base/activation/index.js";
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, POLICY_REGISTRY_ADDRESS } from "../../../../src/execution/base/addresses.js";
import { b20TokenHandler } from "../../../../src/execution/base/b20/index.js";
import { B20Variant } from "../../../../src/execution/base/b20/address.js";
import { BaseCallContext } from "../../../../src/execution/base/context.js";
import { b20FactoryHandler } from "../../../../src/execution/base/factory/index.js";
import { FREE_STORAGE_SCHEDULE } from "../../../../src/execution/base/gas.js";
import { outcomeOf, type BasePrecompileHandler, type BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import { policyRegistryHandler } from "../../../../src/execution/base/policy/index.js";
import { B20Token } from "../../../../src/execution/base/b20/token.js";
import { RecordingHost, addr, bytes, callEnv, checkExpect, forkOf, hex, loadGolden, newTally, storageHash, type Json } from "./b20GoldenHarness.js";

const FILE = "b20_factory_v1_golden.json";
const golden = loadGolden(FILE);
const ACTIVATION_ADMIN = addr((golden.harness.accounts as Json).ACTIVATION_ADMIN as string);

/** One factory golden case's world: the host, the fork, and calls by address. */
class FactoryWorld {
  readonly host = new RecordingHost();

  constructor(readonly fork: OpFork) {}

  call(to: Uint8Array, caller: Uint8Array, input: Uint8Array, fork: OpFork, value = 0n): { outcome: BasePrecompileOutcome; ctx: BaseCallContext } {
    const ctx = new BaseCallContext(this.host, callEnv({ caller, address: to, value, fork, timestamp: 0n }), FREE_STORAGE_SCHEDULE);
    const handler = handlerAt(to, fork);
    const cp = this.host.checkpoint();
    const outcome = outcomeOf(ctx, () => handler(ctx, input));
    if (outcome.status === "success") this.host.commit(cp);
    else this.host.revert(cp);
    return { outcome, ctx };
  }

  /** `ActivationRegistry.activate(feature)` by `by` (the static admin's fallback; state-backed from Cobalt). */
  activate(feature: Uint8Array, by: Uint8Array, fork: OpFork): void {
    const input = new Uint8Array(36);
    input.set(ActivationSelectors.activate);
    input.set(feature, 4);
    const { outcome } = this.call(ACTIVATION_REGISTRY_ADDRESS, by, input, fork);
    if (outcome.status !== "success") throw new Error(`activation failed: ${outcome.status}`);
  }
}

function handlerAt(to: Uint8Array, fork: OpFork): BasePrecompileHandler {
  const key = hex(to);
  if (key === hex(B20_FACTORY_ADDRESS)) return b20FactoryHandler;
  if (key === hex(POLICY_REGISTRY_ADDRESS)) return policyRegistryHandler;
  if (key === hex(ACTIVATION_REGISTRY_ADDRESS)) return activationRegistryHandler(activationAdminConfigFor(fork, ACTIVATION_ADMIN));
  return b20TokenHandler;
}

/** `fresh()`: both token variants activated by the activation admin (unless `activated: false`). */
function freshWorld(c: Json): FactoryWorld {
  const fork = c.fork !== undefined ? forkOf(c.fork as string) : OpFork.beryl;
  const w = new FactoryWorld(fork);
  if (c.activated !== false) for (const f of [B20_STABLECOIN_FEATURE, B20_ASSET_FEATURE]) w.activate(f, ACTIVATION_ADMIN, OpFork.beryl);
  return w;
}

const tally = newTally();

describe(FILE, () => {
  afterAll(() => console.log(`${FILE}: ${JSON.stringify(tally)}`));

  for (const c of golden.cases) {
    it(c.name as string, () => {
      const failures: string[] = [];
      tally.cases++;
      if (c.kind === "versionMap") {
        // The factory is V1 from Beryl (and still at Cobalt); nothing before.
        const expect = c.expect as Record<string, string | null>;
        for (const [fork, v] of Object.entries(expect)) if ((forkOf(fork) >= OpFork.beryl ? "V1" : null) !== v) failures.push(`version at ${fork}`);
        const w = new FactoryWorld(OpFork.azul);
        const { outcome } = w.call(B20_FACTORY_ADDRESS, addr(null), bytes("0xfa19b927000000000000000000000000b2000000000000000000007dd798cc301b7c6284"), OpFork.azul);
        if (outcome.status !== "revert" || outcome.output.length !== 0) failures.push("the factory answers before Beryl");
      } else if (c.kind === "storageAccessFootprint") {
        for (const fp of c.footprints as Json[]) {
          tally.footprints++;
          const w = freshWorld(c);
          const { outcome, ctx } = w.call(B20_FACTORY_ADDRESS, addr(fp.caller as string), bytes(fp.input as string), OpFork.beryl);
          const want = fp.expect as Record<string, number>;
          const got = ctx.counters;
          if (outcome.status !== "success") failures.push(`footprint ${fp.label as string}: ${outcome.status}`);
          else if (got.sload !== want.sload || got.sstore !== want.sstore || got.keccak256 !== want.keccak256) failures.push(`footprint ${fp.label as string}: (${got.sload},${got.sstore},${got.keccak256}) != (${want.sload},${want.sstore},${want.keccak256})`);
          else tally.footprintsPassed++;
        }
      } else {
        const w = freshWorld(c);
        for (const step of c.steps as Json[]) {
          const fork = step.fork !== undefined ? forkOf(step.fork as string) : w.fork;
          if (step.op === "activate") {
            w.activate(bytes(step.feature as string), addr(step.by as string), fork);
            continue;
          }
          tally.steps++;
          const { outcome } = w.call(addr(step.to as string), addr(step.caller as string | null), bytes(step.input as string), fork, BigInt((step.value as string | undefined) ?? "0"));
          const r = checkExpect(outcome, step.expect as Json);
          if (!r.ok) failures.push(`${step.fn as string}: ${r.detail!}`);
          else tally.stepsPassed++;
          if (step.returnsPolicyId !== undefined && outcome.status === "success" && BigInt(hex(outcome.output)) !== BigInt(step.returnsPolicyId as string)) failures.push(`policy id ${BigInt(hex(outcome.output))} != ${step.returnsPolicyId as string}`);
        }
        for (const entry of (c.state as Json[] | undefined) ?? []) {
          const token = addr(entry.token as string);
          if (entry.accessor === "decimals") {
            const ctx = new BaseCallContext(w.host, callEnv({ caller: addr(null), address: token, fork: w.fork, timestamp: 0n }), FREE_STORAGE_SCHEDULE);
            const got = new B20Token(ctx, token, B20Variant.asset, 1, { isAuthorized: () => false, policyExists: () => false }, false).decimals();
            if (got !== Number(entry.value)) failures.push(`decimals ${got} != ${String(entry.value)}`);
            continue;
          }
          const { outcome } = w.call(token, addr(null), bytes(entry.input as string), w.fork);
          const got = outcome.status === "success" ? hex(outcome.output) : outcome.status;
          if (got !== (entry.output as string).toLowerCase()) failures.push(`state ${entry.view as string}: ${got} != ${entry.output as string}`);
        }
        const events = c.events as Json | undefined;
        if (events?.factoryLastEventTopic0 !== undefined) {
          const logs = w.host.logsOf(B20_FACTORY_ADDRESS);
          const last = logs.length === 0 ? "none" : hex(logs[logs.length - 1]!.topics[0]!);
          if (last !== (events.factoryLastEventTopic0 as string).toLowerCase()) failures.push(`factory last event ${last}`);
        }
        if (c.storageHash !== undefined) {
          tally.hashes++;
          const got = storageHash(w.host, (c.storageHashScope as string[]).map((a) => addr(a)), true);
          if (got !== (c.storageHash as string).toLowerCase()) failures.push(`storage hash ${got} != ${c.storageHash as string}`);
          else tally.hashesPassed++;
        }
      }
      if (failures.length === 0) tally.casesPassed++;
      expect(failures).toEqual([]);
    });
  }
});
