/**
 * basalt's native addon (native/): its keccak256 equals @noble/hashes on every input length
 * around the sponge's 136-byte rate, and `BASALT_NATIVE_CRYPTO=0` really selects the
 * JavaScript path in a fresh process.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { keccak256, keccakBackend } from "../../../src/util/keccak.js";
import { nativeAddon } from "../../../src/util/nativeAddon.js";
import { REPO_ROOT } from "../../helpers/basaltProcess.js";
import { hasNative, testsNative } from "../../helpers/native.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe.runIf(testsNative("keccak256"))("keccak256 in the native addon", () => {
  it("uses the native addon built by `npm install`/`npm run build` on this machine", () => {
    expect(nativeAddon()).toBeDefined();
    expect(keccakBackend).toBe("native");
  });

  it("matches @noble/hashes for every length 0..700 and 4 KiB, on views into larger buffers", () => {
    const addon = nativeAddon()!;
    for (let len = 0; len <= 700; len++) {
      const backing = randomBytes(len + 16);
      const view = new Uint8Array(backing.buffer, backing.byteOffset + 7, len);
      expect(hex(addon.keccak256(view)), `length ${len}`).toBe(hex(keccak_256(view)));
    }
    const big = randomBytes(4096);
    expect(hex(keccak256(big))).toBe(hex(keccak_256(big)));
    expect(hex(keccak256(new Uint8Array(0)))).toBe("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  });

  it("rejects what is not a Uint8Array with a typed error", () => {
    expect(() => nativeAddon()!.keccak256("abc" as unknown as Uint8Array)).toThrow(/expected a Uint8Array/);
  });

});

describe("keccak256", () => {
  it("falls back to JavaScript with BASALT_NATIVE_CRYPTO=0 (and without the addon)", () => {
    const mod = path.join(REPO_ROOT, "dist", "src", "util", "keccak.js");
    const script = `import(${JSON.stringify(mod)}).then((m) => console.log(m.keccakBackend, Buffer.from(m.keccak256(new Uint8Array([1, 2, 3]))).toString("hex")))`;
    const run = (env: Record<string, string>): string =>
      spawnSync(process.execPath, ["-e", script], { env: { ...process.env, ...env }, encoding: "utf8" }).stdout.trim();
    const expected = hex(keccak_256(new Uint8Array([1, 2, 3])));
    expect(run({ BASALT_NATIVE_CRYPTO: "0" })).toBe(`js ${expected}`);
    expect(run({})).toBe(`${hasNative("keccak256") ? "native" : "js"} ${expected}`);
  });
});
