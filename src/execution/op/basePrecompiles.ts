/**
 * Base's native precompiles in the reference engine (@ethereumjs/evm): a call whose code address
 * is one of them runs the same logic as in the fast engine (`src/execution/base`), over a
 * {@link BaseStateHost} on the EVM's journal (EIP-2929 warm sets, touched accounts), its transient
 * storage and basalt's `OverlayStateManager` (whose writes and checkpoints are synchronous).
 *
 * @ethereumjs runs a precompile with only its input and gas; the Base precompiles also need the
 * call's caller, value, static flag and whether it is a direct call. {@link installBasePrecompiles}
 * therefore resolves them where the EVM loads a call's code (`_loadCode`), binding the message to
 * the function it hands to `runPrecompile`. The singletons are also added to the EVM's precompile
 * map, which @ethereumjs/vm warms at the start of every transaction (EIP-2929), as revm warms
 * base/base's extended precompiles; B-20 token addresses are looked up, not listed, so they start cold.
 *
 * Results map to @ethereumjs's precompile results: success with the precompile's logs (and its
 * SSTORE refund added to the message's counter), a revert with its data and the gas used, an
 * out-of-gas halt consuming all the call's gas. The EVM reverts the call's checkpoint on the last two.
 */
import type { Common } from "@ethereumjs/common";
import { EVMError, type EVM, type ExecResult, type PrecompileInput } from "@ethereumjs/evm";
import { Address, KECCAK256_NULL, bytesToBigInt, equalsBytes } from "@ethereumjs/util";
import type { OpFork } from "../../chain/op/forks.js";
import { TypedError } from "../../util/errors.js";
import { EVM_SCHEDULE } from "../base/gas.js";
import type { AccountRead, BaseLog, BaseStateHost, SlotRead, SlotWrite } from "../base/host.js";
import { runBasePrecompile, type BasePrecompileHandler } from "../base/outcome.js";
import type { BasePrecompiles } from "../base/registry.js";
import { u256Bytes } from "../base/slots.js";
import type { OpCustomPrecompile } from "./precompiles.js";

/** What the host needs of the state manager: basalt's OverlayStateManager's synchronous reads and writes. */
interface SyncStateManager {
  getAccountSync(address: Uint8Array): { nonce: bigint; balance: bigint; codeHash: Uint8Array; isEmpty(): boolean } | undefined;
  getStorageSync(address: Uint8Array, key: Uint8Array): Uint8Array;
  originalStorageSync(address: Uint8Array, key: Uint8Array): Uint8Array;
  putStorageSync(address: Uint8Array, key: Uint8Array, value: Uint8Array): void;
  putCode(address: Address, code: Uint8Array): Promise<void>;
}

/** The parts of @ethereumjs/evm's internals the adapter uses (`_loadCode`, the message fields, the block and tx). */
interface EvmInternals {
  _loadCode(message: EvmMessage): Promise<void>;
  _block?: { header: { number: bigint; timestamp: bigint; coinbase: Address } };
  _tx?: { origin?: Address };
  common: Common;
  stateManager: unknown;
  journal: {
    isWarmedAddress(a: Uint8Array): boolean;
    addWarmedAddress(a: Uint8Array): void;
    isWarmedStorage(a: Uint8Array, slot: Uint8Array): boolean;
    addWarmedStorage(a: Uint8Array, slot: Uint8Array): void;
    touchAccount(address: string): void;
    checkpoint(): Promise<void>;
    commit(): Promise<void>;
    revert(): Promise<void>;
  };
  transientStorage: {
    get(a: Address, key: Uint8Array): Uint8Array;
    put(a: Address, key: Uint8Array, value: Uint8Array): void;
    checkpoint(): void;
    commit(): void;
    revert(): void;
  };
}

/** The fields of an @ethereumjs `Message` the adapter reads. */
interface EvmMessage {
  code?: unknown;
  isCompiled?: boolean;
  codeAddress: Address;
  to: Address;
  caller: Address;
  value: bigint;
  isStatic: boolean;
  delegatecall: boolean;
  gasRefund: bigint;
}

/** Stable code of {@link BasePrecompileStateError}. */
const BasePrecompileStateErrorCode = { PRECOMPILE_STATE_MANAGER: "BASE_PRECOMPILE_STATE_MANAGER" } as const;
/** A {@link BasePrecompileStateError}'s code with its metadata. */
type BasePrecompileStateErrorType = { code: typeof BasePrecompileStateErrorCode.PRECOMPILE_STATE_MANAGER };

/** The reference engine's state manager cannot serve the Base precompiles (they read and write it synchronously). */
export class BasePrecompileStateError extends TypedError<BasePrecompileStateErrorType> {
  constructor() {
    super({ code: BasePrecompileStateErrorCode.PRECOMPILE_STATE_MANAGER }, "Base precompiles need basalt's OverlayStateManager (synchronous reads and writes); the EVM was built over another state manager");
  }
}

/** Stable code of {@link BasePrecompileUnboundError}. */
const BasePrecompileUnboundErrorCode = { UNBOUND: "BASE_PRECOMPILE_UNBOUND" } as const;
/** A {@link BasePrecompileUnboundError}'s code with its metadata. */
type BasePrecompileUnboundErrorType = { code: typeof BasePrecompileUnboundErrorCode.UNBOUND };

/** A Base precompile entry ran on an EVM where {@link installBasePrecompiles} did not bind its call context. */
class BasePrecompileUnboundError extends TypedError<BasePrecompileUnboundErrorType> {
  constructor() {
    super({ code: BasePrecompileUnboundErrorCode.UNBOUND }, "a Base precompile ran without its call context; expected installBasePrecompiles on this EVM");
  }
}

function syncState(evm: EvmInternals): SyncStateManager {
  const sm = evm.stateManager as Partial<SyncStateManager>;
  if (typeof sm.getStorageSync !== "function" || typeof sm.putStorageSync !== "function" || typeof sm.originalStorageSync !== "function") throw new BasePrecompileStateError();
  return sm as SyncStateManager;
}

/** Strips leading zero bytes (storage values as the state manager keeps them). */
function stripped(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

/** {@link BaseStateHost} over @ethereumjs/evm's journal and basalt's OverlayStateManager. */
class EthereumjsBaseHost implements BaseStateHost {
  /** Logs emitted so far in this call (returned with a successful result). */
  readonly logs: BaseLog[] = [];
  private readonly marks: number[] = [];
  private readonly sm: SyncStateManager;

  constructor(private readonly evm: EvmInternals) {
    this.sm = syncState(evm);
  }

  /** Storage accesses are reported to a tracer when one is attached (see {@link observeBasePrecompiles}). */
  private observe(address: Uint8Array, key: Uint8Array): void {
    observers.get(this.evm)?.storage(address, key);
  }

  sload(address: Uint8Array, slot: bigint): SlotRead {
    const key = u256Bytes(slot);
    this.observe(address, key);
    const j = this.evm.journal;
    const cold = !j.isWarmedStorage(address, key);
    if (cold) j.addWarmedStorage(address, key);
    return { value: bytesToBigInt(this.sm.getStorageSync(address, key)), cold };
  }

  sstore(address: Uint8Array, slot: bigint, value: bigint): SlotWrite {
    const key = u256Bytes(slot);
    this.observe(address, key);
    const j = this.evm.journal;
    const cold = !j.isWarmedStorage(address, key);
    if (cold) j.addWarmedStorage(address, key);
    const w: SlotWrite = { original: bytesToBigInt(this.sm.originalStorageSync(address, key)), present: bytesToBigInt(this.sm.getStorageSync(address, key)), cold };
    this.sm.putStorageSync(address, key, stripped(u256Bytes(value)));
    return w;
  }

  tload(address: Uint8Array, slot: bigint): bigint {
    return bytesToBigInt(this.evm.transientStorage.get(new Address(address), u256Bytes(slot)));
  }

  tstore(address: Uint8Array, slot: bigint, value: bigint): void {
    this.evm.transientStorage.put(new Address(address), u256Bytes(slot), u256Bytes(value));
  }

  account(address: Uint8Array): AccountRead {
    const j = this.evm.journal;
    const cold = !j.isWarmedAddress(address);
    if (cold) j.addWarmedAddress(address);
    const a = this.sm.getAccountSync(address);
    if (a === undefined) return { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, empty: true, cold };
    return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, empty: a.isEmpty(), cold };
  }

  setCode(address: Uint8Array, code: Uint8Array): void {
    // OverlayStateManager's putCode writes synchronously; the promise only reports completion.
    void this.sm.putCode(new Address(address), code);
    this.evm.journal.touchAccount(Buffer.from(address).toString("hex"));
  }

  log(log: BaseLog): void {
    this.logs.push(log);
    observers.get(this.evm)?.log(log.address, log.topics, log.data);
  }

  checkpoint(): number {
    // The journal's and OverlayStateManager's checkpoint/commit/revert do their work before their first await.
    void this.evm.journal.checkpoint();
    this.evm.transientStorage.checkpoint();
    this.marks.push(this.logs.length);
    return this.marks.length - 1;
  }

  commit(checkpoint: number): void {
    this.marks.length = checkpoint;
    void this.evm.journal.commit();
    this.evm.transientStorage.commit();
  }

  revert(checkpoint: number): void {
    const logs = this.marks[checkpoint]!;
    this.marks.length = checkpoint;
    this.logs.length = logs;
    void this.evm.journal.revert();
    this.evm.transientStorage.revert();
  }
}

/** What a tracer learns of the Base precompiles' work, which no opcode step shows. */
interface BasePrecompileObserver {
  /** A storage slot read or written (prestateTracer lists it). */
  storage(address: Uint8Array, slot: Uint8Array): void;
  /** A log emitted (callTracer `withLog`, parity traces). */
  log(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void;
}

/** The observer attached to each EVM. */
const observers = new WeakMap<object, BasePrecompileObserver>();

/**
 * Reports the storage accesses and logs of every Base precompile call `evm` runs to `observer`
 * (the tracers see opcode steps; a precompile's accesses and logs are not opcodes). Returns the
 * detach function.
 */
export function observeBasePrecompiles(evm: EVM, observer: BasePrecompileObserver): () => void {
  observers.set(evm, observer);
  return () => observers.delete(evm);
}

/** The @ethereumjs precompile function of one Base precompile call (`message` bound). */
function basePrecompileFunction(evm: EvmInternals, handler: BasePrecompileHandler, message: EvmMessage, fork: OpFork): (opts: PrecompileInput) => ExecResult {
  return (opts) => {
    const block = evm._block?.header;
    const host = new EthereumjsBaseHost(evm);
    const gasLimit = Number(opts.gasLimit);
    const env = {
      caller: message.caller.bytes,
      address: message.to.bytes,
      value: message.value,
      isStatic: message.isStatic,
      gasLimit,
      origin: (evm._tx?.origin ?? message.caller).bytes,
      block: { number: block?.number ?? 0n, timestamp: block?.timestamp ?? 0n, coinbase: block?.coinbase.bytes ?? new Uint8Array(20), chainId: evm.common.chainId() },
      fork,
    };
    const direct = !message.delegatecall && equalsBytes(message.to.bytes, message.codeAddress.bytes);
    const out = runBasePrecompile(handler, opts.data, env, host, EVM_SCHEDULE, direct);
    if (out.status === "success") {
      message.gasRefund += BigInt(out.refund);
      return {
        executionGasUsed: BigInt(out.gasUsed),
        returnValue: out.output,
        logs: host.logs.map((l) => [l.address, l.topics, l.data]) as ExecResult["logs"],
      };
    }
    if (out.status === "revert") return { executionGasUsed: BigInt(out.gasUsed), returnValue: out.output, exceptionError: new EVMError(EVMError.errorMessages.REVERT) };
    return { executionGasUsed: opts.gasLimit, returnValue: new Uint8Array(0), exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
  };
}

/** A precompile-map entry for a singleton, which {@link installBasePrecompiles} always answers first. */
function unreachable(): ExecResult {
  throw new BasePrecompileUnboundError();
}

/** Entries for `createEVM({ customPrecompiles })`: the singletons, so @ethereumjs/vm warms them at every transaction's start. */
export function baseWarmPrecompiles(base: BasePrecompiles | undefined): OpCustomPrecompile[] {
  return (base?.warmAddresses ?? []).map((a) => ({ address: new Address(a), function: unreachable }));
}

/** Makes `evm` run `base`'s precompiles (see the file comment). */
export function installBasePrecompiles(evm: EVM, base: BasePrecompiles): void {
  const internals = evm as unknown as EvmInternals;
  const load = internals._loadCode.bind(evm);
  internals._loadCode = async (message: EvmMessage): Promise<void> => {
    if (!message.code) {
      const handler = base.handlerAt(message.codeAddress.bytes);
      if (handler !== undefined) {
        message.code = basePrecompileFunction(internals, handler, message, base.fork);
        message.isCompiled = true;
        return;
      }
    }
    return load(message);
  };
}
