/**
 * The hooks driver: attaches a {@link Tracer} to the reference engine (@ethereumjs/evm events
 * `beforeMessage`, `afterMessage`, `newContract`, `step`) for one transaction and translates the
 * events into geth's tracing model — frame types and addresses as geth reports them (a
 * DELEGATECALL frame goes from the executing contract to the code's address), gas costs of the
 * CALL family including the gas handed to the callee, SELFDESTRUCT frames, LOG records, the last
 * call's return data, and geth's error texts.
 */
import type { EVM } from "@ethereumjs/evm";
import { Address, setLengthLeft, bigIntToBytes, KECCAK256_NULL } from "@ethereumjs/util";
import type { OverlayStateManager } from "../state/overlayStateManager.js";
import { STACK_GROW, STACK_IN } from "../evm/opcodes.js";
import type { FrameType, StateView, Tracer } from "./tracer.js";
import { observeBasePrecompiles } from "../op/basePrecompiles.js";

/** geth's texts for the engine's errors (core/vm/errors.go). */
const GETH_ERRORS: Record<string, string> = {
  "out of gas": "out of gas",
  "code store out of gas": "contract creation code storage out of gas",
  "code size to deposit exceeds maximum code size": "max code size exceeded",
  "stack underflow": "stack underflow",
  "stack overflow": "stack limit reached 1024 (1023)",
  "invalid JUMP": "invalid jump destination",
  "static state change": "write protection",
  "create collision": "contract address collision",
  "insufficient balance": "insufficient balance for transfer",
  "invalid bytecode deployed": "invalid code: must not begin with 0xef",
  "initcode exceeds max initcode size": "max initcode size exceeded",
  "value out of range": "return data out of bounds",
  revert: "execution reverted",
};

/** geth's names where they differ from the engine's (core/vm/opcodes.go). */
const GETH_OP_NAMES: Record<number, string> = { 0x44: "DIFFICULTY", 0x20: "KECCAK256" };

/** geth's name of opcode `op` (`opcode 0x.. not defined` for undefined ones). */
function gethOpName(op: number, engineName: string): string {
  const known = GETH_OP_NAMES[op];
  if (known !== undefined) return known;
  if (engineName === "INVALID" && op !== 0xfe) return `opcode 0x${op.toString(16)} not defined`;
  return engineName;
}

/** The frame's last opcode as the step saw it. */
interface LastOp {
  op: number;
  name: string;
  stackLen: number;
}

/** geth's error text of an engine error (the opcode errors name the opcode and the stack, as geth's do). */
export function gethError(engineError: string, lastOp: LastOp | undefined): string {
  if (engineError === "invalid opcode") return `invalid opcode: ${lastOp === undefined ? "INVALID" : gethOpName(lastOp.op, lastOp.name)}`;
  if (engineError === "stack underflow" && lastOp !== undefined) return `stack underflow (${lastOp.stackLen} <=> ${STACK_IN[lastOp.op]})`;
  if (engineError === "stack overflow" && lastOp !== undefined) return `stack limit reached ${lastOp.stackLen} (${1024 - STACK_GROW[lastOp.op]!})`;
  return GETH_ERRORS[engineError] ?? engineError;
}

/** A {@link StateView} over an overlay state manager. */
export function stateViewOf(state: OverlayStateManager): StateView {
  return {
    account(address) {
      const a = state.getAccountSync(address);
      if (a === undefined) return undefined;
      const code = a.codeHash.length === 32 && !equal(a.codeHash, KECCAK256_NULL) ? state.getCodeSync(address) : new Uint8Array();
      return { balance: a.balance, nonce: a.nonce, code, codeHash: a.codeHash };
    },
    storage(address, slot) {
      return setLengthLeft(state.getStorageSync(address, slot), 32);
    },
  };
}

/** A stack word as 32 bytes (big-endian). */
function word32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const CALL_OPS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
/** Engine errors raised by an opcode before it runs (gas, stack): geth records them on the step. */
const STEP_ERRORS = new Set(["out of gas", "stack underflow", "stack overflow"]);

interface OpenFrame {
  depth: number;
  isStatic: boolean;
  /** The message (creates: its `to` is set by the engine once the address is generated). */
  msg: EngineMessage;
  entered: boolean;
  type: FrameType;
  from: Uint8Array;
  input: Uint8Array;
  gas: bigint;
  value: bigint | undefined;
  returnData: Uint8Array;
  lastOp?: LastOp;
}

interface EngineMessage {
  to?: Address;
  caller: Address;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  depth: number;
  isStatic: boolean;
  delegatecall: boolean;
  salt?: Uint8Array;
  _codeAddress?: Address;
}

interface EngineResult {
  createdAddress?: Address;
  execResult: { returnValue: Uint8Array; executionGasUsed: bigint; exceptionError?: { error: string } };
}

interface EngineStep {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: { name: string; fee: number; dynamicFee?: bigint; code: number };
  stack: bigint[];
  depth: number;
  address: Address;
  memory: Uint8Array;
}

/** What the engine's interpreter run leaves (the fields read here). */
interface InterpreterOutcome {
  exceptionError?: { error: string };
  runState: {
    programCounter: number;
    opCode: number;
    gasLeft: bigint;
    gasRefund: bigint;
    stack: { getStack(): bigint[] };
    memory: { _store: Uint8Array };
    memoryWordCount: bigint;
  };
}

/** Opcodes that end a frame themselves (the engine then leaves its loop with the pc past them). */
const HALTING_OPS = new Set([0x00, 0xf3, 0xfd, 0xff]);

/** What the driver reports after the transaction: the top frame's outcome. */
interface TopOutcome {
  output: Uint8Array;
  error: string | undefined;
  reverted: boolean;
  /** False when no frame ran (e.g. a deposit refused before execution). */
  ran: boolean;
}

/**
 * Attaches `tracer` to `evm` for one transaction sent by `sender`; returns the detach function
 * and the top frame's outcome (filled when the transaction's frame exits).
 * @param deadline `performance.now()` time after which the tracer is stopped with `onTimeout()`'s error
 */
export function attachTracer(evm: EVM, tracer: Tracer, state: StateView, sender: Uint8Array, deadline: number, onTimeout: () => Error): { detach(): void; top: TopOutcome } {
  const frames: OpenFrame[] = [];
  const top: TopOutcome = { output: new Uint8Array(), error: undefined, reverted: false, ran: false };
  let stopped = false;
  const checkDeadline = (): void => {
    if (!stopped && performance.now() >= deadline) {
      stopped = true;
      tracer.stop(onTimeout());
    }
  };

  const enter = (f: OpenFrame, to: Uint8Array): void => {
    if (f.entered) return;
    f.entered = true;
    tracer.onEnter({ depth: f.depth, type: f.type, from: f.from, to, input: f.input, gas: f.gas, value: f.value });
  };

  const beforeMessage = (m: EngineMessage): void => {
    checkDeadline();
    const parent = frames[frames.length - 1];
    let type: FrameType;
    let from = m.caller.bytes;
    let to = m.to?.bytes;
    let value: bigint | undefined = m.value;
    // The opcode that sent the message, when steps are seen; else the message's shape tells.
    const issued = parent?.lastOp?.op;
    if (m.to === undefined) type = m.salt !== undefined ? "CREATE2" : "CREATE";
    else if (m.delegatecall) {
      type = "DELEGATECALL";
      from = m.to.bytes;
      to = m._codeAddress?.bytes ?? m.to.bytes;
    } else if (issued === 0xf2 || (issued === undefined && m._codeAddress !== undefined && !equal(m._codeAddress.bytes, m.to.bytes))) {
      type = "CALLCODE";
      to = m._codeAddress?.bytes ?? m.to.bytes;
    } else if (issued === 0xfa || (issued === undefined && m.isStatic && parent !== undefined && !parent.isStatic)) {
      type = "STATICCALL";
      value = undefined;
    } else type = "CALL";
    if (m.depth === 0) from = sender;
    // The engine's calldata is a view of the caller's memory, which the call's output overwrites: copy it.
    const f: OpenFrame = { depth: m.depth, isStatic: m.isStatic, msg: m, entered: false, type, from, input: m.data.slice(), gas: m.gasLimit, value, returnData: new Uint8Array() };
    frames.push(f);
    if (to !== undefined) enter(f, to);
  };

  const newContract = (e: { address: Address }): void => {
    const f = frames[frames.length - 1];
    if (f !== undefined) enter(f, e.address.bytes);
  };

  const afterMessage = (r: EngineResult): void => {
    const f = frames.pop();
    if (f === undefined) return;
    if (!f.entered) enter(f, f.msg.to?.bytes ?? r.createdAddress?.bytes ?? new Uint8Array(20));
    const ex = r.execResult;
    const engineError = ex.exceptionError?.error;
    const reverted = engineError === "revert";
    const error = engineError === undefined ? undefined : gethError(engineError, f.lastOp);
    // geth hands back the callee's output on success and its revert data on revert, nothing on other failures.
    const output = engineError === undefined || reverted ? ex.returnValue.slice() : new Uint8Array();
    // Failures of the frame's own last opcode before it ran: geth logs them on that step.
    if (f.lastOp !== undefined && error !== undefined && STEP_ERRORS.has(engineError!)) tracer.onStepError(f.depth + 1, error);
    tracer.onExit({ depth: f.depth, gasUsed: ex.executionGasUsed, output, error, reverted });
    const parent = frames[frames.length - 1];
    if (parent !== undefined) parent.returnData = f.type === "CREATE" || f.type === "CREATE2" ? (reverted ? output : new Uint8Array()) : output;
    if (f.depth === 0) {
      top.output = output;
      top.error = error;
      top.reverted = reverted;
      top.ran = true;
    }
  };

  const step = (s: EngineStep): void => {
    checkDeadline();
    const f = frames[frames.length - 1];
    const op = s.opcode.code;
    const name = gethOpName(op, s.opcode.name);
    let cost = s.opcode.dynamicFee ?? BigInt(s.opcode.fee);
    const stack = s.stack;
    if (CALL_OPS.has(op) && stack.length >= 1) {
      // geth's CALL cost includes the gas handed to the callee (EIP-150: at most all but 1/64 of what is left).
      const avail = s.gasLeft - cost;
      if (avail > 0n) {
        const cap = avail - avail / 64n;
        const want = stack[stack.length - 1]!;
        cost += want < cap ? want : cap;
      }
    }
    if (f !== undefined) {
      // One record per frame, overwritten each step (the steps of a tracer run by the hundred thousand).
      const last = f.lastOp;
      if (last === undefined) f.lastOp = { op, name: s.opcode.name, stackLen: stack.length };
      else {
        last.op = op;
        last.name = s.opcode.name;
        last.stackLen = stack.length;
      }
    }
    tracer.onStep({
      pc: s.pc,
      op,
      opName: name,
      gas: s.gasLeft,
      gasCost: cost,
      depth: s.depth + 1,
      stack,
      memory: s.memory,
      refund: s.gasRefund,
      address: s.address.bytes,
      returnData: f?.returnData ?? new Uint8Array(),
      state,
    });
    // A call or creation replaces the frame's return data once it returns (nothing when it fails to start).
    if (f !== undefined && (CALL_OPS.has(op) || op === 0xf0 || op === 0xf5)) f.returnData = new Uint8Array();
    if (op >= 0xa0 && op <= 0xa4 && stack.length >= 2 + (op - 0xa0)) {
      const n = stack.length;
      const offset = Number(stack[n - 1]!);
      const size = Number(stack[n - 2]!);
      const topics: Uint8Array[] = [];
      for (let i = 0; i < op - 0xa0; i++) topics.push(word32(stack[n - 3 - i]!));
      const data = new Uint8Array(size);
      if (offset < s.memory.length) data.set(s.memory.subarray(offset, Math.min(offset + size, s.memory.length)));
      tracer.onLog(s.depth, s.address.bytes, topics, data);
    }
    if (op === 0xff && stack.length >= 1) {
      // geth reports a self-destruct as a frame of its own: the contract's balance to the beneficiary.
      const beneficiary = setLengthLeft(bigIntToBytes(stack[stack.length - 1]!), 20).slice(-20);
      const balance = state.account(s.address.bytes)?.balance ?? 0n;
      tracer.onEnter({ depth: s.depth + 1, type: "SELFDESTRUCT", from: s.address.bytes, to: beneficiary, input: new Uint8Array(), gas: 0n, value: balance });
      tracer.onExit({ depth: s.depth + 1, gasUsed: 0n, output: new Uint8Array(), error: undefined, reverted: false });
    }
  };

  // geth logs a STOP when execution runs past the end of the code; the engine just leaves its loop.
  const engine = evm as unknown as { runInterpreter: (message: EngineMessage & { code?: Uint8Array }, opts?: unknown) => Promise<InterpreterOutcome> };
  const runInterpreter = engine.runInterpreter;
  if (tracer.wantsSteps) {
    engine.runInterpreter = async (message, opts) => {
      const res = await runInterpreter.call(evm, message, opts);
      const rs = res.runState;
      const code = message.code ?? new Uint8Array();
      if (res.exceptionError === undefined && code.length > 0 && rs.programCounter >= code.length && !HALTING_OPS.has(rs.opCode)) {
        const words = Number(rs.memoryWordCount);
        step({
          pc: rs.programCounter,
          gasLeft: rs.gasLeft,
          gasRefund: rs.gasRefund,
          opcode: { name: "STOP", fee: 0, dynamicFee: 0n, code: 0 },
          stack: rs.stack.getStack(),
          depth: message.depth,
          address: message.to!,
          memory: rs.memory._store.subarray(0, words * 32),
        });
      }
      return res;
    };
  }
  // Base's native precompiles read, write and log without opcodes: they report to the tracer directly.
  const detachBase = observeBasePrecompiles(evm, {
    storage: (address, slot) => tracer.onPrecompileStorage?.(address, slot),
    log: (address, topics, data) => tracer.onLog(frames[frames.length - 1]?.depth ?? 0, address, topics, data),
  });
  const events = evm.events;
  events.on("beforeMessage", beforeMessage as never);
  events.on("afterMessage", afterMessage as never);
  events.on("newContract", newContract as never);
  if (tracer.wantsSteps) events.on("step", step as never);
  return {
    top,
    detach() {
      events.off("beforeMessage", beforeMessage as never);
      events.off("afterMessage", afterMessage as never);
      events.off("newContract", newContract as never);
      events.off("step", step as never);
      engine.runInterpreter = runInterpreter;
      detachBase();
    },
  };
}
