/**
 * The committed artifacts (src/devnet/contracts/artifacts.ts) are what solc makes of the committed
 * sources: compiling OptimismPortal.sol and SystemConfig.sol again with the pinned solc-js gives the
 * same creation bytecode and ABI, and the same module text. Fails when a source changes without
 * `npm run contracts:compile`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileDevnetContracts, compileSolidity, contractSourceDir, renderArtifacts, solcVersion } from "../../../../src/devnet/contracts/compile.js";
import { OPTIMISM_PORTAL_ARTIFACT, SOLC_VERSION, SYSTEM_CONFIG_ARTIFACT } from "../../../../src/devnet/contracts/artifacts.js";
import { DevnetErrorCode } from "../../../../src/devnet/errors.js";

describe("devnet contract artifacts", () => {
  const compiled = compileDevnetContracts();

  it("are the bytecode and ABI solc compiles from the committed sources, with the pinned compiler", () => {
    expect(SOLC_VERSION).toBe(solcVersion());
    for (const artifact of [OPTIMISM_PORTAL_ARTIFACT, SYSTEM_CONFIG_ARTIFACT]) {
      const fresh = compiled[artifact.contractName]!;
      expect(fresh.bytecode, `${artifact.contractName} bytecode: run npm run contracts:compile`).toBe(artifact.bytecode);
      expect(fresh.abi).toEqual(artifact.abi);
    }
    expect(renderArtifacts(compiled)).toBe(readFileSync(path.join(contractSourceDir(), "artifacts.ts"), "utf8"));
  });

  it("carry the OP event signatures derivation reads (TransactionDeposited, ConfigUpdate with a uint8 update type)", () => {
    const sig = (abi: readonly unknown[], name: string) => {
      const e = abi.find((x) => (x as { type: string; name?: string }).type === "event" && (x as { name: string }).name === name) as { inputs: { type: string; indexed: boolean }[] };
      return e.inputs.map((i) => `${i.type}${i.indexed ? " indexed" : ""}`);
    };
    expect(sig(OPTIMISM_PORTAL_ARTIFACT.abi, "TransactionDeposited")).toEqual(["address indexed", "address indexed", "uint256 indexed", "bytes"]);
    expect(sig(SYSTEM_CONFIG_ARTIFACT.abi, "ConfigUpdate")).toEqual(["uint256 indexed", "uint8 indexed", "bytes"]);
  });

  it("a source solc refuses is a DEVNET_CONTRACT_COMPILE error with the compiler's message", () => {
    expect(() => compileSolidity({ "Broken.sol": "pragma solidity ^0.8.24; contract Broken { function f( }" })).toThrow(
      expect.objectContaining({ code: DevnetErrorCode.CONTRACT_COMPILE, message: expect.stringContaining("Broken.sol") }),
    );
  });
});
