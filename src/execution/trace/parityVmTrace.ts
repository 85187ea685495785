/**
 * Parity's `vmTrace` of one transaction (reth `trace_replayTransaction` with "vmTrace"): per
 * frame its `code` and `ops`, each op `{pc, cost, ex: {used, push, mem, store}, sub}` —
 * `used` the gas left after the op, `push` the stack words the op left on top (bottom first;
 * DUPn and SWAPn report the n+1 words they touch), `mem` the memory the op wrote
 * (`{off, data}`), `store` the slot an SSTORE wrote (`{key, val}`), `sub` the trace of the frame a
 * CALL/CREATE-family op entered. The op's outcome is read at the frame's next step.
 */
import { bytesToHex } from "@ethereumjs/util";
import { STACK_IN } from "../evm/opcodes.js";
import type { FrameEnter, StateView, Step } from "./tracer.js";

/** A frame's VM trace. */
export interface VmTrace {
  code: string;
  ops: VmOp[];
}

interface VmOp {
  pc: number;
  cost: number;
  ex: { used: number; push: string[]; mem: { off: number; data: string } | null; store: { key: string; val: string } | null } | null;
  sub: VmTrace | null;
}

interface Pending {
  op: VmOp;
  code: number;
  /** Stack height below the op's inputs. */
  base: number;
  gasAfter: bigint;
  /** Memory range the op writes: [offset, size]. */
  mem: [number, number] | undefined;
}

interface OpenFrame {
  depth: number;
  trace: VmTrace;
  pending: Pending | undefined;
}

const word = (v: bigint): string => "0x" + v.toString(16);

/** The memory range op `code` writes, from its stack before it ran (top last). */
function memWrite(code: number, st: bigint[]): [number, number] | undefined {
  const n = st.length;
  const at = (i: number): number => Number(st[n - 1 - i]!);
  switch (code) {
    case 0x52: // MSTORE
      return n >= 1 ? [at(0), 32] : undefined;
    case 0x53: // MSTORE8
      return n >= 1 ? [at(0), 1] : undefined;
    case 0x37: // CALLDATACOPY
    case 0x39: // CODECOPY
    case 0x3e: // RETURNDATACOPY
    case 0x5e: // MCOPY
      return n >= 3 ? [at(0), at(2)] : undefined;
    case 0x3c: // EXTCODECOPY
      return n >= 4 ? [at(1), at(3)] : undefined;
    case 0xf1: // CALL
    case 0xf2: // CALLCODE
      return n >= 7 ? [at(5), at(6)] : undefined;
    case 0xf4: // DELEGATECALL
    case 0xfa: // STATICCALL
      return n >= 6 ? [at(4), at(5)] : undefined;
    default:
      return undefined;
  }
}

/** Records the VM trace of one transaction. */
export class ParityVmRecorder {
  private readonly frames: OpenFrame[] = [];
  private root: VmTrace | undefined;

  constructor(private readonly state: StateView) {}

  /** A frame entered: its code is the callee's (the init code for a creation). */
  onEnter(f: FrameEnter): void {
    if (f.type === "SELFDESTRUCT") return;
    const code = f.type === "CREATE" || f.type === "CREATE2" ? f.input : (this.state.account(f.to)?.code ?? new Uint8Array());
    const trace: VmTrace = { code: bytesToHex(code), ops: [] };
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) this.root = trace;
    else if (parent.pending !== undefined) parent.pending.op.sub = trace;
    this.frames.push({ depth: f.depth, trace, pending: undefined });
  }

  /** A frame at `depth` exited (its last op ends without a next step: nothing pushed); a self-destruct's pseudo-frame is one deeper than any open frame. */
  onExit(depth: number): void {
    if (this.frames[this.frames.length - 1]?.depth !== depth) return;
    const f = this.frames.pop();
    if (f?.pending !== undefined) this.finish(f.pending, undefined, undefined, f.pending.gasAfter);
  }

  onStep(s: Step): void {
    const f = this.frames[s.depth - 1];
    if (f === undefined) return;
    if (f.pending !== undefined) this.finish(f.pending, s.stack, s.memory, s.gas);
    const st = s.stack;
    const op: VmOp = { pc: s.pc, cost: Number(s.gasCost), ex: null, sub: null };
    let store: { key: string; val: string } | null = null;
    if (s.op === 0x55 && st.length >= 2) store = { key: word(st[st.length - 1]!), val: word(st[st.length - 2]!) };
    op.ex = { used: 0, push: [], mem: null, store };
    f.trace.ops.push(op);
    const gasAfter = s.gas > s.gasCost ? s.gas - s.gasCost : 0n;
    f.pending = { op, code: s.op, base: Math.max(0, st.length - STACK_IN[s.op]!), gasAfter, mem: memWrite(s.op, st) };
  }

  private finish(p: Pending, stack: bigint[] | undefined, memory: Uint8Array | undefined, gasLeft: bigint): void {
    const ex = p.op.ex!;
    ex.used = Number(gasLeft);
    if (stack !== undefined) ex.push = stack.slice(p.base).map(word);
    if (p.mem !== undefined && memory !== undefined && p.mem[1] > 0) {
      const [off, size] = p.mem;
      const data = new Uint8Array(size);
      if (off < memory.length) data.set(memory.subarray(off, Math.min(off + size, memory.length)));
      ex.mem = { off, data: bytesToHex(data) };
    }
  }

  /** The transaction's VM trace (an empty one when no frame ran). */
  trace(): VmTrace {
    return this.root ?? { code: "0x", ops: [] };
  }
}
