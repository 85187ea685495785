/**
 * One Base native precompile call as the precompile logic sees it (base/base `StorageCtx` over
 * `EvmPrecompileStorageProvider`): who called with what value, in which block and upgrade, and
 * the metered state operations — each charged from what the {@link BaseStateHost} reports, in
 * base/base's order, throwing {@link PrecompileOutOfGasError} past the call's gas.
 *
 * It also counts SLOADs, SSTOREs and metered KECCAK256s, which base/base's golden tests pin as
 * each operation's storage-access footprint.
 */
import type { OpFork } from "../../chain/op/forks.js";
import { keccak256 } from "../../util/keccak.js";
import { PrecompileOutOfGasError, StaticCallViolationError } from "./errors.js";
import { sstoreCost, sstoreRefund, type BaseGasSchedule } from "./gas.js";
import type { AccountRead, BaseStateHost } from "./host.js";

/** The block a call runs in. */
interface BaseBlockEnv {
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  chainId: bigint;
}

/** Everything about one call but the state. */
export interface BaseCallEnv {
  /** `msg.sender` as the precompile sees it. */
  caller: Uint8Array;
  /** The address called (the precompile's or the token's). */
  address: Uint8Array;
  /** Wei sent with the call. */
  value: bigint;
  /** Inside a STATICCALL (no state changes). */
  isStatic: boolean;
  /** Gas given to the call. */
  gasLimit: number;
  /** `tx.origin`. */
  origin: Uint8Array;
  block: BaseBlockEnv;
  /** The OP/Base upgrade of the block, which selects each precompile's version. */
  fork: OpFork;
}

/** Storage-access counts of a call (base/base `counter_sload`/`counter_sstore` and the metered hashes). */
interface AccessCounters {
  sload: number;
  sstore: number;
  keccak256: number;
}

/** A metered precompile call. */
export class BaseCallContext {
  /** Gas used so far. */
  gasUsed = 0;
  /** Net refund so far (EIP-3529; may go negative inside a call, as revm's counter). */
  refund = 0;
  readonly counters: AccessCounters = { sload: 0, sstore: 0, keccak256: 0 };
  private callerNow: Uint8Array;

  constructor(
    readonly host: BaseStateHost,
    readonly env: BaseCallEnv,
    readonly schedule: BaseGasSchedule,
  ) {
    this.callerNow = env.caller;
  }

  /** `msg.sender`, or the address {@link withCaller} put in its place. */
  get caller(): Uint8Array {
    return this.callerNow;
  }

  get fork(): OpFork {
    return this.env.fork;
  }

  get gasLeft(): number {
    return this.env.gasLimit - this.gasUsed;
  }

  /** Charges `gas`; out of gas when the call has less left. */
  deductGas(gas: number): void {
    if (gas > this.env.gasLimit - this.gasUsed) throw new PrecompileOutOfGasError(BigInt(this.env.gasLimit), BigInt(this.gasUsed + gas));
    this.gasUsed += gas;
  }

  /** SLOAD: reads (and warms) a slot, then charges 100, plus 2,000 when it was cold. */
  sload(address: Uint8Array, slot: bigint): bigint {
    this.counters.sload++;
    const r = this.host.sload(address, slot);
    this.deductGas(this.schedule.warmRead + (r.cold ? this.schedule.coldSloadExtra : 0));
    return r.value;
  }

  /**
   * SSTORE: refused in a static call; out of gas with 2,300 or less left (EIP-2200's stipend
   * rule); otherwise writes, charges EIP-2200/2929 net metering and books the EIP-3529 refund.
   * A write it cannot pay for is undone before the error leaves.
   */
  sstore(address: Uint8Array, slot: bigint, value: bigint): void {
    if (this.env.isStatic) throw new StaticCallViolationError();
    if (this.gasLeft <= this.schedule.sstoreStipend) throw new PrecompileOutOfGasError(BigInt(this.env.gasLimit), BigInt(this.gasUsed + this.schedule.sstoreStipend + 1));
    this.counters.sstore++;
    const cp = this.host.checkpoint();
    const w = this.host.sstore(address, slot, value);
    try {
      this.deductGas(sstoreCost(this.schedule, w.original, w.present, value, w.cold));
    } catch (e) {
      this.host.revert(cp);
      throw e;
    }
    this.host.commit(cp);
    this.refund += sstoreRefund(this.schedule, w.original, w.present, value);
  }

  /** TLOAD: 100. */
  tload(address: Uint8Array, slot: bigint): bigint {
    this.deductGas(this.schedule.warmRead);
    return this.host.tload(address, slot);
  }

  /** TSTORE: refused in a static call; 100. */
  tstore(address: Uint8Array, slot: bigint, value: bigint): void {
    if (this.env.isStatic) throw new StaticCallViolationError();
    this.deductGas(this.schedule.warmRead);
    this.host.tstore(address, slot, value);
  }

  /** LOG: refused in a static call; 375 + 375 per topic + 8 per data byte. */
  emit(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    if (this.env.isStatic) throw new StaticCallViolationError();
    this.deductGas(this.schedule.log + this.schedule.logTopic * topics.length + this.schedule.logDataByte * data.length);
    this.host.log({ address, topics, data });
  }

  /** An account's fields (base/base `with_account_info`): 100, plus 2,500 when it was cold. */
  account(address: Uint8Array): AccountRead {
    const a = this.host.account(address);
    this.deductGas(this.schedule.warmRead + (a.cold ? this.schedule.coldAccountExtra : 0));
    return a;
  }

  /**
   * Sets an account's code (a B-20 token's marker): refused in a static call; 200 per byte, and when the account is empty
   * CREATE's 32,000 plus the hash of the code (30 + 6 per word), as base/base's `set_code`.
   */
  setCode(address: Uint8Array, code: Uint8Array): void {
    // A state change like SSTORE: refused in a static call before anything is charged.
    if (this.env.isStatic) throw new StaticCallViolationError();
    this.deductGas(this.schedule.codeDepositByte * code.length);
    if (this.host.account(address).empty) {
      this.deductGas(this.schedule.create);
      this.deductGas(this.schedule.keccak + this.schedule.keccakWord * Math.ceil(code.length / 32));
    }
    this.host.setCode(address, code);
  }

  /** KECCAK256 charged as the opcode (30 + 6 per word), where base/base meters a hash. */
  keccak256(data: Uint8Array): Uint8Array {
    this.counters.keccak256++;
    this.deductGas(this.schedule.keccak + this.schedule.keccakWord * Math.ceil(data.length / 32));
    return keccak256(data);
  }

  /** Runs `f` with `caller` as `msg.sender` (the factory's privileged init calls), restoring it after. */
  withCaller<T>(caller: Uint8Array, f: () => T): T {
    const before = this.callerNow;
    this.callerNow = caller;
    try {
      return f();
    } finally {
      this.callerNow = before;
    }
  }

  /**
   * Runs `f` atomically: its state changes, logs and refunds stay only if it returns; if it
   * throws they are undone and the error goes on (base/base `CheckpointGuard`). Gas used stays used.
   */
  atomically<T>(f: () => T): T {
    const cp = this.host.checkpoint();
    const refund = this.refund;
    try {
      const out = f();
      this.host.commit(cp);
      return out;
    } catch (e) {
      this.host.revert(cp);
      this.refund = refund;
      throw e;
    }
  }
}
