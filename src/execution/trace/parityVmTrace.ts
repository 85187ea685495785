/**
 * Parity's `vmTrace` of one transaction (reth `trace_replayTransaction` with "vmTrace"): per
 * frame its `code` (a creation's: "0x"; a called account's: its code after the transaction) and `ops`, each op `{pc, op, cost, ex: {used, push, mem,
 * store}, sub}` as revm-inspectors writes them (checked against anvil, test/e2e/traceDiff.test.ts):
 * `used` the gas left before the op, `push` the stack words the op left on top (bottom first;
 * DUPn and SWAPn report the n+1 words they touch; the CALL and CREATE families the word below
 * their inputs, read before the callee ran), `cost` (a creation's with the gas handed over), `mem` the frame's whole memory before the op
 * with `off` its size, `store` null (see onStep), `sub` the trace of the
 * frame a CALL/CREATE-family op entered. The pushed words are read at the frame's next step.
 */
import { bytesToHex } from "@ethereumjs/util";
import { TRACE_STRUCT_LOG_MAX_BYTES } from "../constants.js";
import { STACK_IN } from "../evm/opcodes.js";
import type { FrameEnter, StateView, Step } from "./tracer.js";

/** A frame's VM trace. */
interface VmTrace {
  code: string;
  ops: VmOp[];
}

interface VmOp {
  pc: number;
  op: string;
  cost: number;
  ex: { used: number; push: string[]; mem: { off: number; data: string } | null; store: null } | null;
  sub: VmTrace | null;
}

interface Pending {
  op: VmOp;
  code: number;
  /** Stack height below the op's inputs. */
  base: number;
}

interface OpenFrame {
  depth: number;
  trace: VmTrace;
  pending: Pending | undefined;
}

/** CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2. */
const FRAME_OPS = new Set([0xf1, 0xf2, 0xf4, 0xfa, 0xf0, 0xf5]);

const word = (v: bigint): string => "0x" + v.toString(16);

/** Records the VM trace of one transaction. */
export class ParityVmRecorder {
  private readonly frames: OpenFrame[] = [];
  private root: VmTrace | undefined;
  /** Called frames: their code is the account's after the transaction (a contract destroyed by it: none). */
  private readonly called: { trace: VmTrace; address: Uint8Array }[] = [];

  /** Bytes of op text recorded so far (memory snapshots dominate). */
  private bytes = 0;
  /** Set once the trace passed `maxBytes`: recording stopped, the result is an error. */
  tooLarge = false;

  constructor(
    private readonly state: StateView,
    private readonly isPrecompile: (address: Uint8Array) => boolean,
    /** The size cap of the recorded ops (the struct log's: the answer's text must fit a worker's heap). */
    readonly maxBytes = TRACE_STRUCT_LOG_MAX_BYTES,
  ) {}

  /** A frame entered: its code is the callee's (the init code for a creation). */
  onEnter(f: FrameEnter): void {
    if (f.type === "SELFDESTRUCT") return;
    const trace: VmTrace = { code: "0x", ops: [] };
    if (f.type !== "CREATE" && f.type !== "CREATE2") this.called.push({ trace, address: f.to });
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) this.root = trace;
    // Calls to precompiles get no sub-trace (reth leaves them out of parity traces).
    else if (parent.pending !== undefined && (f.type === "CREATE" || f.type === "CREATE2" || !this.isPrecompile(f.to))) parent.pending.op.sub = trace;
    this.frames.push({ depth: f.depth, trace, pending: undefined });
  }

  /** A frame at `depth` exited (its last op ends without a next step: nothing pushed); a self-destruct's pseudo-frame is one deeper than any open frame. */
  onExit(depth: number): void {
    if (this.frames[this.frames.length - 1]?.depth !== depth) return;
    const f = this.frames.pop();
    if (f?.pending !== undefined) this.finish(f.pending, undefined);
  }

  onStep(s: Step): void {
    const f = this.frames[s.depth - 1];
    if (f === undefined || this.tooLarge) return;
    if (f.pending !== undefined) this.finish(f.pending, s.stack);
    const st = s.stack;
    // revm-inspectors records a step's storage change only with its state-diff switch, which reth's parity config leaves off (anvil: always null).
    const store = null;
    this.bytes += 2 * s.memory.length + 100;
    if (this.bytes > this.maxBytes) {
      this.tooLarge = true;
      return;
    }
    const mem = { off: s.memory.length, data: bytesToHex(s.memory) };
    let cost = s.gasCost;
    if (s.op === 0xf0 || s.op === 0xf5) {
      // revm counts the gas handed to the new contract in the creation's cost: all but 1/64 of what is left.
      const left = s.gas - cost;
      if (left > 0n) cost += left - left / 64n;
    }
    const base = Math.max(0, st.length - STACK_IN[s.op]!);
    // A call or creation: revm-inspectors reads one pushed word when the opcode hands over control,
    // before the callee ran — the word then below the opcode's inputs, if any.
    const push = FRAME_OPS.has(s.op) && base > 0 ? [word(st[base - 1]!)] : [];
    const op: VmOp = { pc: s.pc, op: s.opName, cost: Number(cost), ex: { used: Number(s.gas), push, mem, store }, sub: null };
    f.trace.ops.push(op);
    f.pending = { op, code: s.op, base };
  }

  private finish(p: Pending, stack: bigint[] | undefined): void {
    if (stack !== undefined && !FRAME_OPS.has(p.code)) p.op.ex!.push = stack.slice(p.base).map(word);
  }

  /** The transaction's VM trace (an empty one when no frame ran); read once the transaction has run. */
  trace(): VmTrace {
    for (const c of this.called) c.trace.code = bytesToHex(this.state.account(c.address)?.code ?? new Uint8Array());
    return this.root ?? { code: "0x", ops: [] };
  }
}
