/**
 * The OP Stack deposit transaction (EIP-2718 type 0x7e, specs/protocol/deposits.md):
 * `0x7e ++ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])`. It has no
 * signature: `from` is given (the L1 sender, aliased for contracts, or a system address),
 * `mint` is ETH created on L2, and the sequencer/derivation is what authorizes it.
 *
 * The class stands in for an @ethereumjs typed transaction inside a `Block` (it implements
 * what blocks, tries and the RPC formatters read), but it is never run through `runTx`:
 * `execution/op/opBlockExecutor.ts` executes it.
 */
import { Capability } from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import { Address, bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes } from "@ethereumjs/util";
import { keccak256 } from "../../util/keccak.js";
import { TypedError } from "../../util/errors.js";

/** EIP-2718 type byte of deposit transactions (specs deposits.md "The Deposited Transaction Type"). */
export const DEPOSIT_TX_TYPE = 0x7e;

/** Stable code of {@link DepositDecodeError}. */
const DepositDecodeErrorCode = { TX_INVALID: "DEPOSIT_TX_INVALID" } as const;
/** A {@link DepositDecodeError}'s code with its metadata. */
type DepositDecodeErrorType = { code: typeof DepositDecodeErrorCode.TX_INVALID };

/** A malformed deposit transaction encoding. */
export class DepositDecodeError extends TypedError<DepositDecodeErrorType> {
  constructor(message: string) {
    super({ code: DepositDecodeErrorCode.TX_INVALID }, message);
  }
}

/** The fields of a deposit transaction. */
export interface DepositTxFields {
  /** 32-byte source hash: uniquely identifies the deposit's origin (domain-separated, see sourceHash.ts). */
  sourceHash: Uint8Array;
  from: Address;
  /** Undefined for a contract creation. */
  to?: Address;
  /** Wei minted to `from` on L2 before execution (kept even when execution fails). */
  mint: bigint;
  value: bigint;
  gasLimit: bigint;
  /** Pre-Regolith system transactions (gas-free); invalid from Regolith on. */
  isSystemTx: boolean;
  data: Uint8Array;
}

function uint(b: Uint8Array, name: string): bigint {
  if (b.length > 0 && b[0] === 0) throw new DepositDecodeError(`deposit field ${name} has leading zero bytes (non-canonical integer)`);
  if (b.length > 32) throw new DepositDecodeError(`deposit field ${name} is ${b.length} bytes, at most 32 expected`);
  return bytesToBigInt(b);
}

/** A deposit transaction (type 0x7e). */
export class DepositTransaction implements DepositTxFields {
  readonly type = DEPOSIT_TX_TYPE;
  readonly sourceHash: Uint8Array;
  readonly from: Address;
  readonly to: Address | undefined;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly isSystemTx: boolean;
  readonly data: Uint8Array;
  /** Deposits pay no gas price (op-reth reports `gasPrice: 0`). */
  readonly gasPrice = 0n;
  /** Deposits carry no nonce; the executed nonce is in the receipt (`depositNonce`). */
  readonly nonce = 0n;
  private cachedSerialized: Uint8Array | undefined;
  private cachedHash: Uint8Array | undefined;

  constructor(f: DepositTxFields) {
    if (f.sourceHash.length !== 32) throw new DepositDecodeError(`deposit sourceHash is ${f.sourceHash.length} bytes, 32 expected`);
    this.sourceHash = f.sourceHash;
    this.from = f.from;
    this.to = f.to;
    this.mint = f.mint;
    this.value = f.value;
    this.gasLimit = f.gasLimit;
    this.isSystemTx = f.isSystemTx;
    this.data = f.data;
  }

  /** Decodes `0x7e ++ rlp([...])` (the EIP-2718 envelope). */
  static fromSerialized(bytes: Uint8Array): DepositTransaction {
    if (bytes[0] !== DEPOSIT_TX_TYPE) throw new DepositDecodeError(`not a deposit transaction: type byte 0x${(bytes[0] ?? 0).toString(16)}, 0x7e expected`);
    let values: unknown;
    try {
      values = RLP.decode(bytes.subarray(1));
    } catch (e) {
      throw new DepositDecodeError(`malformed deposit RLP: ${(e as Error).message}`);
    }
    if (!Array.isArray(values) || values.length !== 8) {
      throw new DepositDecodeError(`deposit must be an RLP list of 8 fields [sourceHash, from, to, mint, value, gas, isSystemTx, data], got ${Array.isArray(values) ? values.length : "a string"}`);
    }
    for (const [i, v] of values.entries()) if (!(v instanceof Uint8Array)) throw new DepositDecodeError(`deposit field ${i} must be a byte string, got a list`);
    const [sourceHash, from, to, mint, value, gas, isSystem, data] = values as Uint8Array[];
    if (sourceHash.length !== 32) throw new DepositDecodeError(`deposit sourceHash is ${sourceHash.length} bytes, 32 expected`);
    if (from.length !== 20) throw new DepositDecodeError(`deposit from is ${from.length} bytes, 20 expected`);
    if (to.length !== 0 && to.length !== 20) throw new DepositDecodeError(`deposit to is ${to.length} bytes, 20 (call) or 0 (creation) expected`);
    if (isSystem.length > 1 || (isSystem.length === 1 && isSystem[0] !== 1)) {
      throw new DepositDecodeError(`deposit isSystemTx must be RLP false (0x80) or true (0x01), got 0x${Buffer.from(isSystem).toString("hex")}`);
    }
    const gasLimit = uint(gas, "gas");
    if (gasLimit >= 1n << 64n) throw new DepositDecodeError(`deposit gas ${gasLimit} does not fit in 64 bits`);
    const tx = new DepositTransaction({
      sourceHash,
      from: new Address(from),
      to: to.length === 0 ? undefined : new Address(to),
      mint: uint(mint, "mint"),
      value: uint(value, "value"),
      gasLimit,
      isSystemTx: isSystem.length === 1,
      data,
    });
    tx.cachedSerialized = bytes;
    return tx;
  }

  /** The RLP fields (without the type byte). */
  raw(): Uint8Array[] {
    return [
      this.sourceHash,
      this.from.bytes,
      this.to?.bytes ?? new Uint8Array(0),
      bigIntToUnpaddedBytes(this.mint),
      bigIntToUnpaddedBytes(this.value),
      bigIntToUnpaddedBytes(this.gasLimit),
      this.isSystemTx ? Uint8Array.of(1) : new Uint8Array(0),
      this.data,
    ];
  }

  /** The EIP-2718 envelope `0x7e ++ rlp(fields)`. */
  serialize(): Uint8Array {
    this.cachedSerialized ??= concatBytes(Uint8Array.of(DEPOSIT_TX_TYPE), RLP.encode(this.raw()));
    return this.cachedSerialized;
  }

  /** keccak256 of the envelope: the transaction hash. */
  hash(): Uint8Array {
    this.cachedHash ??= keccak256(this.serialize());
    return this.cachedHash;
  }

  /** The sender: `from` (no signature to recover). */
  getSenderAddress(): Address {
    return this.from;
  }

  /** Only the typed-envelope capability: no fee market, access list or blobs. */
  supports(capability: number): boolean {
    return capability === Capability.EIP2718TypedTransaction;
  }

  /** Deposits are authorized by derivation, not a signature; they count as "signed" for block checks. */
  isSigned(): boolean {
    return true;
  }

  getValidationErrors(): string[] {
    return [];
  }

  isValid(): boolean {
    return true;
  }

  /** JSON of the fields (debugging). */
  toJSON(): Record<string, string | boolean | undefined> {
    return {
      type: "0x7e",
      sourceHash: bytesToHex(this.sourceHash),
      from: this.from.toString(),
      to: this.to?.toString(),
      mint: `0x${this.mint.toString(16)}`,
      value: `0x${this.value.toString(16)}`,
      gas: `0x${this.gasLimit.toString(16)}`,
      isSystemTx: this.isSystemTx,
      input: bytesToHex(this.data),
    };
  }
}

/** Whether `tx` is a deposit. */
export function isDeposit(tx: { type: number }): tx is DepositTransaction {
  return tx.type === DEPOSIT_TX_TYPE;
}
