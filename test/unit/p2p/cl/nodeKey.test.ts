/** The node key file: created once (hex, no 0x, mode 0600), the same key read back after; bad files refused. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadOrCreateNodeKey, parseSecp256k1Key } from "../../../../src/p2p/cl/nodeKey.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-nodekey-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("node key persistence", () => {
  it("creates the file on first start and reuses it", () => {
    const file = path.join(dir, "sub", "opnode_p2p_priv.txt");
    const k1 = loadOrCreateNodeKey(file);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const k2 = loadOrCreateNodeKey(file);
    expect(Buffer.from(k2).toString("hex")).toBe(text);
    expect(k2).toEqual(k1);
  });

  it("reads keys with 0x and whitespace, refuses bad ones", () => {
    const file = path.join(dir, "given.txt");
    writeFileSync(file, `0x${"11".repeat(32)}\n`);
    expect(Buffer.from(loadOrCreateNodeKey(file)).toString("hex")).toBe("11".repeat(32));
    writeFileSync(file, "zz");
    expect(() => loadOrCreateNodeKey(file)).toThrow(/hex-encoded 32-byte/);
    expect(() => parseSecp256k1Key("00".repeat(32), "k")).toThrow(/not a valid secp256k1/);
  });
});
