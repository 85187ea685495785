/**
 * `forge script --broadcast` against a fresh devnet node: a tiny foundry project (contract C and
 * a script doing `new C{salt: bytes32(uint256(1))}()` between vm.startBroadcast/stopBroadcast),
 * compiled offline by forge through a solc-js stand-in (test/helpers/solcjsShim.mjs), broadcast
 * with dev account 0's key. forge sends such a deployment to the deterministic deployment proxy
 * (0x4e59…956C, an OP Stack preinstall of the devnet) with calldata salt ‖ init code; the code
 * must then be at the proxy's CREATE2 address, and `cast call` (when cast is installed) reads it.
 *
 * Skipped, naming the package, when forge's platform package (@foundry-rs/forge-linux-amd64,
 * an optional dependency) is not installed.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { keccak256 } from "../../src/util/keccak.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { foundryBinary, foundryPackage, writeSolcShim } from "../helpers/foundry.js";
import { rpcResult, type Json } from "../helpers/rpc.js";

const run = promisify(execFile);
const forge = foundryBinary("forge");
const cast = foundryBinary("cast");
/** Arachnid's deterministic deployment proxy, where forge sends `new C{salt: …}()` from a script. */
const CREATE2_PROXY = "0x4e59b44847b379578588920ca78fbf26c0b4956c";
const SALT = "0x" + "00".repeat(31) + "01";
/** forge and cast may take long on a loaded machine (forge compiles through solc-js). */
const TOOL_TIMEOUT_MS = 180_000;

const FILES: Record<string, string> = {
  "src/C.sol": `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract C {
    uint256 public x = 42;
}
`,
  "script/Deploy.s.sol": `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import {C} from "../src/C.sol";
/// The two cheatcodes used (forge-std's Vm, without the library: no network to install it).
interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
}
contract Deploy {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    function run() external returns (C c) {
        vm.startBroadcast();
        c = new C{salt: bytes32(uint256(1))}();
        vm.stopBroadcast();
    }
}
`,
};

function foundryToml(solc: string): string {
  return [
    "[profile.default]",
    'src = "src"',
    'out = "out"',
    'script = "script"',
    "libs = []",
    "offline = true",
    `solc = "${solc}"`,
    'evm_version = "cancun"',
    "",
  ].join("\n");
}

/** Runs a foundry tool in `cwd` with HOME there too (forge keeps caches under ~/.foundry); fails with its output. */
async function tool(bin: string, args: string[], cwd: string): Promise<string> {
  try {
    const r = await run(bin, args, { cwd, timeout: TOOL_TIMEOUT_MS, env: { ...process.env, HOME: cwd, NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 });
    return r.stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${path.basename(bin)} ${args.join(" ")} failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  }
}

const hexBytes = (h: string): Buffer => Buffer.from(h.replace(/^0x/, ""), "hex");

describe.skipIf(forge === undefined)(`forge script against the devnet (e2e; skipped unless ${foundryPackage("forge")} is installed)`, () => {
  let datadir = "";
  let project = "";
  let node: NodeHandle | undefined;

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-forge-node-");
    project = await makeTempDir("basalt-e2e-forge-project-");
    for (const [file, text] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(project, file)), { recursive: true });
      await writeFile(path.join(project, file), text);
    }
    await writeFile(path.join(project, "foundry.toml"), foundryToml(await writeSolcShim(project)));
    node = await startNode({ datadir, args: ["--dev.block-time", "1"] });
  }, 60_000);

  afterAll(async () => {
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
    if (project !== "") await removeDir(project);
  });

  it("new C{salt: …}() deploys through the deterministic deployment proxy at its CREATE2 address", async () => {
    const key = devAccounts()[0]!.privateKey;
    const out = await tool(forge!, ["script", "script/Deploy.s.sol:Deploy", "--rpc-url", node!.url, "--broadcast", "--private-key", key], project);
    expect(out).toContain("ONCHAIN EXECUTION COMPLETE & SUCCESSFUL");

    // What forge compiled and sent.
    const artifact = JSON.parse(await readFile(path.join(project, "out", "C.sol", "C.json"), "utf8")) as { bytecode: { object: string }; deployedBytecode: { object: string } };
    const initcode = hexBytes(artifact.bytecode.object);
    const broadcast = JSON.parse(await readFile(path.join(project, "broadcast", "Deploy.s.sol", "845337", "run-latest.json"), "utf8")) as {
      transactions: { hash: string; transaction: { to: string; input: string } }[];
    };
    expect(broadcast.transactions).toHaveLength(1);
    const sent = broadcast.transactions[0]!;
    expect(sent.transaction.to.toLowerCase()).toBe(CREATE2_PROXY);
    expect(sent.transaction.input.toLowerCase()).toBe(SALT + initcode.toString("hex"));

    const receipt = (await rpcResult(node!.url, "eth_getTransactionReceipt", [sent.hash])) as Record<string, Json>;
    expect(receipt.status).toBe("0x1");
    expect(receipt.from).toBe(devAccounts()[0]!.address.toLowerCase());
    expect(receipt.to).toBe(CREATE2_PROXY);

    // keccak256(0xff ‖ proxy ‖ salt ‖ keccak256(initcode))[12:]
    const expected = "0x" + Buffer.from(keccak256(Buffer.concat([Buffer.from([0xff]), hexBytes(CREATE2_PROXY), hexBytes(SALT), Buffer.from(keccak256(initcode))])).subarray(12)).toString("hex");
    expect(await rpcResult(node!.url, "eth_getCode", [expected, "latest"])).toBe(artifact.deployedBytecode.object);
    expect(await rpcResult(node!.url, "eth_getStorageAt", [expected, "0x0", "latest"])).toBe("0x" + "00".repeat(31) + "2a");

    if (cast !== undefined) {
      expect((await tool(cast, ["call", expected, "x()(uint256)", "--rpc-url", node!.url], project)).trim()).toBe("42");
      expect((await tool(cast, ["code", expected, "--rpc-url", node!.url], project)).trim()).toBe(artifact.deployedBytecode.object);
    }
  }, TOOL_TIMEOUT_MS * 2);
});
