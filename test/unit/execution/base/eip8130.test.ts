/**
 * Cobalt's EIP-8130 system precompiles as base/base installs them: TxContext (`0x8130…aa02`)
 * falling back to `tx.origin`, NonceManager (`0x8130…aa01`) `getNonce`.
 */
import { describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import { encodeCall, selectorOf } from "../../../../src/execution/base/abi.js";
import { NONCE_MANAGER_ADDRESS, TX_CONTEXT_ADDRESS } from "../../../../src/execution/base/addresses.js";
import { GET_NONCE_SELECTOR, NONCE_MANAGER_ROOT, nonceManagerHandler, nonceSlot, TX_CONTEXT_SLOTS, TxContextSelectors, txContextHandler } from "../../../../src/execution/base/eip8130/index.js";
import type { BasePrecompileHandler, BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import { erc7201Root } from "../../../../src/execution/base/slots.js";
import { MemoryBaseHost } from "../../../helpers/baseMemoryHost.js";
import { addr, callEnv, hex, runFrame, type CallOpts } from "../../../helpers/basePrecompileCall.js";

const ORIGIN = addr(0x99);
const CALLER = addr(0x42);
const word = (a: Uint8Array) => `0x${"00".repeat(12)}${Buffer.from(a).toString("hex")}`;

function call(handler: BasePrecompileHandler, host: MemoryBaseHost, address: Uint8Array, input: Uint8Array, o: CallOpts = {}): BasePrecompileOutcome {
  return runFrame(host, handler, input, callEnv(address, { fork: OpFork.cobalt, isStatic: true, origin: ORIGIN, ...o }, CALLER), o);
}

describe("TxContext (0x8130…aa02)", () => {
  it("outside an EIP-8130 transaction every getter answers from tx.origin, for 3 gas (one output word), even in a STATICCALL", () => {
    const host = new MemoryBaseHost();
    for (const [sel, expected] of [
      [TxContextSelectors.getTransactionSender, word(ORIGIN)],
      [TxContextSelectors.getTransactionPayer, word(ORIGIN)],
      [TxContextSelectors.getTransactionSenderActorId, word(ORIGIN)],
    ] as const) {
      const out = call(txContextHandler, host, TX_CONTEXT_ADDRESS, sel);
      expect(out).toMatchObject({ status: "success", gasUsed: 3 });
      expect(out.status === "success" && hex(out.output)).toBe(expected);
    }
  });

  it("returns the transient context when the execution layer set it", () => {
    const host = new MemoryBaseHost();
    host.tstore(TX_CONTEXT_ADDRESS, TX_CONTEXT_SLOTS.sender, BigInt(word(addr(0x11))));
    host.tstore(TX_CONTEXT_ADDRESS, TX_CONTEXT_SLOTS.payer, BigInt(word(addr(0x22))));
    host.tstore(TX_CONTEXT_ADDRESS, TX_CONTEXT_SLOTS.senderActorId, 0x33n);
    const answer = (sel: Uint8Array) => {
      const out = call(txContextHandler, host, TX_CONTEXT_ADDRESS, sel);
      return out.status === "success" ? hex(out.output) : out.status;
    };
    expect(answer(TxContextSelectors.getTransactionSender)).toBe(word(addr(0x11)));
    expect(answer(TxContextSelectors.getTransactionPayer)).toBe(word(addr(0x22)));
    expect(answer(TxContextSelectors.getTransactionSenderActorId)).toBe(`0x${"0".repeat(62)}33`);
  });

  it("value → NonPayable() at no gas; unknown/short selectors revert with the raw selector; <3 gas halts", () => {
    const host = new MemoryBaseHost();
    const paid = call(txContextHandler, host, TX_CONTEXT_ADDRESS, TxContextSelectors.getTransactionPayer, { value: 1n });
    expect(paid).toMatchObject({ status: "revert", gasUsed: 0 });
    expect(paid.status === "revert" && hex(paid.output)).toBe(hex(selectorOf("NonPayable()")));
    const unknown = call(txContextHandler, host, TX_CONTEXT_ADDRESS, Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    expect(unknown.status === "revert" && hex(unknown.output)).toBe("0xdeadbeef");
    const short = call(txContextHandler, host, TX_CONTEXT_ADDRESS, Uint8Array.of(1));
    expect(short.status === "revert" && hex(short.output)).toBe("0x00000000");
    expect(call(txContextHandler, host, TX_CONTEXT_ADDRESS, TxContextSelectors.getTransactionSender, { gasLimit: 2 })).toMatchObject({ status: "halt", reason: "outOfGas", gasUsed: 2 });
  });
});

describe("NonceManager (0x8130…aa01)", () => {
  const getNonce = (account: Uint8Array, key: bigint) => encodeCall(GET_NONCE_SELECTOR, ["address", "uint256"], [account, key]);

  it("getNonce reads nonces[account][key] under base.nonce_manager: 18 gas of calldata (68 bytes) + one SLOAD", () => {
    expect(NONCE_MANAGER_ROOT).toBe(erc7201Root("base.nonce_manager"));
    const host = new MemoryBaseHost();
    host.set(NONCE_MANAGER_ADDRESS, nonceSlot(addr(0xa1), 9n), 7n);
    const out = call(nonceManagerHandler, host, NONCE_MANAGER_ADDRESS, getNonce(addr(0xa1), 9n));
    expect(out).toMatchObject({ status: "success", gasUsed: 18 + 100 });
    expect(out.status === "success" && hex(out.output)).toBe(`0x${"0".repeat(63)}7`);
    const other = call(nonceManagerHandler, host, NONCE_MANAGER_ADDRESS, getNonce(addr(0xa1), 10n));
    expect(other.status === "success" && BigInt(hex(other.output))).toBe(0n);
  });

  it("key 0 (the protocol nonce) reverts ProtocolNonceNotSupported() without reading storage", () => {
    const out = call(nonceManagerHandler, new MemoryBaseHost(), NONCE_MANAGER_ADDRESS, getNonce(addr(0xa1), 0n));
    expect(out).toMatchObject({ status: "revert", gasUsed: 18 });
    expect(out.status === "revert" && hex(out.output)).toBe(hex(selectorOf("ProtocolNonceNotSupported()")));
  });

  it("value → NonPayable() at no gas; short arguments or another selector → the raw selector", () => {
    const host = new MemoryBaseHost();
    expect(call(nonceManagerHandler, host, NONCE_MANAGER_ADDRESS, getNonce(addr(1), 1n), { value: 5n })).toMatchObject({ status: "revert", gasUsed: 0 });
    const short = call(nonceManagerHandler, host, NONCE_MANAGER_ADDRESS, getNonce(addr(1), 1n).subarray(0, 40));
    expect(short.status === "revert" && hex(short.output)).toBe(hex(GET_NONCE_SELECTOR));
    const other = call(nonceManagerHandler, host, NONCE_MANAGER_ADDRESS, Uint8Array.of(1, 2, 3, 4));
    expect(other.status === "revert" && hex(other.output)).toBe("0x01020304");
  });
});
