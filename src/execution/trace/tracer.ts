/**
 * What a tracer sees of one transaction's execution, in geth's terms (core/tracing hooks): the
 * transaction's start and end, each call frame entered and exited, and each opcode step. The
 * hooks driver (hooks.ts) turns the reference engine's events into these; the tracers
 * (structLogger.ts, callTracer.ts, …) only read them and build geth's JSON.
 */

/** geth's call frame types (vm.OpCode names). */
export type FrameType = "CALL" | "CALLCODE" | "DELEGATECALL" | "STATICCALL" | "CREATE" | "CREATE2" | "SELFDESTRUCT";

/** An account as a tracer reads it. */
export interface AccountView {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

/** Synchronous reads of the state as it is at the moment of the call (the transaction's changes so far included). */
export interface StateView {
  /** The account, or undefined when it does not exist. */
  account(address: Uint8Array): AccountView | undefined;
  /** A storage slot's value (32 bytes). */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array;
}

/** The start of a transaction. */
export interface TxStart {
  from: Uint8Array;
  /** undefined for a contract creation. */
  to: Uint8Array | undefined;
  value: bigint;
  gasLimit: bigint;
  input: Uint8Array;
  /** The block's fee recipient. */
  coinbase: Uint8Array;
  /** The sender's nonce before the transaction (a creation's address). */
  nonce: bigint;
  state: StateView;
  /** Whether `address` is a precompile of the block's fork. */
  isPrecompile(address: Uint8Array): boolean;
  /** Where the transaction sits (flatCallTracer's fields); a call traced outside a block has index 0 and a zero hash. */
  blockHash: string;
  blockNumber: bigint;
  txHash: string;
  txIndex: number;
}

/** A call frame entered. */
export interface FrameEnter {
  /** 0 for the transaction's own frame. */
  depth: number;
  type: FrameType;
  from: Uint8Array;
  to: Uint8Array;
  input: Uint8Array;
  gas: bigint;
  /** undefined for STATICCALL. */
  value: bigint | undefined;
}

/** A call frame exited. */
export interface FrameExit {
  depth: number;
  gasUsed: bigint;
  output: Uint8Array;
  /** geth's error text (`execution reverted`, `out of gas`, …); undefined on success. */
  error: string | undefined;
  reverted: boolean;
}

/** One opcode about to run. */
export interface Step {
  pc: number;
  op: number;
  /** geth's opcode name. */
  opName: string;
  /** Gas left before the opcode. */
  gas: bigint;
  /** geth's cost of the opcode (for the CALL family: with the gas handed to the callee). */
  gasCost: bigint;
  /** 1 for the transaction's frame (geth's depth). */
  depth: number;
  /** Bottom first. */
  stack: bigint[];
  memory: Uint8Array;
  refund: bigint;
  /** The executing account (storage owner). */
  address: Uint8Array;
  /** The last call's return data in this frame. */
  returnData: Uint8Array;
  state: StateView;
}

/** The end of a transaction. */
export interface TxEnd {
  /** Gas the receipt records (after refunds). */
  gasUsed: bigint;
  output: Uint8Array;
  error: string | undefined;
  reverted: boolean;
  state: StateView;
}

/** A tracer of one transaction. */
export interface Tracer {
  /** Whether the tracer needs opcode steps (they cost the engine a snapshot per opcode). */
  readonly wantsSteps: boolean;
  onTxStart(t: TxStart): void;
  onEnter(f: FrameEnter): void;
  onExit(f: FrameExit): void;
  onStep(s: Step): void;
  /** A step failed before it ran (geth logs the error on the step): out of gas, stack errors. */
  onStepError(depth: number, error: string): void;
  onLog(depth: number, address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void;
  /** A storage slot read or written by a native precompile (Base's, from Beryl): no opcode step shows it. */
  onPrecompileStorage?(address: Uint8Array, slot: Uint8Array): void;
  onTxEnd(e: TxEnd): void;
  /** The result as JSON text. */
  result(): string;
  /** Stops recording; {@link result} then fails with `reason`. */
  stop(reason: Error): void;
}

/** A tracer's no-op hooks, to spread into tracers that need only some. */
export const NO_HOOKS = {
  onTxStart(): void {},
  onEnter(): void {},
  onExit(): void {},
  onStep(): void {},
  onStepError(): void {},
  onLog(): void {},
  onTxEnd(): void {},
};
