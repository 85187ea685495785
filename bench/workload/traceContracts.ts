/**
 * Hand-assembled contracts for tracing tests and the tracing bench (no compiler on the machine): each is a short
 * straight-line program whose trace is easy to predict — a callee that stores, logs, and returns
 * or reverts with Error("nope"), a caller that forwards its calldata (all gas, or more than is
 * left for the 63/64 rule), a token with a Transfer log, panic/bare/invalid-opcode reverts, a
 * factory that CREATEs and CREATE2s a child that self-destructs when called, precompile calls
 * and transient storage.
 */

/** Hex of a push of `n` (the shortest PUSH1..PUSH32, or `width` bytes). */
export function push(n: bigint | number, width?: number): string {
  let h = BigInt(n).toString(16);
  if (h.length % 2 === 1) h = "0" + h;
  if (width !== undefined) h = h.padStart(width * 2, "0");
  return (0x5f + h.length / 2).toString(16) + h;
}

/** Init code that runs `constructor` (hex, no 0x) and deploys `runtime`. */
export function deploy(runtime: string, constructor = ""): string {
  const len = runtime.length / 2;
  // The copy prologue below is 12 bytes when every push is PUSH1 (runtime below 256 bytes).
  const offset = constructor.length / 2 + 12;
  return "0x" + constructor + push(len) + push(offset) + push(0) + "39" + push(len) + push(0) + "f3" + runtime;
}

/** The callee: sstore(0, arg); log1(topic 0xaa, no data); arg == 1 → revert Error("nope"), else return the word 7. */
export function calleeRuntime(): string {
  const head = push(0) + "35" + "80" + push(0) + "55" + push(0xaa) + push(0) + push(0) + "a1" + push(1) + "14";
  const okPart = push(7) + push(0) + "52" + push(0x20) + push(0) + "f3";
  const dest = head.length / 2 + 3 + okPart.length / 2;
  const revertPart =
    "5b" + push(0x08c379a0) + push(0xe0) + "1b" + push(0) + "52" + push(0x20) + push(4) + "52" + push(4) + push(0x24) + "52" + push(0x6e6f7065) + push(0xe0) + "1b" + push(0x44) + "52" + push(100) + push(0) + "fd";
  return head + push(dest) + "57" + okPart + revertPart;
}

/** A caller: copies its 32-byte calldata and CALLs `callee` with it (all gas, or 2^32 gas asked: capped at 63/64 of what is left), then stops. */
export function callerRuntime(callee: string, askMoreGas = false): string {
  const gas = askMoreGas ? push(0xffffffff) : "5a";
  return push(0x20) + push(0) + push(0) + "37" + push(0x20) + push(0) + push(0x20) + push(0) + push(0) + "73" + callee.slice(2) + gas + "f1" + "50" + "00";
}

/** Transfer(address,address,uint256) topic. */
const TRANSFER_TOPIC = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3efn;

/** A token: balances in the slot named by the address; `transfer` is calldata (to, amount); Transfer log. */
export function tokenInit(): string {
  const runtime =
    "33" + "54" + push(0x20) + "35" + "90" + "03" + "33" + "55" + // bal[caller] -= amount
    push(0) + "35" + "54" + push(0x20) + "35" + "01" + push(0) + "35" + "55" + // bal[to] += amount
    push(0x20) + "35" + push(0) + "52" + // mem[0] = amount
    push(0) + "35" + "33" + push(TRANSFER_TOPIC, 32) + push(0x20) + push(0) + "a3" + "00";
  return deploy(runtime, push(1_000_000) + "33" + "55");
}

/** Reverts with Panic(0x11) (arithmetic overflow). */
export const PANIC_RUNTIME = push(0x4e487b71) + push(0xe0) + "1b" + push(0) + "52" + push(0x11) + push(4) + "52" + push(0x24) + push(0) + "fd";
/** Reverts without data. */
export const BARE_REVERT_RUNTIME = push(0) + push(0) + "fd";
/** The designated invalid opcode. */
export const INVALID_RUNTIME = "fe";

/** The child a factory creates: self-destructs to its caller when called. */
const CHILD_INIT = deploy("33ff").slice(2);

/** A factory: CREATE of the child, CREATE2 (salt 1) of another, calls the second (it self-destructs), stops. */
export function factoryRuntime(): string {
  const n = CHILD_INIT.length / 2;
  return (
    push(BigInt("0x" + CHILD_INIT), n) + push(0) + "52" +
    push(n) + push(32 - n) + push(0) + "f0" + "50" +
    push(1) + push(n) + push(32 - n) + push(0) + "f5" +
    push(0) + push(0) + push(0) + push(0) + push(0) + "85" + "5a" + "f1" + "50" + "50" + "00"
  );
}

/** Calls the identity (STATICCALL), sha256 (CALL) and ecrecover (STATICCALL, zero input) precompiles. */
export function precompilesRuntime(): string {
  return (
    push(0x2a) + push(0) + "52" +
    push(0x20) + push(0x20) + push(0x20) + push(0) + push(4) + "5a" + "fa" + "50" +
    push(0x20) + push(0x40) + push(0x20) + push(0) + push(0) + push(2) + "5a" + "f1" + "50" +
    push(0x20) + push(0x100) + push(0x80) + push(0x80) + push(1) + "5a" + "fa" + "50" + "00"
  );
}

/** STATICCALLs `target` without calldata (its calls then run in a static context), then stops. */
export function staticCallerRuntime(target: string): string {
  return push(0) + push(0) + push(0) + push(0) + "73" + target.slice(2) + "5a" + "fa" + "50" + "00";
}

/** tstore(0, 42); sstore(1, tload(0)). */
export const TRANSIENT_RUNTIME = push(0x2a) + push(0) + "5d" + push(0) + "5c" + push(1) + "55" + "00";

/** A 32-byte calldata word. */
export function word(n: bigint | number): string {
  return "0x" + BigInt(n).toString(16).padStart(64, "0");
}
