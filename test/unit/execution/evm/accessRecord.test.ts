/**
 * The fast EVM's recorded access list (what eth_createAccessList lists) follows geth's
 * access-list tracer: the accounts an opcode names (CALL-family targets, BALANCE, EXTCODE*,
 * SELFDESTRUCT beneficiaries) and the slots SLOAD/SSTORE use — not the addresses CREATE/CREATE2
 * make (the EVM warms them, no opcode names them), and a called account even when a CREATE
 * warmed it earlier in the transaction.
 */
import { createTx } from "@ethereumjs/tx";
import { describe, expect, it } from "vitest";
import { factoryRuntime } from "../../../../bench/workload/traceContracts.js";
import { create2Address } from "../../../../src/execution/evm/interpreter.js";
import { createAddress } from "../../../../src/chain/json/receipt.js";
import { blockEnvOf, FastEvm } from "../../../../src/execution/evm/engine.js";
import { evmTransactionOf } from "../../../../src/execution/evm/fromEthereumjs.js";
import { EvmState } from "../../../../src/execution/evm/state.js";
import { runTransaction } from "../../../../src/execution/evm/transaction.js";
import { preStateOverlay, testBlockHash, testCommon, testHeader, type PreAccount, type TestEnv } from "../../../helpers/evmRunner.js";

const KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const FACTORY = "0x00000000000000000000000000000000000fac70";
const ENV: TestEnv = { hardfork: "prague", coinbase: "0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba", number: 10n, timestamp: 100n, gasLimit: 60_000_000n, baseFee: 7n };

const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");

/** The child factoryRuntime creates: self-destructs to its caller (its init code, as in traceContracts). */
const CHILD_INIT = Uint8Array.from(Buffer.from("6002600c60003960026000f333ff", "hex"));

describe("fast EVM: recorded access list", () => {
  it("lists the CALLed CREATE2 child, not the CREATEd child no opcode names", async () => {
    const pre = new Map<string, PreAccount>([
      [SENDER, { nonce: 0n, balance: 10n ** 22n }],
      [FACTORY, { code: Uint8Array.from(Buffer.from(factoryRuntime(), "hex")), nonce: 1n }],
    ]);
    const tx = createTx({ type: 2, nonce: 0n, gasLimit: 1_000_000n, maxFeePerGas: 20n, maxPriorityFeePerGas: 1n, to: FACTORY, chainId: 1n } as never, { common: testCommon(ENV.hardfork) }).sign(KEY);
    const common = testCommon(ENV.hardfork);
    const header = testHeader(ENV, common);
    const est = new EvmState(await preStateOverlay(pre));
    const evm = FastEvm.of(common);
    const ctx = { ...evm.context(est, blockEnvOf(header, testBlockHash)), precompiles: evm.precompiles };
    const r = runTransaction(ctx, evmTransactionOf(tx), { call: true, checkBlockGasLimit: false, discard: true, recordAccessList: true });
    expect(r.status).toBe(1);
    const factory = Uint8Array.from(Buffer.from(FACTORY.slice(2), "hex"));
    const created = hex(createAddress(factory, 1n));
    const salt = new Uint8Array(32);
    salt[31] = 1;
    const created2 = hex(create2Address(factory, salt, CHILD_INIT));
    const listed = [...r.accessList!.values()].map((e) => hex(e.address));
    expect(listed).toContain(created2);
    expect(listed).not.toContain(created);
  });
});
