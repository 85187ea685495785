/**
 * Parity's `trace` of one transaction as reth serves it (revm-inspectors' parity builder): the
 * call tree flattened, one entry per frame with `action` (call: callType, from, gas, input, to,
 * value; create: from, gas, init, value, creationMethod; suicide: address, balance,
 * refundAddress), `result` (call: gasUsed, output; create: address, code, gasUsed; null for a
 * self-destruct or a failure other than a revert), `error` in Parity's words, `subtraces`,
 * `traceAddress` and `type`. Calls to precompiles are left out (reth's parity traces, and anvil's
 * trace_replay*; anvil's trace_transaction alone lists them); a frame's
 * self-destruct comes right after the frame, numbered after its calls.
 */
import { bytesToHex } from "@ethereumjs/util";
import { PARITY_ERRORS } from "./flatCallTracer.js";
import type { FrameEnter, FrameExit, FrameType } from "./tracer.js";

/** Parity's texts for the geth errors the flat call tracer's table lacks (revm-inspectors' `as_error_msg`, parity style). */
const MORE_PARITY_ERRORS: Record<string, string> = {
  "write protection": "Mutable Call In Static Context",
  "insufficient balance for transfer": "Insufficient balance",
  "contract address collision": "Contract address collision",
  "invalid code: must not begin with 0xef": "Invalid code",
  "max initcode size exceeded": "Out of gas",
};

/** Parity's text of a geth error text (`Bad instruction`, `Stack underflow` for the opcode errors). */
export function parityError(gethError: string): string {
  const known = PARITY_ERRORS[gethError] ?? MORE_PARITY_ERRORS[gethError];
  if (known !== undefined) return known;
  if (gethError.startsWith("invalid opcode")) return "Bad instruction";
  if (gethError.startsWith("stack underflow")) return "Stack underflow";
  if (gethError.startsWith("stack limit reached")) return "Out of stack";
  return gethError;
}

/** One recorded frame. */
interface Frame {
  type: FrameType;
  from: Uint8Array;
  to: Uint8Array;
  gas: bigint;
  value: bigint | undefined;
  input: Uint8Array;
  gasUsed: bigint;
  output: Uint8Array;
  error: string | undefined;
  reverted: boolean;
  calls: Frame[];
}

const hex = (v: bigint): string => "0x" + v.toString(16);

/** Records the call tree of one transaction (engine gas: the top frame's gas is the limit less the intrinsic gas). */
export class ParityCallRecorder {
  private readonly stack: Frame[] = [];
  private root: Frame | undefined;

  constructor(private readonly isPrecompile: (address: Uint8Array) => boolean) {}

  onEnter(f: FrameEnter): void {
    const frame: Frame = { type: f.type, from: f.from, to: f.to, gas: f.gas, value: f.value, input: f.input, gasUsed: 0n, output: new Uint8Array(), error: undefined, reverted: false, calls: [] };
    if (this.stack.length === 0) this.root = frame;
    this.stack.push(frame);
  }

  onExit(f: FrameExit): void {
    const frame = this.stack.pop();
    if (frame === undefined) return;
    frame.gasUsed = f.gasUsed;
    frame.output = f.output;
    frame.error = f.error;
    frame.reverted = f.reverted;
    this.stack[this.stack.length - 1]?.calls.push(frame);
  }

  private kept(f: Frame): boolean {
    return f.type === "SELFDESTRUCT" || f.type === "CREATE" || f.type === "CREATE2" || !this.isPrecompile(f.to);
  }

  private entry(f: Frame, traceAddress: number[], subtraces: number): Record<string, unknown> {
    if (f.type === "SELFDESTRUCT") {
      return { action: { address: bytesToHex(f.from), balance: hex(f.value ?? 0n), refundAddress: bytesToHex(f.to) }, result: null, subtraces: 0, traceAddress, type: "suicide" };
    }
    const create = f.type === "CREATE" || f.type === "CREATE2";
    const action = create
      ? { from: bytesToHex(f.from), gas: hex(f.gas), init: bytesToHex(f.input), value: hex(f.value ?? 0n), creationMethod: f.type.toLowerCase() }
      : { from: bytesToHex(f.from), callType: f.type.toLowerCase(), gas: hex(f.gas), input: bytesToHex(f.input), to: bytesToHex(f.to), value: hex(f.value ?? 0n) };
    const out: Record<string, unknown> = { action };
    if (f.error !== undefined) out.error = parityError(f.error);
    // reth: no result for a failure other than a revert.
    if (f.error !== undefined && !f.reverted) out.result = null;
    else if (create) out.result = { address: bytesToHex(f.to), code: bytesToHex(f.output), gasUsed: hex(f.gasUsed) };
    else out.result = { gasUsed: hex(f.gasUsed), output: bytesToHex(f.output) };
    out.subtraces = subtraces;
    out.traceAddress = traceAddress;
    out.type = create ? "create" : "call";
    return out;
  }

  private flatten(f: Frame, traceAddress: number[], out: Record<string, unknown>[]): void {
    const calls = f.calls.filter((c) => this.kept(c));
    out.push(this.entry(f, traceAddress, calls.length));
    // revm-inspectors yields a frame's self-destruct right after the frame itself.
    const sd = calls.findIndex((c) => c.type === "SELFDESTRUCT");
    if (sd >= 0) out.push(this.entry(calls[sd]!, [...traceAddress, sd], 0));
    calls.forEach((c, i) => {
      if (i !== sd) this.flatten(c, [...traceAddress, i], out);
    });
  }

  /** The flat trace (entries without block or transaction fields); [] when no frame ran. */
  traces(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    if (this.root !== undefined) this.flatten(this.root, [], out);
    return out;
  }
}
