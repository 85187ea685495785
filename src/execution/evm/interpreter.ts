/**
 * The fast EVM's interpreter: one loop over a frame's bytecode with the stack as 8-limb words in
 * a `Uint32Array` (no bigint on the hot path), gas as a JS number, jump destinations analysed
 * once per code array, and message calls and creations run as frames on an explicit frame
 * stack — never by recursion — so a 1024-deep call chain costs no JS stack.
 *
 * Semantics follow geth's `core/vm` and @ethereumjs/evm (the reference engine, which the EEST
 * state tests and differential fuzzing hold this engine to): EIP-150 gas forwarding, EIP-2929
 * access costs, EIP-2200/3529 SSTORE pricing, EIP-161 touch and clear, EIP-3541/3860/170 code
 * rules, EIP-6780 SELFDESTRUCT, EIP-1153 transient storage, EIP-5656 MCOPY, EIP-4844/7516 blob
 * opcodes, EIP-7702 delegations and EIP-7939 CLZ.
 */
import { keccak256 } from "../../util/keccak.js";
import {
  CALL_NEW_ACCOUNT,
  CALL_STIPEND,
  CALL_VALUE,
  CODE_DEPOSIT,
  COLD_ACCOUNT_ACCESS,
  COLD_SLOAD,
  DELEGATION_LENGTH,
  G_COPY_WORD,
  G_CREATE,
  G_EXP_BYTE,
  G_KECCAK_WORD,
  G_LOG,
  G_LOG_DATA,
  G_LOG_TOPIC,
  G_SELFDESTRUCT,
  INITCODE_WORD,
  MAX_CALL_DEPTH,
  MAX_NONCE,
  SSTORE_CLEARS_REFUND,
  SSTORE_RESET,
  SSTORE_SENTRY,
  SSTORE_SET,
  STACK_LIMIT,
  WARM_STORAGE_READ,
  memoryCost,
} from "./gas.js";
import { STACK_GROW, STACK_IN } from "./opcodes.js";
import type { Precompile, PrecompileSet } from "./precompiles/index.js";
import { FastBaseHost } from "./precompiles/baseHost.js";
import { EVM_SCHEDULE } from "../base/gas.js";
import { runBasePrecompile, type BasePrecompileHandler } from "../base/outcome.js";
import type { EvmRules } from "./rules.js";
import { isEmptyCodeHash, ZERO_WORD, type AccountEntry, type EvmState } from "./state.js";
import * as W from "./u256.js";

/** How a frame ended. Values above {@link Halt.REVERT} are exceptional halts (all gas consumed). */
export const enum Halt {
  STOP = 0,
  RETURN = 1,
  REVERT = 2,
  OUT_OF_GAS = 3,
  INVALID_OPCODE = 4,
  STACK_UNDERFLOW = 5,
  STACK_OVERFLOW = 6,
  INVALID_JUMP = 7,
  STATIC_STATE_CHANGE = 8,
  RETURNDATA_OUT_OF_BOUNDS = 9,
  CODE_SIZE_EXCEEDED = 10,
  INVALID_CODE_PREFIX = 11,
  CREATE_COLLISION = 12,
  INITCODE_SIZE_EXCEEDED = 13,
  PRECOMPILE_FAILURE = 14,
}

/** geth's error text for each halt (eth_call / eth_estimateGas answers use it). */
export const HALT_MESSAGES: readonly string[] = [
  "",
  "",
  "execution reverted",
  "out of gas",
  "invalid opcode",
  "stack underflow",
  "stack limit reached 1024 (1023)",
  "invalid jump destination",
  "write protection",
  "return data out of bounds",
  "max code size exceeded",
  "invalid code: must not begin with 0xef",
  "contract address collision",
  "max initcode size exceeded",
  "precompile failed",
];

/** The block a transaction runs in. */
export interface BlockEnv {
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  gasLimit: bigint;
  baseFee: bigint;
  /** PREVRANDAO (post-merge) or the difficulty as 32 bytes. */
  prevRandao: Uint8Array;
  blobBaseFee: bigint;
  /** Hash of block `n` for BLOCKHASH (only asked for the 256 blocks before `number`). */
  blockHash(n: bigint): Uint8Array;
}

/** Transaction-wide values the opcodes read. */
interface TxEnv {
  origin: Uint8Array;
  gasPrice: bigint;
  blobHashes: readonly Uint8Array[];
}

/** What a message call or creation asks for. */
interface Message {
  caller: Uint8Array;
  /** Target; undefined for a creation (then `createAddress` is set by the caller). */
  to: Uint8Array | undefined;
  value: bigint;
  data: Uint8Array;
  gas: number;
  /** For a creation: the new contract's address (computed by the transaction layer). */
  createAddress?: Uint8Array;
}

/** The outcome of a top-level message. */
export interface MessageResult {
  halt: Halt;
  /** Gas left (0 after an exceptional halt). */
  gasLeft: number;
  output: Uint8Array;
  /** The created contract's address, for a successful creation. */
  createdAddress?: Uint8Array;
}

const EMPTY = new Uint8Array(0);
/** Bytes of zero padding after every analysed code array (PUSH32 at the end reads zeros; running off the end hits STOP). */
const CODE_PADDING = 33;

/** Frame kinds. */
const K_CALL = 0;
const K_CALLCODE = 1;
const K_DELEGATECALL = 2;
const K_STATICCALL = 3;
const K_CREATE = 4;

/** Analysed code: the bytes padded with zeros, their length and the valid jump destinations. */
interface AnalysedCode {
  code: Uint8Array;
  size: number;
  jumpdests: Uint8Array;
}

const analysisCache = new WeakMap<Uint8Array, AnalysedCode>();

/** Pads and analyses `code` (cached per array: code read from the state is shared by identity). */
function analyse(code: Uint8Array, cache = true): AnalysedCode {
  if (cache) {
    const hit = analysisCache.get(code);
    if (hit !== undefined) return hit;
  }
  const size = code.length;
  const padded = new Uint8Array(size + CODE_PADDING);
  padded.set(code);
  const jumpdests = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const op = code[i]!;
    if (op === 0x5b) jumpdests[i] = 1;
    else if (op >= 0x60 && op <= 0x7f) i += op - 0x5f;
  }
  const a: AnalysedCode = { code: padded, size, jumpdests };
  if (cache) analysisCache.set(code, a);
  return a;
}

/** One execution frame. */
class Frame {
  pc = 0;
  sp = 0;
  gas: number;
  memSize = 0;
  returnData: Uint8Array = EMPTY;
  halt: Halt = Halt.STOP;
  output: Uint8Array = EMPTY;
  /** Where the parent wants the output (calls). */
  retOffset = 0;
  retSize = 0;
  /** The checkpoint the frame reverts to. */
  jLen = 0;
  logsLen = 0;
  refundSnap = 0;
  constructor(
    readonly kind: number,
    readonly parent: Frame | undefined,
    readonly depth: number,
    readonly code: Uint8Array,
    readonly codeSize: number,
    readonly jumpdests: Uint8Array,
    readonly stack: Uint32Array,
    public mem: Uint8Array,
    gas: number,
    /** The account whose storage and balance the code acts on (ADDRESS). */
    readonly self: AccountEntry,
    readonly caller: Uint8Array,
    readonly value: bigint,
    readonly input: Uint8Array,
    readonly isStatic: boolean,
  ) {
    this.gas = gas;
  }
}

/** Reads a stack word as a memory offset or length: Infinity when it cannot be one (≥ 2^32). */
function u32OrInf(s: Uint32Array, o: number): number {
  return W.fitsU32(s, o) ? s[o]! : Infinity;
}

/** Words needed for `bytes` bytes. */
function words(bytes: number): number {
  return Math.ceil(bytes / 32);
}

/** The largest memory the engine will allocate: 2^32 bytes would cost ~2^45 gas. */
const MAX_MEMORY = 0x1_0000_0000;

/**
 * Runs messages against an {@link EvmState}. One instance per thread is enough: it keeps
 * per-depth stacks and memories for reuse between frames.
 */
export class Interpreter {
  private readonly stacks: Uint32Array[] = [];
  private readonly memories: Uint8Array[] = [];
  /** The frame to continue with after the loop returned for a sub-call. */
  private next: Frame | undefined;
  private top: MessageResult | undefined;
  /**
   * Called at every value transfer of a frame (the transaction's own value, CALL, CREATE,
   * SELFDESTRUCT) when set, after the transfer and inside the frame's journal scope (logs it adds
   * are dropped when the frame reverts): eth_simulateV1's `traceTransfers`.
   */
  onTransfer: ((from: Uint8Array, to: Uint8Array, value: bigint) => void) | undefined;
  /** Called before every opcode when set (debugging; tracing RPCs use the reference engine). */
  tracer: ((depth: number, pc: number, op: number, gas: number, stack: Uint32Array, sp: number) => void) | undefined;
  rules!: EvmRules;
  state!: EvmState;
  block!: BlockEnv;
  tx!: TxEnv;
  precompiles!: PrecompileSet;

  /** The precompile at `a`: by address when the set places precompiles anywhere (moved ones), else by number. */
  private precompileAt(a: Uint8Array): Precompile | undefined {
    const set = this.precompiles;
    return set.at !== undefined ? set.at(a) : set.get(precompileIndex(a));
  }

  /** The Base native precompile whose code address is `a`, when the fork has them. */
  private baseAt(a: Uint8Array): BasePrecompileHandler | undefined {
    const base = this.precompiles.base;
    return base === undefined ? undefined : base.handlerAt(a);
  }

  /**
   * Runs a Base native precompile for a call (the value already moved): its outcome over this
   * state, as base/base's stateful precompiles run inside revm's frame. A revert or halt undoes
   * what it wrote (and the value transfer) back to the call's checkpoint.
   */
  private runBase(handler: BasePrecompileHandler, input: Uint8Array, caller: Uint8Array, address: Uint8Array, value: bigint, isStatic: boolean, gas: number, direct: boolean, jLen: number, logsLen: number, refund: number): { ok: boolean; halted: Halt | undefined; gasUsed: number; output: Uint8Array } {
    const st = this.state;
    const block = this.block;
    const env = {
      caller,
      address,
      value,
      isStatic,
      gasLimit: gas,
      origin: this.tx.origin,
      block: { number: block.number, timestamp: block.timestamp, coinbase: block.coinbase, chainId: this.rules.chainId },
      fork: this.precompiles.base!.fork,
    };
    const out = runBasePrecompile(handler, input, env, new FastBaseHost(st), EVM_SCHEDULE, direct);
    if (out.status === "success") {
      st.refund += out.refund;
      return { ok: true, halted: undefined, gasUsed: out.gasUsed, output: out.output };
    }
    st.revertTo(jLen, logsLen, refund);
    if (out.status === "revert") return { ok: false, halted: undefined, gasUsed: out.gasUsed, output: out.output };
    return { ok: false, halted: Halt.OUT_OF_GAS, gasUsed: gas, output: EMPTY };
  }

  /** Sets what the next messages run with. */
  configure(rules: EvmRules, state: EvmState, block: BlockEnv, tx: TxEnv, precompiles: PrecompileSet): void {
    this.rules = rules;
    this.state = state;
    this.block = block;
    this.tx = tx;
    this.precompiles = precompiles;
  }

  private stackFor(depth: number): Uint32Array {
    let s = this.stacks[depth];
    if (s === undefined) {
      s = new Uint32Array(STACK_LIMIT * 8);
      this.stacks[depth] = s;
    }
    return s;
  }

  private memoryFor(depth: number): Uint8Array {
    let m = this.memories[depth];
    if (m === undefined) {
      m = new Uint8Array(1024);
      this.memories[depth] = m;
    }
    return m;
  }

  /**
   * Executes a top-level message (the transaction's call or creation) on the state, which the
   * caller has prepared (value not yet transferred; for a creation the address computed and
   * the sender's nonce bumped). Reverts its own changes on failure.
   */
  execute(msg: Message): MessageResult {
    const st = this.state;
    const jLen = st.journalLength;
    const logsLen = st.logs.length;
    const refund = st.refund;
    const callerEntry = st.account(msg.caller);
    if (msg.to === undefined) {
      const address = msg.createAddress!;
      const target = st.account(address);
      st.warmAccountForTx(target);
      if (target.nonce !== 0n || !isEmptyCodeHash(target.codeHash) || st.hasStorage(target)) {
        return { halt: Halt.CREATE_COLLISION, gasLeft: 0, output: EMPTY };
      }
      st.markCreated(target);
      st.setNonce(target, 1n);
      st.subBalance(callerEntry, msg.value);
      st.addBalance(target, msg.value);
      if (this.onTransfer !== undefined && msg.value !== 0n) this.onTransfer(msg.caller, address, msg.value);
      const a = analyse(msg.data, false);
      const f = new Frame(K_CREATE, undefined, 0, a.code, a.size, a.jumpdests, this.stackFor(0), this.memoryFor(0), msg.gas, target, msg.caller, msg.value, EMPTY, false);
      f.jLen = jLen;
      f.logsLen = logsLen;
      f.refundSnap = refund;
      return this.run(f);
    }
    const target = st.account(msg.to);
    if (msg.value !== 0n || target.exists) {
      st.subBalance(callerEntry, msg.value);
      st.addBalance(target, msg.value);
      if (this.onTransfer !== undefined && msg.value !== 0n) this.onTransfer(msg.caller, msg.to, msg.value);
    } else st.addBalance(target, 0n);
    const base = this.baseAt(msg.to);
    if (base !== undefined) {
      const r = this.runBase(base, msg.data, msg.caller, msg.to, msg.value, false, msg.gas, true, jLen, logsLen, refund);
      return { halt: r.ok ? Halt.RETURN : (r.halted ?? Halt.REVERT), gasLeft: msg.gas - r.gasUsed, output: r.output };
    }
    const pre = this.precompileAt(msg.to);
    if (pre !== undefined) {
      const r = pre(msg.data, msg.gas);
      if (!r.ok) {
        st.revertTo(jLen, logsLen, refund);
        return { halt: Halt.PRECOMPILE_FAILURE, gasLeft: 0, output: EMPTY };
      }
      return { halt: Halt.RETURN, gasLeft: msg.gas - r.gasUsed, output: r.output };
    }
    const code = this.resolveCode(target);
    if (code.length === 0) return { halt: Halt.STOP, gasLeft: msg.gas, output: EMPTY };
    const a = analyse(code);
    const f = new Frame(K_CALL, undefined, 0, a.code, a.size, a.jumpdests, this.stackFor(0), this.memoryFor(0), msg.gas, target, msg.caller, msg.value, msg.data, false);
    f.jLen = jLen;
    f.logsLen = logsLen;
    f.refundSnap = refund;
    return this.run(f);
  }

  /** The code an account runs: its own, or its EIP-7702 delegate's. */
  private resolveCode(e: AccountEntry): Uint8Array {
    const code = this.state.code(e);
    if (this.rules.setCode && isDelegation(code)) {
      const d = this.state.account(code.subarray(3, 23));
      return this.state.code(d);
    }
    return code;
  }

  /** Runs frames until the root one ends. */
  private run(root: Frame): MessageResult {
    let f = root;
    for (;;) {
      this.next = undefined;
      this.loop(f);
      if (this.next !== undefined) {
        f = this.next;
        continue;
      }
      const parent = this.finish(f);
      if (parent === undefined) {
        const r = this.top!;
        this.top = undefined;
        return r;
      }
      f = parent;
    }
  }

  /**
   * Ends frame `f` (its halt and output set by the loop): applies the checkpoint rules, and for
   * a child hands the result to its parent (which continues after the call opcode). Returns
   * the parent, or undefined for the root (its result in {@link top}).
   */
  private finish(f: Frame): Frame | undefined {
    const st = this.state;
    let halt = f.halt;
    let gasLeft = halt <= Halt.REVERT ? f.gas : 0;
    let output = f.output;
    let created: Uint8Array | undefined;
    this.memories[f.depth] = f.mem;
    if (f.kind === K_CREATE && halt <= Halt.RETURN) {
      // Code deposit (EIP-170 size, EIP-3541 prefix, 200 gas a byte).
      const size = output.length;
      if (size > this.rules.maxCodeSize) halt = Halt.CODE_SIZE_EXCEEDED;
      else if (size > 0 && output[0] === 0xef) halt = Halt.INVALID_CODE_PREFIX;
      else if (gasLeft < size * CODE_DEPOSIT) halt = Halt.OUT_OF_GAS;
      else {
        gasLeft -= size * CODE_DEPOSIT;
        if (size > 0) st.setCode(f.self, keccak256(output), output.slice());
        created = f.self.address;
        // A CREATE opcode's return data is empty on success; a creation transaction's output
        // is the deployed code (what eth_call of init code answers, as geth and ethereumjs do).
        if (f.parent !== undefined) output = EMPTY;
      }
      if (halt > Halt.REVERT) gasLeft = 0;
    }
    if (halt >= Halt.REVERT) st.revertTo(f.jLen, f.logsLen, f.refundSnap);
    const parent = f.parent;
    if (parent === undefined) {
      this.top = { halt, gasLeft, output: halt > Halt.REVERT ? EMPTY : output, createdAddress: created };
      return undefined;
    }
    const s = parent.stack;
    const o = parent.sp * 8;
    parent.sp++;
    parent.gas += gasLeft;
    if (f.kind === K_CREATE) {
      if (created !== undefined) W.setAddress(s, o, created);
      else W.setZero(s, o);
      parent.returnData = halt === Halt.REVERT ? output : EMPTY;
    } else {
      W.setSafe(s, o, halt <= Halt.RETURN ? 1 : 0);
      parent.returnData = halt > Halt.REVERT ? EMPTY : output;
      if (halt <= Halt.REVERT && parent.retSize > 0) {
        const n = Math.min(parent.retSize, output.length);
        if (n > 0) parent.mem.set(output.subarray(0, n), parent.retOffset);
      }
    }
    return parent;
  }

  /**
   * Grows `f`'s memory to cover [offset, offset + size): returns the gas left after paying for
   * it, or −1 when it cannot be paid. `size` 0 never expands.
   */
  private expand(f: Frame, gas: number, offset: number, size: number): number {
    if (size === 0) return gas;
    const end = offset + size;
    if (end > MAX_MEMORY) return -1;
    if (end <= f.memSize) return gas;
    const newWords = words(end);
    const cost = memoryCost(newWords) - memoryCost(f.memSize / 32);
    if (cost > gas) return -1;
    const newSize = newWords * 32;
    if (newSize > f.mem.length) {
      let cap = f.mem.length * 2;
      while (cap < newSize) cap *= 2;
      const m = new Uint8Array(cap);
      m.set(f.mem.subarray(0, f.memSize));
      f.mem = m;
    } else f.mem.fill(0, f.memSize, newSize);
    f.memSize = newSize;
    return gas - cost;
  }

  /**
   * The main loop: executes `f` until it halts (setting `f.halt`/`f.output`) or starts a
   * sub-frame (setting {@link next}). Simple opcodes run inline; the rest call helpers that
   * take the frame with its `sp`/`gas`/`pc` written back.
   */
  private loop(f: Frame): void {
    const code = f.code;
    const jumpdests = f.jumpdests;
    const s = f.stack;
    const valid = this.rules.valid;
    const staticGas = this.rules.staticGas;
    let pc = f.pc;
    let sp = f.sp;
    let gas = f.gas;
    let halt: Halt = Halt.STOP;
    const tracer = this.tracer;
    for (;;) {
      const op = code[pc]!;
      if (tracer !== undefined) tracer(f.depth, pc, op, gas, s, sp);
      if (valid[op] === 0) {
        halt = Halt.INVALID_OPCODE;
        break;
      }
      if (sp < STACK_IN[op]!) {
        halt = Halt.STACK_UNDERFLOW;
        break;
      }
      if (sp + STACK_GROW[op]! > STACK_LIMIT) {
        halt = Halt.STACK_OVERFLOW;
        break;
      }
      gas -= staticGas[op]!;
      if (gas < 0) {
        halt = Halt.OUT_OF_GAS;
        break;
      }
      const t = (sp - 1) * 8; // top of stack
      switch (op) {
        case 0x00: // STOP
          halt = Halt.STOP;
          break;
        case 0x01: // ADD
          W.add(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x02: // MUL
          W.mul(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x03: // SUB
          W.sub(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x04: // DIV
          W.div(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x05: // SDIV
          W.sdiv(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x06: // MOD
          W.mod(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x07: // SMOD
          W.smod(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x08: // ADDMOD
          W.addmod(s, t, t - 8, t - 16, t - 16);
          sp -= 2;
          pc++;
          continue;
        case 0x09: // MULMOD
          W.mulmod(s, t, t - 8, t - 16, t - 16);
          sp -= 2;
          pc++;
          continue;
        case 0x0a: {
          // EXP: 50 gas per byte of the exponent (EIP-160)
          let bytes = 0;
          for (let i = 7; i >= 0; i--) {
            const v = s[t - 8 + i]!;
            if (v !== 0) {
              bytes = i * 4 + (v >= 0x1000000 ? 4 : v >= 0x10000 ? 3 : v >= 0x100 ? 2 : 1);
              break;
            }
          }
          gas -= G_EXP_BYTE * bytes;
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          W.exp(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        }
        case 0x0b: // SIGNEXTEND
          W.signextend(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x10: // LT
          W.setSafe(s, t - 8, W.cmp(s, t, t - 8) < 0 ? 1 : 0);
          sp--;
          pc++;
          continue;
        case 0x11: // GT
          W.setSafe(s, t - 8, W.cmp(s, t, t - 8) > 0 ? 1 : 0);
          sp--;
          pc++;
          continue;
        case 0x12: // SLT
          W.setSafe(s, t - 8, W.scmp(s, t, t - 8) < 0 ? 1 : 0);
          sp--;
          pc++;
          continue;
        case 0x13: // SGT
          W.setSafe(s, t - 8, W.scmp(s, t, t - 8) > 0 ? 1 : 0);
          sp--;
          pc++;
          continue;
        case 0x14: // EQ
          W.setSafe(s, t - 8, W.eqWords(s, t, s, t - 8) ? 1 : 0);
          sp--;
          pc++;
          continue;
        case 0x15: // ISZERO
          W.setSafe(s, t, W.isZero(s, t) ? 1 : 0);
          pc++;
          continue;
        case 0x16: // AND
          for (let i = 0; i < 8; i++) s[t - 8 + i] = s[t + i]! & s[t - 8 + i]!;
          sp--;
          pc++;
          continue;
        case 0x17: // OR
          for (let i = 0; i < 8; i++) s[t - 8 + i] = s[t + i]! | s[t - 8 + i]!;
          sp--;
          pc++;
          continue;
        case 0x18: // XOR
          for (let i = 0; i < 8; i++) s[t - 8 + i] = s[t + i]! ^ s[t - 8 + i]!;
          sp--;
          pc++;
          continue;
        case 0x19: // NOT
          for (let i = 0; i < 8; i++) s[t + i] = ~s[t + i]!;
          pc++;
          continue;
        case 0x1a: // BYTE
          W.byteAt(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x1b: // SHL
          W.shl(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x1c: // SHR
          W.shr(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x1d: // SAR
          W.sar(s, t, t - 8, t - 8);
          sp--;
          pc++;
          continue;
        case 0x1e: // CLZ
          W.clz(s, t, t);
          pc++;
          continue;
        case 0x20: {
          // KECCAK256
          const off = u32OrInf(s, t);
          const size = u32OrInf(s, t - 8);
          if (size === Infinity) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          gas -= G_KECCAK_WORD * words(size);
          if (gas >= 0 && size > 0) gas = off === Infinity ? -1 : this.expand(f, gas, off, size);
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          const h = keccak256(size === 0 ? EMPTY : f.mem.subarray(off, off + size));
          W.loadBE(s, t - 8, h, 0);
          sp--;
          pc++;
          continue;
        }
        case 0x30: // ADDRESS
          W.setAddress(s, t + 8, f.self.address);
          sp++;
          pc++;
          continue;
        case 0x31: {
          // BALANCE
          const e = this.state.account(W.toAddress(s, t));
          if (this.state.warmAccount(e)) {
            gas -= COLD_ACCOUNT_ACCESS - WARM_STORAGE_READ;
            if (gas < 0) {
              halt = Halt.OUT_OF_GAS;
              break;
            }
          }
          W.fromBig(s, t, e.balance);
          pc++;
          continue;
        }
        case 0x32: // ORIGIN
          W.setAddress(s, t + 8, this.tx.origin);
          sp++;
          pc++;
          continue;
        case 0x33: // CALLER
          W.setAddress(s, t + 8, f.caller);
          sp++;
          pc++;
          continue;
        case 0x34: // CALLVALUE
          if (f.value === 0n) W.setZero(s, t + 8);
          else W.fromBig(s, t + 8, f.value);
          sp++;
          pc++;
          continue;
        case 0x35: {
          // CALLDATALOAD
          const off = u32OrInf(s, t);
          if (off >= f.input.length) W.setZero(s, t);
          else W.loadBE(s, t, f.input, off);
          pc++;
          continue;
        }
        case 0x36: // CALLDATASIZE
          W.setSafe(s, t + 8, f.input.length);
          sp++;
          pc++;
          continue;
        case 0x37: // CALLDATACOPY
        case 0x39: // CODECOPY
        case 0x3e: // RETURNDATACOPY
        case 0x5e: {
          // MCOPY
          f.sp = sp;
          gas = this.copyOp(f, op, gas);
          if (gas < 0) {
            halt = -gas as Halt;
            break;
          }
          sp -= 3;
          pc++;
          continue;
        }
        case 0x38: // CODESIZE
          W.setSafe(s, t + 8, f.codeSize);
          sp++;
          pc++;
          continue;
        case 0x3a: // GASPRICE
          W.fromBig(s, t + 8, this.tx.gasPrice);
          sp++;
          pc++;
          continue;
        case 0x3b: // EXTCODESIZE
        case 0x3f: {
          // EXTCODEHASH
          const e = this.state.account(W.toAddress(s, t));
          if (this.state.warmAccount(e)) {
            gas -= COLD_ACCOUNT_ACCESS - WARM_STORAGE_READ;
            if (gas < 0) {
              halt = Halt.OUT_OF_GAS;
              break;
            }
          }
          if (op === 0x3b) W.setSafe(s, t, this.state.code(e).length);
          else if (!e.exists || e.isEmpty()) W.setZero(s, t);
          else W.loadBE(s, t, e.codeHash, 0);
          pc++;
          continue;
        }
        case 0x3c: {
          // EXTCODECOPY
          f.sp = sp;
          gas = this.extCodeCopy(f, gas);
          if (gas < 0) {
            halt = -gas as Halt;
            break;
          }
          sp -= 4;
          pc++;
          continue;
        }
        case 0x3d: // RETURNDATASIZE
          W.setSafe(s, t + 8, f.returnData.length);
          sp++;
          pc++;
          continue;
        case 0x40: {
          // BLOCKHASH
          const number = this.block.number;
          if (W.fitsSafe(s, t)) {
            const n = BigInt(W.toSafe(s, t));
            if (n < number && n + 256n >= number) W.loadBE(s, t, this.block.blockHash(n), 0);
            else W.setZero(s, t);
          } else W.setZero(s, t);
          pc++;
          continue;
        }
        case 0x41: // COINBASE
          W.setAddress(s, t + 8, this.block.coinbase);
          sp++;
          pc++;
          continue;
        case 0x42: // TIMESTAMP
          W.fromBig(s, t + 8, this.block.timestamp);
          sp++;
          pc++;
          continue;
        case 0x43: // NUMBER
          W.fromBig(s, t + 8, this.block.number);
          sp++;
          pc++;
          continue;
        case 0x44: // PREVRANDAO
          W.loadBE(s, t + 8, this.block.prevRandao, 0);
          sp++;
          pc++;
          continue;
        case 0x45: // GASLIMIT
          W.fromBig(s, t + 8, this.block.gasLimit);
          sp++;
          pc++;
          continue;
        case 0x46: // CHAINID
          W.fromBig(s, t + 8, this.rules.chainId);
          sp++;
          pc++;
          continue;
        case 0x47: // SELFBALANCE
          W.fromBig(s, t + 8, f.self.balance);
          sp++;
          pc++;
          continue;
        case 0x48: // BASEFEE
          W.fromBig(s, t + 8, this.block.baseFee);
          sp++;
          pc++;
          continue;
        case 0x49: {
          // BLOBHASH
          const hashes = this.tx.blobHashes;
          if (W.fitsU32(s, t) && s[t]! < hashes.length) W.loadBE(s, t, hashes[s[t]!]!, 0);
          else W.setZero(s, t);
          pc++;
          continue;
        }
        case 0x4a: // BLOBBASEFEE
          W.fromBig(s, t + 8, this.block.blobBaseFee);
          sp++;
          pc++;
          continue;
        case 0x50: // POP
          sp--;
          pc++;
          continue;
        case 0x51: {
          // MLOAD
          const off = u32OrInf(s, t);
          gas = off === Infinity ? -1 : this.expand(f, gas, off, 32);
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          W.loadBE(s, t, f.mem, off);
          pc++;
          continue;
        }
        case 0x52: {
          // MSTORE
          const off = u32OrInf(s, t);
          gas = off === Infinity ? -1 : this.expand(f, gas, off, 32);
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          W.storeBE(s, t - 8, f.mem, off);
          sp -= 2;
          pc++;
          continue;
        }
        case 0x53: {
          // MSTORE8
          const off = u32OrInf(s, t);
          gas = off === Infinity ? -1 : this.expand(f, gas, off, 1);
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          f.mem[off] = s[t - 8]!;
          sp -= 2;
          pc++;
          continue;
        }
        case 0x54: {
          // SLOAD
          const st = this.state;
          const sl = st.slot(f.self, s, t);
          if (st.warmSlot(f.self, sl)) {
            gas -= COLD_SLOAD;
          } else gas -= WARM_STORAGE_READ;
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          W.copyWord(s, t, sl.current, 0);
          pc++;
          continue;
        }
        case 0x55: {
          // SSTORE
          if (f.isStatic) {
            halt = Halt.STATIC_STATE_CHANGE;
            break;
          }
          f.sp = sp;
          gas = this.sstore(f, gas);
          if (gas < 0) {
            halt = -gas as Halt;
            break;
          }
          sp -= 2;
          pc++;
          continue;
        }
        case 0x56: {
          // JUMP
          const dest = W.fitsU32(s, t) ? s[t]! : Infinity;
          if (!(dest < f.codeSize) || jumpdests[dest] !== 1) {
            halt = Halt.INVALID_JUMP;
            break;
          }
          sp--;
          pc = dest;
          continue;
        }
        case 0x57: {
          // JUMPI
          if (W.isZero(s, t - 8)) {
            sp -= 2;
            pc++;
            continue;
          }
          const dest = W.fitsU32(s, t) ? s[t]! : Infinity;
          if (!(dest < f.codeSize) || jumpdests[dest] !== 1) {
            halt = Halt.INVALID_JUMP;
            break;
          }
          sp -= 2;
          pc = dest;
          continue;
        }
        case 0x58: // PC
          W.setSafe(s, t + 8, pc);
          sp++;
          pc++;
          continue;
        case 0x59: // MSIZE
          W.setSafe(s, t + 8, f.memSize);
          sp++;
          pc++;
          continue;
        case 0x5a: // GAS
          W.setSafe(s, t + 8, gas);
          sp++;
          pc++;
          continue;
        case 0x5b: // JUMPDEST
          pc++;
          continue;
        case 0x5c: {
          // TLOAD
          const v = this.state.tload(f.self, W.wordKey(s, t));
          W.copyWord(s, t, v, 0);
          pc++;
          continue;
        }
        case 0x5d: {
          // TSTORE
          if (f.isStatic) {
            halt = Halt.STATIC_STATE_CHANGE;
            break;
          }
          const v = new Uint32Array(8);
          W.copyWord(v, 0, s, t - 8);
          this.state.tstore(f.self, W.wordKey(s, t), v);
          sp -= 2;
          pc++;
          continue;
        }
        case 0x5f: // PUSH0
          W.setZero(s, t + 8);
          sp++;
          pc++;
          continue;
        case 0x60: {
          // PUSH1
          W.setZero(s, t + 8);
          s[t + 8] = code[pc + 1]!;
          sp++;
          pc += 2;
          continue;
        }
        case 0x61: {
          // PUSH2
          W.setZero(s, t + 8);
          s[t + 8] = (code[pc + 1]! << 8) | code[pc + 2]!;
          sp++;
          pc += 3;
          continue;
        }
        case 0x62: case 0x63: case 0x64: case 0x65: case 0x66: case 0x67: case 0x68: case 0x69: case 0x6a: case 0x6b: case 0x6c: case 0x6d: case 0x6e: case 0x6f:
        case 0x70: case 0x71: case 0x72: case 0x73: case 0x74: case 0x75: case 0x76: case 0x77: case 0x78: case 0x79: case 0x7a: case 0x7b: case 0x7c: case 0x7d: case 0x7e: case 0x7f: {
          // PUSH3 … PUSH32
          const n = op - 0x5f;
          W.loadBytesBE(s, t + 8, code, pc + 1, n);
          sp++;
          pc += n + 1;
          continue;
        }
        case 0x80: case 0x81: case 0x82: case 0x83: case 0x84: case 0x85: case 0x86: case 0x87:
        case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8c: case 0x8d: case 0x8e: case 0x8f: {
          // DUP1 … DUP16
          W.copyWord(s, t + 8, s, t - (op - 0x80) * 8);
          sp++;
          pc++;
          continue;
        }
        case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x95: case 0x96: case 0x97:
        case 0x98: case 0x99: case 0x9a: case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: {
          // SWAP1 … SWAP16
          const other = t - (op - 0x8f) * 8;
          for (let i = 0; i < 8; i++) {
            const x = s[t + i]!;
            s[t + i] = s[other + i]!;
            s[other + i] = x;
          }
          pc++;
          continue;
        }
        case 0xa0: case 0xa1: case 0xa2: case 0xa3: case 0xa4: {
          // LOG0 … LOG4
          if (f.isStatic) {
            halt = Halt.STATIC_STATE_CHANGE;
            break;
          }
          f.sp = sp;
          gas = this.log(f, op - 0xa0, gas);
          if (gas < 0) {
            halt = -gas as Halt;
            break;
          }
          sp -= 2 + op - 0xa0;
          pc++;
          continue;
        }
        case 0xf0: // CREATE
        case 0xf5: {
          // CREATE2
          if (f.isStatic) {
            halt = Halt.STATIC_STATE_CHANGE;
            break;
          }
          f.sp = sp;
          f.pc = pc + 1;
          gas = this.create(f, op === 0xf5, gas);
          if (gas < 0) {
            halt = -gas as Halt;
            break;
          }
          if (this.next !== undefined) return;
          sp = f.sp;
          pc++;
          continue;
        }
        case 0xf1: // CALL
        case 0xf2: // CALLCODE
        case 0xf4: // DELEGATECALL
        case 0xfa: {
          // STATICCALL
          f.sp = sp;
          f.pc = pc + 1;
          gas = this.call(f, op, gas);
          if (gas < 0) {
            halt = -gas as Halt;
            break;
          }
          if (this.next !== undefined) return;
          sp = f.sp;
          pc++;
          continue;
        }
        case 0xf3: // RETURN
        case 0xfd: {
          // REVERT
          const off = u32OrInf(s, t);
          const size = u32OrInf(s, t - 8);
          if (size > 0) {
            gas = off === Infinity || size === Infinity ? -1 : this.expand(f, gas, off, size);
            if (gas < 0) {
              halt = Halt.OUT_OF_GAS;
              break;
            }
            f.output = f.mem.slice(off, off + size);
          } else f.output = EMPTY;
          halt = op === 0xf3 ? Halt.RETURN : Halt.REVERT;
          break;
        }
        case 0xff: {
          // SELFDESTRUCT
          if (f.isStatic) {
            halt = Halt.STATIC_STATE_CHANGE;
            break;
          }
          f.sp = sp;
          gas = this.selfdestruct(f, gas);
          if (gas < 0) {
            halt = Halt.OUT_OF_GAS;
            break;
          }
          halt = Halt.STOP;
          break;
        }
        default:
          halt = Halt.INVALID_OPCODE;
          break;
      }
      break;
    }
    f.pc = pc;
    f.sp = sp;
    f.gas = gas < 0 ? 0 : gas;
    f.halt = halt;
    if (halt !== Halt.RETURN && halt !== Halt.REVERT) f.output = EMPTY;
  }

  /** CALLDATACOPY / CODECOPY / RETURNDATACOPY / MCOPY. Returns gas left, or −halt. */
  private copyOp(f: Frame, op: number, gas: number): number {
    const s = f.stack;
    const t = (f.sp - 1) * 8;
    const dst = u32OrInf(s, t);
    const size = u32OrInf(s, t - 16);
    if (op === 0x3e) {
      // RETURNDATACOPY: reading past the return data is an exceptional halt (EIP-211).
      const src = u32OrInf(s, t - 8);
      if (size === Infinity || src === Infinity || src + size > f.returnData.length) {
        // The halt after the gas checks (geth charges first; both consume all gas).
        return -Halt.RETURNDATA_OUT_OF_BOUNDS;
      }
    }
    if (size === Infinity) return -Halt.OUT_OF_GAS;
    gas -= G_COPY_WORD * words(size);
    if (gas < 0) return -Halt.OUT_OF_GAS;
    if (size === 0) return gas;
    if (op === 0x5e) {
      const src = u32OrInf(s, t - 8);
      if (src === Infinity || dst === Infinity) return -Halt.OUT_OF_GAS;
      gas = this.expand(f, gas, Math.max(src, dst), size);
      if (gas < 0) return -Halt.OUT_OF_GAS;
      f.mem.copyWithin(dst, src, src + size);
      return gas;
    }
    if (dst === Infinity) return -Halt.OUT_OF_GAS;
    gas = this.expand(f, gas, dst, size);
    if (gas < 0) return -Halt.OUT_OF_GAS;
    const source = op === 0x37 ? f.input : op === 0x39 ? f.code.subarray(0, f.codeSize) : f.returnData;
    copyPadded(f.mem, dst, source, W.fitsU32(s, t - 8) ? s[t - 8]! : Infinity, size);
    return gas;
  }

  /** EXTCODECOPY. Returns gas left, or −halt. */
  private extCodeCopy(f: Frame, gas: number): number {
    const s = f.stack;
    const t = (f.sp - 1) * 8;
    const e = this.state.account(W.toAddress(s, t));
    const dst = u32OrInf(s, t - 8);
    const size = u32OrInf(s, t - 24);
    if (size === Infinity) return -Halt.OUT_OF_GAS;
    gas -= G_COPY_WORD * words(size);
    if (gas < 0) return -Halt.OUT_OF_GAS;
    if (size > 0) {
      if (dst === Infinity) return -Halt.OUT_OF_GAS;
      gas = this.expand(f, gas, dst, size);
      if (gas < 0) return -Halt.OUT_OF_GAS;
    }
    if (this.state.warmAccount(e)) {
      gas -= COLD_ACCOUNT_ACCESS - WARM_STORAGE_READ;
      if (gas < 0) return -Halt.OUT_OF_GAS;
    }
    if (size > 0) copyPadded(f.mem, dst, this.state.code(e), W.fitsU32(s, t - 16) ? s[t - 16]! : Infinity, size);
    return gas;
  }

  /** SSTORE (EIP-2200 with EIP-2929 and EIP-3529). Returns gas left, or −halt. */
  private sstore(f: Frame, gas: number): number {
    if (gas <= SSTORE_SENTRY) return -Halt.OUT_OF_GAS;
    const st = this.state;
    const s = f.stack;
    const t = (f.sp - 1) * 8;
    const sl = st.slot(f.self, s, t);
    let cost = 0;
    if (st.warmSlot(f.self, sl)) cost += COLD_SLOAD;
    const original = sl.committed;
    const current = sl.current;
    const newIsCurrent = W.eqWords(s, t - 8, current, 0);
    if (newIsCurrent) cost += WARM_STORAGE_READ;
    else {
      const originalIsZero = original === ZERO_WORD || W.isZero(original, 0);
      const newIsZero = W.isZero(s, t - 8);
      if (original === current || W.eqWords(original, 0, current, 0)) {
        cost += originalIsZero ? SSTORE_SET : SSTORE_RESET;
        if (newIsZero) st.refund += SSTORE_CLEARS_REFUND;
      } else {
        cost += WARM_STORAGE_READ;
        if (!originalIsZero) {
          if (W.isZero(current, 0)) st.refund -= SSTORE_CLEARS_REFUND;
          else if (newIsZero) st.refund += SSTORE_CLEARS_REFUND;
        }
        if (W.eqWords(original, 0, s, t - 8)) st.refund += originalIsZero ? SSTORE_SET - WARM_STORAGE_READ : SSTORE_RESET - WARM_STORAGE_READ;
      }
    }
    gas -= cost;
    if (gas < 0) return -Halt.OUT_OF_GAS;
    if (!newIsCurrent) {
      let v: Uint32Array;
      if (W.isZero(s, t - 8)) v = ZERO_WORD;
      else {
        v = new Uint32Array(8);
        W.copyWord(v, 0, s, t - 8);
      }
      st.setSlot(f.self, sl, v);
    }
    return gas;
  }

  /** LOG0…LOG4. Returns gas left, or −halt. */
  private log(f: Frame, topics: number, gas: number): number {
    const s = f.stack;
    const t = (f.sp - 1) * 8;
    const off = u32OrInf(s, t);
    const size = u32OrInf(s, t - 8);
    if (size === Infinity) return -Halt.OUT_OF_GAS;
    gas -= G_LOG + G_LOG_TOPIC * topics + G_LOG_DATA * size;
    if (gas < 0) return -Halt.OUT_OF_GAS;
    if (size > 0) {
      if (off === Infinity) return -Halt.OUT_OF_GAS;
      gas = this.expand(f, gas, off, size);
      if (gas < 0) return -Halt.OUT_OF_GAS;
    }
    const ts: Uint8Array[] = [];
    for (let i = 0; i < topics; i++) ts.push(W.toBytes32(s, t - 16 - 8 * i));
    this.state.addLog({ address: f.self.address, topics: ts, data: size === 0 ? EMPTY : f.mem.slice(off, off + size) });
    return gas;
  }

  /** SELFDESTRUCT (EIP-6780 from Cancun). Returns gas left (negative: out of gas). */
  private selfdestruct(f: Frame, gas: number): number {
    const st = this.state;
    const s = f.stack;
    const t = (f.sp - 1) * 8;
    gas -= G_SELFDESTRUCT;
    if (gas < 0) return gas;
    const beneficiary = st.account(W.toAddress(s, t));
    if (st.warmAccount(beneficiary)) gas -= COLD_ACCOUNT_ACCESS;
    const self = f.self;
    const balance = self.balance;
    if (balance !== 0n && (!beneficiary.exists || beneficiary.isEmpty())) gas -= CALL_NEW_ACCOUNT;
    if (gas < 0) return gas;
    if (this.onTransfer !== undefined && balance !== 0n) this.onTransfer(self.address, beneficiary.address, balance);
    if (this.rules.selfdestructOnlyCreated) {
      st.subBalance(self, balance);
      st.addBalance(beneficiary, balance);
      if (self.created) {
        st.markDestructed(self);
        if (self.balance !== 0n) st.setBalance(self, 0n);
      }
    } else {
      st.addBalance(beneficiary, balance);
      st.markDestructed(self);
      if (self.balance !== 0n) st.setBalance(self, 0n);
    }
    return gas;
  }

  /**
   * CALL / CALLCODE / DELEGATECALL / STATICCALL: charges gas, then either finishes the call at
   * once (precompile, no code, depth or balance failure) pushing its result, or starts a child
   * frame ({@link next}). Returns the caller's gas left, or −halt.
   */
  private call(f: Frame, op: number, gas: number): number {
    const st = this.state;
    const s = f.stack;
    let t = (f.sp - 1) * 8;
    const hasValue = op === 0xf1 || op === 0xf2;
    const gasWanted = W.fitsSafe(s, t) ? W.toSafe(s, t) : Infinity;
    const to = W.toAddress(s, t - 8);
    let value = 0n;
    if (hasValue) {
      if (!W.isZero(s, t - 16)) value = W.toBig(s, t - 16);
      t -= 8;
    }
    const inOff = u32OrInf(s, t - 16);
    const inSize = u32OrInf(s, t - 24);
    const outOff = u32OrInf(s, t - 32);
    const outSize = u32OrInf(s, t - 40);
    f.sp -= hasValue ? 7 : 6;
    // Memory for the input and the output.
    if (inSize === Infinity || outSize === Infinity) return -Halt.OUT_OF_GAS;
    if (inSize > 0) {
      if (inOff === Infinity) return -Halt.OUT_OF_GAS;
      gas = this.expand(f, gas, inOff, inSize);
      if (gas < 0) return -Halt.OUT_OF_GAS;
    }
    if (outSize > 0) {
      if (outOff === Infinity) return -Halt.OUT_OF_GAS;
      gas = this.expand(f, gas, outOff, outSize);
      if (gas < 0) return -Halt.OUT_OF_GAS;
    }
    const target = st.account(to);
    if (st.warmAccount(target)) gas -= COLD_ACCOUNT_ACCESS - WARM_STORAGE_READ;
    // EIP-7702: calling a delegated account also pays for reading its delegate.
    let code = st.code(target);
    if (this.rules.setCode && isDelegation(code)) {
      const d = st.account(code.subarray(3, 23));
      gas -= st.warmAccount(d) ? COLD_ACCOUNT_ACCESS : WARM_STORAGE_READ;
      code = st.code(d);
    }
    if (value !== 0n) {
      gas -= CALL_VALUE;
      if (op === 0xf1 && (!target.exists || target.isEmpty())) gas -= CALL_NEW_ACCOUNT;
    }
    if (gas < 0) return -Halt.OUT_OF_GAS;
    if (op === 0xf1 && value !== 0n && f.isStatic) return -Halt.STATIC_STATE_CHANGE;
    // EIP-150: all but one 64th of what is left.
    const available = gas - Math.floor(gas / 64);
    let callGas = gasWanted < available ? gasWanted : available;
    gas -= callGas;
    if (value !== 0n) callGas += CALL_STIPEND;
    const o = f.sp * 8;
    const self = f.self;
    // Failures that return the gas: depth, balance.
    if (f.depth + 1 > MAX_CALL_DEPTH || (hasValue && value > self.balance)) {
      f.returnData = EMPTY;
      W.setZero(s, o);
      f.sp++;
      return gas + callGas;
    }
    const jLen = st.journalLength;
    const logsLen = st.logs.length;
    const refund = st.refund;
    const pre = this.precompileAt(to);
    const base = pre === undefined ? this.baseAt(to) : undefined;
    if (op === 0xf1) {
      if (!target.exists && pre === undefined && base === undefined && value === 0n) {
        // EIP-158: a zero-value call to a missing account does nothing (and creates nothing).
        f.returnData = EMPTY;
        W.setSafe(s, o, 1);
        f.sp++;
        return gas + callGas;
      }
      st.subBalance(self, value);
      st.addBalance(target, value);
      if (this.onTransfer !== undefined && value !== 0n) this.onTransfer(self.address, target.address, value);
    } else if (op === 0xfa) st.addBalance(target, 0n); // geth touches the STATICCALL target
    const input = inSize === 0 ? EMPTY : f.mem.slice(inOff, inOff + inSize);
    if (base !== undefined) {
      // The frame the precompile runs as: ADDRESS/CALLER/CALLVALUE of the call kind; DELEGATECALL and CALLCODE are not direct calls.
      const direct = op === 0xf1 || op === 0xfa;
      const caller = op === 0xf4 ? f.caller : self.address;
      const address = direct ? to : self.address;
      const r = this.runBase(base, input, caller, address, op === 0xf4 ? f.value : value, f.isStatic || op === 0xfa, callGas, direct, jLen, logsLen, refund);
      f.returnData = r.output;
      const n = Math.min(outSize, r.output.length);
      if (n > 0) f.mem.set(r.output.subarray(0, n), outOff);
      if (r.ok) W.setSafe(s, o, 1);
      else W.setZero(s, o);
      f.sp++;
      return gas + callGas - r.gasUsed;
    }
    if (pre !== undefined) {
      const r = pre(input, callGas);
      if (!r.ok) {
        st.revertTo(jLen, logsLen, refund);
        f.returnData = EMPTY;
        W.setZero(s, o);
        f.sp++;
        return gas;
      }
      f.returnData = r.output;
      const n = Math.min(outSize, r.output.length);
      if (n > 0) f.mem.set(r.output.subarray(0, n), outOff);
      W.setSafe(s, o, 1);
      f.sp++;
      return gas + callGas - r.gasUsed;
    }
    if (code.length === 0) {
      f.returnData = EMPTY;
      W.setSafe(s, o, 1);
      f.sp++;
      return gas + callGas;
    }
    const a = analyse(code);
    const depth = f.depth + 1;
    const childSelf = op === 0xf1 || op === 0xfa ? target : self;
    const caller = op === 0xf4 ? f.caller : self.address;
    const childValue = op === 0xf4 ? f.value : value;
    const kind = op === 0xf1 ? K_CALL : op === 0xf2 ? K_CALLCODE : op === 0xf4 ? K_DELEGATECALL : K_STATICCALL;
    const child = new Frame(kind, f, depth, a.code, a.size, a.jumpdests, this.stackFor(depth), this.memoryFor(depth), callGas, childSelf, caller, childValue, input, f.isStatic || op === 0xfa);
    child.jLen = jLen;
    child.logsLen = logsLen;
    child.refundSnap = refund;
    f.retOffset = outOff === Infinity ? 0 : outOff;
    f.retSize = outSize;
    f.gas = gas;
    this.next = child;
    return gas;
  }

  /** CREATE / CREATE2: like {@link call}, for creations. Returns the caller's gas left, or −halt. */
  private create(f: Frame, isCreate2: boolean, gas: number): number {
    const st = this.state;
    const s = f.stack;
    const t = (f.sp - 1) * 8;
    const value = W.isZero(s, t) ? 0n : W.toBig(s, t);
    const off = u32OrInf(s, t - 8);
    const size = u32OrInf(s, t - 16);
    let salt: Uint8Array | undefined;
    if (isCreate2) salt = W.toBytes32(s, t - 24);
    f.sp -= isCreate2 ? 4 : 3;
    if (size === Infinity) return -Halt.OUT_OF_GAS;
    if (this.rules.initcodeLimit && size > this.rules.maxInitcodeSize) {
      // EIP-3860: an oversized initcode is an exceptional halt of the creating frame.
      return -Halt.OUT_OF_GAS;
    }
    gas -= G_CREATE;
    if (this.rules.initcodeLimit) gas -= INITCODE_WORD * words(size);
    if (isCreate2) gas -= G_KECCAK_WORD * words(size);
    if (gas < 0) return -Halt.OUT_OF_GAS;
    if (size > 0) {
      if (off === Infinity) return -Halt.OUT_OF_GAS;
      gas = this.expand(f, gas, off, size);
      if (gas < 0) return -Halt.OUT_OF_GAS;
    }
    f.returnData = EMPTY;
    const callGas = gas - Math.floor(gas / 64);
    gas -= callGas;
    const o = f.sp * 8;
    const self = f.self;
    if (f.depth + 1 > MAX_CALL_DEPTH || value > self.balance || self.nonce >= MAX_NONCE) {
      W.setZero(s, o);
      f.sp++;
      return gas + callGas;
    }
    const initcode = size === 0 ? EMPTY : f.mem.slice(off, off + size);
    const address = isCreate2 ? create2Address(self.address, salt!, initcode) : createAddress(self.address, self.nonce);
    st.setNonce(self, self.nonce + 1n);
    const target = st.account(address);
    // Warm, but not listed by eth_createAccessList (geth's tracer lists only opcode-named accounts).
    st.warmAccount(target, false);
    if (target.nonce !== 0n || !isEmptyCodeHash(target.codeHash) || st.hasStorage(target)) {
      W.setZero(s, o);
      f.sp++;
      return gas;
    }
    const jLen = st.journalLength;
    const logsLen = st.logs.length;
    const refund = st.refund;
    st.markCreated(target);
    st.setNonce(target, 1n);
    st.subBalance(self, value);
    st.addBalance(target, value);
    if (this.onTransfer !== undefined && value !== 0n) this.onTransfer(self.address, address, value);
    if (size === 0) {
      W.setAddress(s, o, address);
      f.sp++;
      return gas + callGas;
    }
    const a = analyse(initcode, false);
    const depth = f.depth + 1;
    const child = new Frame(K_CREATE, f, depth, a.code, a.size, a.jumpdests, this.stackFor(depth), this.memoryFor(depth), callGas, target, self.address, value, EMPTY, false);
    child.jLen = jLen;
    child.logsLen = logsLen;
    child.refundSnap = refund;
    f.retSize = 0;
    f.gas = gas;
    this.next = child;
    return gas;
  }
}

/** Copies `size` bytes of `src` from `srcOff` into `mem` at `dst`, zero-filling past the end of `src`. */
function copyPadded(mem: Uint8Array, dst: number, src: Uint8Array, srcOff: number, size: number): void {
  if (srcOff >= src.length) {
    mem.fill(0, dst, dst + size);
    return;
  }
  const n = Math.min(size, src.length - srcOff);
  mem.set(src.subarray(srcOff, srcOff + n), dst);
  if (n < size) mem.fill(0, dst + n, dst + size);
}

/** The precompile number of an address (1…0xffff), or 0 when it is not in the precompile range. */
export function precompileIndex(a: Uint8Array): number {
  for (let i = 0; i < 18; i++) if (a[i] !== 0) return 0;
  return (a[18]! << 8) | a[19]!;
}

/** True for an EIP-7702 delegation designator (0xef0100 ‖ address). */
export function isDelegation(code: Uint8Array): boolean {
  return code.length === DELEGATION_LENGTH && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** CREATE address: keccak256(rlp([sender, nonce]))[12:]. */
export function createAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  let nonceBytes: Uint8Array;
  if (nonce === 0n) nonceBytes = Uint8Array.of(0x80);
  else if (nonce < 0x80n) nonceBytes = Uint8Array.of(Number(nonce));
  else {
    let hex = nonce.toString(16);
    if (hex.length % 2 === 1) hex = "0" + hex;
    const raw = Buffer.from(hex, "hex");
    nonceBytes = new Uint8Array(1 + raw.length);
    nonceBytes[0] = 0x80 + raw.length;
    nonceBytes.set(raw, 1);
  }
  const body = new Uint8Array(1 + 1 + 20 + nonceBytes.length);
  body[0] = 0xc0 + 21 + nonceBytes.length;
  body[1] = 0x94;
  body.set(sender, 2);
  body.set(nonceBytes, 22);
  return keccak256(body).slice(12);
}

/** CREATE2 address: keccak256(0xff ‖ sender ‖ salt ‖ keccak256(initcode))[12:] (EIP-1014). */
export function create2Address(sender: Uint8Array, salt: Uint8Array, initcode: Uint8Array): Uint8Array {
  const buf = new Uint8Array(85);
  buf[0] = 0xff;
  buf.set(sender, 1);
  buf.set(salt, 21);
  buf.set(keccak256(initcode), 53);
  return keccak256(buf).slice(12);
}
