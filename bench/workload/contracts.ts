/**
 * Benchmark contracts, hand-assembled (no compiler in the toolchain): a tiny EVM assembler, a
 * minimal ERC-20 token and a swap-like, storage-heavy constant-product pool, with their calldata
 * encoders and storage layouts. Used by the in-process devnet bench (`bench/opDevnet.ts`) and the
 * workload generator of the basalt-vs-anvil scenario (`bench/workload/workload.ts`).
 */
import { bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { WorkloadError } from "./errors.js";

/** First 4 bytes of keccak256 of a function signature: its ABI selector. */
export function selector(signature: string): Uint8Array {
  return keccak_256(new TextEncoder().encode(signature)).subarray(0, 4);
}

/** keccak256 of an event signature: its topic0. */
export function eventTopic(signature: string): Uint8Array {
  return keccak_256(new TextEncoder().encode(signature));
}

// ---- a tiny EVM assembler --------------------------------------------------------------------

/** EVM opcodes used by the contracts (yellow paper appendix H). */
export const OP = {
  STOP: 0x00, ADD: 0x01, MUL: 0x02, SUB: 0x03, DIV: 0x04, LT: 0x10, GT: 0x11, EQ: 0x14, ISZERO: 0x15, AND: 0x16, SHR: 0x1c,
  SHA3: 0x20, CALLER: 0x33, CALLDATALOAD: 0x35, CODECOPY: 0x39, POP: 0x50, MLOAD: 0x51, MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55,
  JUMPI: 0x57, JUMPDEST: 0x5b, PUSH1: 0x60, DUP1: 0x80, DUP2: 0x81, DUP4: 0x83, SWAP1: 0x90, LOG2: 0xa2, LOG3: 0xa3,
  RETURN: 0xf3, REVERT: 0xfd,
} as const;

/** One assembly item: an opcode, a push of bytes/number, a jump target label, or a push of a label's offset. */
export type Asm = number | { push: Uint8Array | bigint | number } | { label: string } | { ref: string };

/** A PUSHn of the minimal big-endian bytes of `v` (a Uint8Array is pushed as is). */
export const push = (v: Uint8Array | bigint | number): Asm => ({ push: v });
/** A jump target (assembled to JUMPDEST). */
export const label = (name: string): Asm => ({ label: name });
/** A PUSH2 of the offset of label `name`. */
export const ref = (name: string): Asm => ({ ref: name });

/** The bytes a push of `v` carries: `v` itself if bytes, else its minimal big-endian form (one 0 byte for 0). */
export function pushBytes(v: Uint8Array | bigint | number): Uint8Array {
  if (v instanceof Uint8Array) return v;
  const n = BigInt(v);
  return n === 0n ? new Uint8Array([0]) : bigIntToBytes(n);
}

/**
 * Assembles `items` into bytecode: labels become JUMPDESTs, `ref`s become PUSH2 of the label's
 * offset (two passes; every ref is 3 bytes so offsets are known after the first).
 */
export function assemble(items: Asm[]): Uint8Array {
  const labels = new Map<string, number>();
  const emit = (resolve: boolean): number[] => {
    const out: number[] = [];
    for (const it of items) {
      if (typeof it === "number") out.push(it);
      else if ("label" in it) {
        labels.set(it.label, out.length);
        out.push(OP.JUMPDEST);
      } else if ("ref" in it) {
        const at = resolve ? labels.get(it.ref) : 0;
        if (at === undefined) throw new WorkloadError({ code: "BENCH_ASM_LABEL", label: String(it.ref) }, `undefined label ${it.ref}`);
        out.push(0x61, at >> 8, at & 0xff);
      } else {
        const b = pushBytes(it.push);
        if (b.length > 32) throw new WorkloadError({ code: "BENCH_ASM_PUSH", bytes: b.length }, `push of ${b.length} bytes, at most 32 expected`);
        out.push(OP.PUSH1 + b.length - 1, ...b);
      }
    }
    return out;
  };
  emit(false);
  return new Uint8Array(emit(true));
}

/** `keccak256(mem[0..64))` with mem[0] = the stack top, mem[32] = `slot`: the slot of `mapping(at slot)[top]`. */
function mappingSlotOfTop(slot: Asm[]): Asm[] {
  return [push(0), OP.MSTORE, ...slot, push(0x20), OP.MSTORE, push(0x40), push(0), OP.SHA3];
}
/** Returns the stack top as one 32-byte word. */
const RETURN_TOP: Asm[] = [push(0), OP.MSTORE, push(0x20), push(0), OP.RETURN];
/** Pops the stack top into memory word `offset`. */
const mstoreAt = (offset: number): Asm[] => [push(offset), OP.MSTORE];
/** Pushes memory word `offset`. */
const mloadAt = (offset: number): Asm[] => [push(offset), OP.MLOAD];

/**
 * Wraps `runtime` in init code: `ctor` runs first (it must leave the stack empty), then the
 * runtime (appended after the init code) is copied to memory and returned.
 */
function withConstructor(ctor: Asm[], runtime: Uint8Array): Uint8Array {
  const tail = (runtimeOffset: number): Asm[] => [
    ...ctor,
    push(setLengthLeft(bigIntToBytes(BigInt(runtime.length)), 2)), OP.DUP1,
    push(setLengthLeft(bigIntToBytes(BigInt(runtimeOffset)), 2)), push(0), OP.CODECOPY, // mem[0..len) = runtime
    push(0), OP.RETURN,
  ];
  const len = assemble(tail(0)).length;
  const code = assemble(tail(len));
  const out = new Uint8Array(code.length + runtime.length);
  out.set(code);
  out.set(runtime, code.length);
  return out;
}

/** A 32-byte ABI word of an unsigned integer. */
function word(v: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(v), 32);
}

// ---- the ERC-20 token ------------------------------------------------------------------------

/** Function selectors of the token. */
const SEL_TRANSFER = selector("transfer(address,uint256)");
const SEL_BALANCE_OF = selector("balanceOf(address)");
const SEL_TOTAL_SUPPLY = selector("totalSupply()");
/** topic0 of `Transfer(address indexed from, address indexed to, uint256 value)`. */
export const TRANSFER_TOPIC = eventTopic("Transfer(address,address,uint256)");
/** Storage slot of the token's `totalSupply`; the balance mapping is at slot 0 (Solidity layout: keccak256(key ++ slot)). */
export const TOTAL_SUPPLY_SLOT = 2;
/** Storage slot of the token's balance mapping (Solidity's first state variable). */
const TOKEN_BALANCES_SLOT = 0;

/** `keccak256(mem[0..64))` with mem[0] = the address on the stack top, mem[32] = 0: the balance slot of it. */
const BALANCE_SLOT_OF_TOP: Asm[] = mappingSlotOfTop([push(TOKEN_BALANCES_SLOT)]);

/**
 * Runtime of the minimal ERC-20: `transfer(address,uint256)` (reverts on insufficient balance,
 * moves the amount between the balance-mapping slots, emits Transfer, returns true),
 * `balanceOf(address)`, `totalSupply()`; anything else reverts.
 */
export const TOKEN_RUNTIME: Uint8Array = assemble([
  push(0), OP.CALLDATALOAD, push(0xe0), OP.SHR,
  OP.DUP1, push(SEL_TRANSFER), OP.EQ, ref("transfer"), OP.JUMPI,
  OP.DUP1, push(SEL_BALANCE_OF), OP.EQ, ref("balanceOf"), OP.JUMPI,
  OP.DUP1, push(SEL_TOTAL_SUPPLY), OP.EQ, ref("totalSupply"), OP.JUMPI,
  label("fail"), push(0), OP.DUP1, OP.REVERT,

  label("transfer"),
  push(0x24), OP.CALLDATALOAD, // amount
  push(0x04), OP.CALLDATALOAD, push(new Uint8Array(20).fill(0xff)), OP.AND, // to, amount
  OP.CALLER, ...BALANCE_SLOT_OF_TOP, // fromSlot, to, amount
  OP.DUP1, OP.SLOAD, // bal, fromSlot, to, amount
  OP.DUP4, OP.DUP2, OP.LT, ref("fail"), OP.JUMPI, // bal < amount → revert
  OP.DUP4, OP.SWAP1, OP.SUB, OP.SWAP1, OP.SSTORE, // balances[from] = bal - amount; to, amount
  OP.DUP1, ...BALANCE_SLOT_OF_TOP, // toSlot, to, amount
  OP.DUP1, OP.SLOAD, OP.DUP4, OP.ADD, OP.SWAP1, OP.SSTORE, // balances[to] += amount; to, amount
  OP.DUP2, push(0), OP.MSTORE, // mem[0] = amount
  OP.CALLER, push(TRANSFER_TOPIC), push(0x20), push(0), OP.LOG3, // Transfer(caller, to, amount)
  OP.POP, push(1), ...RETURN_TOP,

  label("balanceOf"),
  push(0x04), OP.CALLDATALOAD, ...BALANCE_SLOT_OF_TOP, OP.SLOAD, ...RETURN_TOP,

  label("totalSupply"),
  push(TOTAL_SUPPLY_SLOT), OP.SLOAD, ...RETURN_TOP,
]);

/** Init code of the token: totalSupply = balances[msg.sender] = supply, emit Transfer(0, msg.sender, supply), return the runtime. */
export function tokenInitCode(supply: bigint): Uint8Array {
  return withConstructor(
    [
      push(supply), OP.DUP1, push(TOTAL_SUPPLY_SLOT), OP.SSTORE, // totalSupply = supply; supply
      OP.CALLER, ...BALANCE_SLOT_OF_TOP, // slot, supply
      OP.DUP2, OP.SWAP1, OP.SSTORE, // balances[caller] = supply; supply
      push(0), OP.MSTORE, // mem[0] = supply
      OP.CALLER, push(0), push(TRANSFER_TOPIC), push(0x20), push(0), OP.LOG3, // Transfer(0, caller, supply)
    ],
    TOKEN_RUNTIME,
  );
}

/** Calldata of the token's `transfer(to, amount)`. */
export function transferCalldata(to: Uint8Array, amount: bigint): Uint8Array {
  const out = new Uint8Array(4 + 64);
  out.set(SEL_TRANSFER);
  out.set(setLengthLeft(to, 32), 4);
  out.set(word(amount), 36);
  return out;
}

/** Calldata of the token's `balanceOf(holder)` view (returns one uint256 word). */
export function balanceOfCalldata(holder: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + 32);
  out.set(SEL_BALANCE_OF);
  out.set(setLengthLeft(holder, 32), 4);
  return out;
}

/** Storage slot of the token's `balances[holder]` (mapping at slot 0): keccak256(pad32(holder) ++ pad32(0)). */
export function balanceSlot(holder: Uint8Array): Uint8Array {
  const key = new Uint8Array(64);
  key.set(setLengthLeft(holder, 32));
  return keccak_256(key);
}

// ---- the constant-product pool ---------------------------------------------------------------

/**
 * Storage layout of the pool: reserves of token 0 and 1 (slots 0, 1), per-user internal
 * balances of token 0 and 1 (mappings at slots 2, 3), the swap counter (4), cumulative input
 * volume of token 0 and 1 (5, 6), and a per-user operation counter (mapping at slot 7).
 */
export const POOL_SLOTS = { reserve0: 0, reserve1: 1, balances0: 2, balances1: 3, swapCount: 4, volume0: 5, volume1: 6, userOps: 7 } as const;
/** Swap fee of the pool in per-mille: amountIn × 997 / 1000 is swapped (Uniswap v2's 0.3 %). */
const POOL_FEE_KEEP_PER_MILLE = 997;
/** Per-mille denominator of {@link POOL_FEE_KEEP_PER_MILLE}. */
const PER_MILLE = 1000;

/** Function selectors of the pool. */
const SEL_SWAP = selector("swap(uint256,bool)");
const SEL_MINT = selector("mint(uint256,uint256)");
const SEL_GET_RESERVES = selector("getReserves()");
const SEL_BALANCES_OF = selector("balancesOf(address)");
const SEL_SWAP_COUNT = selector("swapCount()");
/** topic0 of `Swap(address indexed sender, uint256 amountIn, uint256 amountOut, bool zeroForOne)`. */
export const SWAP_TOPIC = eventTopic("Swap(address,uint256,uint256,bool)");

/** Scratch memory words of `swap` (above the 0x00–0x3f hashing scratch and 0x40 of the event data). */
const M_DIR = 0x80; // 1 if token 1 → token 0 (zeroForOne false), else 0: index of the input side
const M_AMOUNT_IN = 0xa0;
const M_RESERVE_IN = 0xc0;
const M_RESERVE_OUT = 0xe0;
const M_AMOUNT_OUT = 0x100;

/** Adds `amount` (items pushing it) to the word at the slot on the stack top, consuming the slot. */
const addToSlotOnTop = (amount: Asm[]): Asm[] => [OP.DUP1, OP.SLOAD, ...amount, OP.ADD, OP.SWAP1, OP.SSTORE];

/**
 * Runtime of the pool:
 * - `swap(uint256 amountIn, bool zeroForOne)`: with d = the input side, amountOut =
 *   amountIn·997·reserveOut / (reserveIn·1000 + amountIn·997); reverts if amountIn or amountOut
 *   is 0 or the caller's internal balance of the input token is short; moves the caller's
 *   balances (in −= amountIn, out += amountOut), the reserves (in += amountIn, out −=
 *   amountOut), increments the swap counter, the input volume and the caller's operation
 *   counter (7 storage slots read and written), emits `Swap`, returns amountOut;
 * - `mint(uint256 amount0, uint256 amount1)`: a faucet crediting the caller's internal balances
 *   (and operation counter); returns true;
 * - views `getReserves()` → (reserve0, reserve1), `balancesOf(address)` → (balance0, balance1),
 *   `swapCount()`. Anything else reverts.
 */
export const POOL_RUNTIME: Uint8Array = assemble([
  push(0), OP.CALLDATALOAD, push(0xe0), OP.SHR,
  OP.DUP1, push(SEL_SWAP), OP.EQ, ref("swap"), OP.JUMPI,
  OP.DUP1, push(SEL_MINT), OP.EQ, ref("mint"), OP.JUMPI,
  OP.DUP1, push(SEL_GET_RESERVES), OP.EQ, ref("getReserves"), OP.JUMPI,
  OP.DUP1, push(SEL_BALANCES_OF), OP.EQ, ref("balancesOf"), OP.JUMPI,
  OP.DUP1, push(SEL_SWAP_COUNT), OP.EQ, ref("swapCount"), OP.JUMPI,
  label("fail"), push(0), OP.DUP1, OP.REVERT,

  label("swap"),
  push(0x04), OP.CALLDATALOAD, OP.DUP1, OP.ISZERO, ref("fail"), OP.JUMPI, ...mstoreAt(M_AMOUNT_IN),
  push(0x24), OP.CALLDATALOAD, OP.ISZERO, ...mstoreAt(M_DIR), // d = zeroForOne ? 0 : 1
  ...mloadAt(M_DIR), OP.SLOAD, ...mstoreAt(M_RESERVE_IN), // reserveIn = slot d
  ...mloadAt(M_DIR), push(1), OP.SUB, OP.SLOAD, ...mstoreAt(M_RESERVE_OUT), // reserveOut = slot 1 − d
  ...mloadAt(M_AMOUNT_IN), push(POOL_FEE_KEEP_PER_MILLE), OP.MUL, ...mloadAt(M_RESERVE_OUT), OP.MUL, // num
  ...mloadAt(M_AMOUNT_IN), push(POOL_FEE_KEEP_PER_MILLE), OP.MUL, ...mloadAt(M_RESERVE_IN), push(PER_MILLE), OP.MUL, OP.ADD, // den, num
  OP.SWAP1, OP.DIV, OP.DUP1, OP.ISZERO, ref("fail"), OP.JUMPI, ...mstoreAt(M_AMOUNT_OUT), // amountOut = num / den ≠ 0
  OP.CALLER, ...mappingSlotOfTop([...mloadAt(M_DIR), push(POOL_SLOTS.balances0), OP.ADD]), // balIn slot (mapping 2 + d)
  OP.DUP1, OP.SLOAD, // bal, slot
  OP.DUP1, ...mloadAt(M_AMOUNT_IN), OP.GT, ref("fail"), OP.JUMPI, // amountIn > bal → revert
  ...mloadAt(M_AMOUNT_IN), OP.SWAP1, OP.SUB, OP.SWAP1, OP.SSTORE, // balIn −= amountIn
  OP.CALLER, ...mappingSlotOfTop([...mloadAt(M_DIR), push(POOL_SLOTS.balances1), OP.SUB]), // balOut slot (mapping 3 − d)
  ...addToSlotOnTop(mloadAt(M_AMOUNT_OUT)), // balOut += amountOut
  ...mloadAt(M_RESERVE_IN), ...mloadAt(M_AMOUNT_IN), OP.ADD, ...mloadAt(M_DIR), OP.SSTORE, // reserveIn += amountIn
  ...mloadAt(M_RESERVE_OUT), ...mloadAt(M_AMOUNT_OUT), OP.SWAP1, OP.SUB, ...mloadAt(M_DIR), push(1), OP.SUB, OP.SSTORE, // reserveOut −= amountOut
  push(POOL_SLOTS.swapCount), ...addToSlotOnTop([push(1)]), // swapCount += 1
  ...mloadAt(M_DIR), push(POOL_SLOTS.volume0), OP.ADD, ...addToSlotOnTop(mloadAt(M_AMOUNT_IN)), // volume[d] += amountIn
  OP.CALLER, ...mappingSlotOfTop([push(POOL_SLOTS.userOps)]), ...addToSlotOnTop([push(1)]), // userOps[caller] += 1
  ...mloadAt(M_AMOUNT_IN), ...mstoreAt(0), ...mloadAt(M_AMOUNT_OUT), ...mstoreAt(0x20), ...mloadAt(M_DIR), OP.ISZERO, ...mstoreAt(0x40),
  OP.CALLER, push(SWAP_TOPIC), push(0x60), push(0), OP.LOG2, // Swap(caller, amountIn, amountOut, zeroForOne)
  ...mloadAt(M_AMOUNT_OUT), ...RETURN_TOP,

  label("mint"),
  OP.CALLER, ...mappingSlotOfTop([push(POOL_SLOTS.balances0)]), ...addToSlotOnTop([push(0x04), OP.CALLDATALOAD]),
  OP.CALLER, ...mappingSlotOfTop([push(POOL_SLOTS.balances1)]), ...addToSlotOnTop([push(0x24), OP.CALLDATALOAD]),
  OP.CALLER, ...mappingSlotOfTop([push(POOL_SLOTS.userOps)]), ...addToSlotOnTop([push(1)]),
  push(1), ...RETURN_TOP,

  label("getReserves"),
  push(POOL_SLOTS.reserve0), OP.SLOAD, ...mstoreAt(0), push(POOL_SLOTS.reserve1), OP.SLOAD, ...mstoreAt(0x20), push(0x40), push(0), OP.RETURN,

  label("balancesOf"),
  push(0x04), OP.CALLDATALOAD, ...mappingSlotOfTop([push(POOL_SLOTS.balances0)]), OP.SLOAD, ...mstoreAt(0x40),
  push(0x04), OP.CALLDATALOAD, ...mappingSlotOfTop([push(POOL_SLOTS.balances1)]), OP.SLOAD, ...mstoreAt(0x20),
  ...mloadAt(0x40), ...mstoreAt(0), push(0x40), push(0), OP.RETURN,

  label("swapCount"),
  push(POOL_SLOTS.swapCount), OP.SLOAD, ...RETURN_TOP,
]);

/**
 * Init code of the pool: reserves `reserve0`/`reserve1`, and the swap counter and both volume
 * counters start at 1 — every slot a swap writes is then nonzero before and after it, so a
 * swap's gas does not depend on which swap of a block ran first (EIP-2200 set vs reset cost).
 */
export function poolInitCode(reserve0: bigint, reserve1: bigint): Uint8Array {
  if (reserve0 <= 0n || reserve1 <= 0n) throw new WorkloadError({ code: "BENCH_POOL_RESERVES", reserve0: reserve0.toString(), reserve1: reserve1.toString() }, `pool reserves ${reserve0}/${reserve1}: both must be positive`);
  return withConstructor(
    [
      push(reserve0), push(POOL_SLOTS.reserve0), OP.SSTORE,
      push(reserve1), push(POOL_SLOTS.reserve1), OP.SSTORE,
      push(1), push(POOL_SLOTS.swapCount), OP.SSTORE,
      push(1), push(POOL_SLOTS.volume0), OP.SSTORE,
      push(1), push(POOL_SLOTS.volume1), OP.SSTORE,
    ],
    POOL_RUNTIME,
  );
}

/** Calldata of the pool's `swap(amountIn, zeroForOne)`. */
export function swapCalldata(amountIn: bigint, zeroForOne: boolean): Uint8Array {
  const out = new Uint8Array(4 + 64);
  out.set(SEL_SWAP);
  out.set(word(amountIn), 4);
  out.set(word(zeroForOne ? 1n : 0n), 36);
  return out;
}

/** Calldata of the pool's `mint(amount0, amount1)` faucet (credits the caller's internal balances). */
export function poolMintCalldata(amount0: bigint, amount1: bigint): Uint8Array {
  const out = new Uint8Array(4 + 64);
  out.set(SEL_MINT);
  out.set(word(amount0), 4);
  out.set(word(amount1), 36);
  return out;
}

/** Calldata of the pool's `getReserves()` view (returns two words: reserve0, reserve1). */
export function getReservesCalldata(): Uint8Array {
  return SEL_GET_RESERVES.slice();
}

/** Calldata of the pool's `balancesOf(holder)` view (returns two words: balance0, balance1). */
export function poolBalancesOfCalldata(holder: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + 32);
  out.set(SEL_BALANCES_OF);
  out.set(setLengthLeft(holder, 32), 4);
  return out;
}

/** Calldata of the pool's `swapCount()` view. */
export function swapCountCalldata(): Uint8Array {
  return SEL_SWAP_COUNT.slice();
}

/** The amount a swap of `amountIn` against reserves (`reserveIn`, `reserveOut`) pays out, as the pool computes it. */
export function swapAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const keep = BigInt(POOL_FEE_KEEP_PER_MILLE);
  return (amountIn * keep * reserveOut) / (reserveIn * BigInt(PER_MILLE) + amountIn * keep);
}
