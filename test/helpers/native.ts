/**
 * Which optional native capabilities a test may rely on. The addon (native/) is optional: without
 * a C compiler it is not built, and without Debian's `libsecp256k1-dev` it has no sender recovery;
 * basalt then uses its JavaScript (or npm binding) fallbacks. Tests of a native path run where the
 * capability is present, and must run where a test run demands it: `BASALT_REQUIRE_NATIVE` lists
 * the capabilities that must be there (`keccak256`, `secp256k1Recover`; comma-separated), which
 * CI's second pass sets after installing libsecp256k1, so a build that silently lost a capability
 * fails instead of skipping.
 */
import { nativeCapabilities, type NativeCapabilities } from "../../src/util/nativeAddon.js";

const required = new Set((process.env.BASALT_REQUIRE_NATIVE ?? "").split(",").map((s) => s.trim()).filter((s) => s !== ""));

/** Whether tests of `capability` run: the capability is present, or the run requires it (the tests then fail if it is missing). */
export function testsNative(capability: keyof NativeCapabilities): boolean {
  return nativeCapabilities()[capability] || required.has(capability);
}

/** Whether the addon has `capability` on this machine. */
export function hasNative(capability: keyof NativeCapabilities): boolean {
  return nativeCapabilities()[capability];
}
