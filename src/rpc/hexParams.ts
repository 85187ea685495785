/**
 * Strict parsers of JSON-RPC hex parameters (EIP-1474 QUANTITY and DATA).
 *
 * The parsers reproduce the error texts of geth's `hexutil` package, wrapped the way geth's
 * JSON-RPC server reports a bad argument: `invalid argument <n>: <reason>`. Quantities report
 * the bare hexutil reason (as geth's `BlockNumber` does, e.g. `hex string without 0x prefix`);
 * fixed-size and byte-string values report the `encoding/json` form geth's `common.Hash`,
 * `common.Address` and `hexutil.Bytes` produce, e.g.
 * `json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash`.
 * The encodings themselves are in `src/chain/json/quantity.ts`.
 */
import { InvalidParamsError } from "./errors.js";
import { isHexDigits } from "../util/hex.js";

/** Identifies a parameter in error messages: its position in `params` (geth style), or a name. */
type ParamRef = number | string;

/** geth `hexutil` error texts. */
const ERR = {
  emptyString: "empty hex string",
  syntax: "invalid hex string",
  missingPrefix: "hex string without 0x prefix",
  oddLength: "hex string of odd length",
  emptyNumber: 'hex string "0x"',
  leadingZero: "hex number with leading zero digits",
  uint64Range: "hex number > 64 bits",
  big256Range: "hex number > 256 bits",
} as const;

function fail(param: ParamRef, reason: string): never {
  throw new InvalidParamsError(`invalid argument ${param}: ${reason}`);
}

/** `encoding/json`'s UnmarshalTypeError text, as geth's hexutil wraps its syntax errors. */
function typeError(value: string, goType: string): string {
  return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
}

function has0xPrefix(s: string): boolean {
  return s.length >= 2 && s[0] === "0" && (s[1] === "x" || s[1] === "X");
}

/** Options of {@link parseQuantity}. */
interface ParseQuantityOptions {
  /** Largest bit width accepted: 64 (hexutil.Uint64, the default) or 256 (hexutil.Big). */
  bits?: 64 | 256;
}

/**
 * Parses a QUANTITY parameter (block numbers, gas, nonces, values, indices) with geth's rules:
 * `0x` prefix required (either case), at least one digit, no leading zeros, at most 64 bits
 * (or 256 with `{ bits: 256 }`). Used by eth_getBlockByNumber, eth_getTransactionByBlock*AndIndex,
 * eth_feeHistory, eth_call fields and others.
 * @throws InvalidParamsError, e.g. `invalid argument 0: hex string without 0x prefix`.
 */
export function parseQuantity(value: unknown, param: ParamRef, opts: ParseQuantityOptions = {}): bigint {
  const bits = opts.bits ?? 64;
  if (typeof value !== "string") fail(param, typeError("non-string", bits === 64 ? "hexutil.Uint64" : "*hexutil.Big"));
  if (value.length === 0) fail(param, ERR.emptyString);
  if (!has0xPrefix(value)) fail(param, ERR.missingPrefix);
  const digits = value.slice(2);
  if (digits.length === 0) fail(param, ERR.emptyNumber);
  if (digits.length > 1 && digits[0] === "0") fail(param, ERR.leadingZero);
  if (!isHexDigits(digits)) fail(param, ERR.syntax);
  if (digits.length > bits / 4) fail(param, bits === 64 ? ERR.uint64Range : ERR.big256Range);
  return BigInt("0x" + digits);
}

/** The Go type geth names in messages for a byte string of this fixed length. */
function goTypeForLength(expectedLength: number | undefined): string {
  if (expectedLength === undefined) return "hexutil.Bytes";
  if (expectedLength === 32) return "common.Hash";
  if (expectedLength === 20) return "common.Address";
  return `[${expectedLength}]uint8`;
}

function hexToBytes(digits: string): Uint8Array {
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Parses a DATA parameter (input data, raw transactions, hashes, addresses) with geth's rules:
 * `0x` prefix required, even number of hex digits; `"0x"` and `""` decode to empty bytes
 * when no length is expected. With `expectedLength`, the value must hold exactly that many
 * bytes (geth: `hex string has length 62, want 64 for common.Hash`).
 * Used by eth_sendRawTransaction, eth_call, eth_getStorageAt, eth_getLogs and others.
 * @throws InvalidParamsError naming the parameter and what was expected.
 */
export function parseData(value: unknown, param: ParamRef, expectedLength?: number): Uint8Array {
  const goType = goTypeForLength(expectedLength);
  if (typeof value !== "string") fail(param, typeError("non-string", goType));
  if (value.length === 0) {
    if (expectedLength === undefined || expectedLength === 0) return new Uint8Array(0);
    fail(param, `hex string has length 0, want ${expectedLength * 2} for ${goType}`);
  }
  if (!has0xPrefix(value)) fail(param, typeError(ERR.missingPrefix, goType));
  const digits = value.slice(2);
  if (digits.length % 2 !== 0) fail(param, typeError(ERR.oddLength, goType));
  if (expectedLength !== undefined && digits.length !== expectedLength * 2) {
    fail(param, `hex string has length ${digits.length}, want ${expectedLength * 2} for ${goType}`);
  }
  if (!isHexDigits(digits)) fail(param, typeError(ERR.syntax, goType));
  return hexToBytes(digits);
}

/**
 * Parses a 20-byte address parameter (eth_getBalance, eth_getCode, eth_getTransactionCount, …).
 * Mixed case is accepted without checksum validation, like geth.
 * @throws InvalidParamsError, e.g. `invalid argument 0: hex string has length 38, want 40 for common.Address`.
 */
export function parseAddress(value: unknown, param: ParamRef): Uint8Array {
  return parseData(value, param, 20);
}

/**
 * Parses a 32-byte hash parameter (eth_getBlockByHash, eth_getTransactionByHash,
 * eth_getTransactionReceipt, debug_getRawTransaction, …).
 * @throws InvalidParamsError, e.g. `invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash`.
 */
export function parseHash(value: unknown, param: ParamRef): Uint8Array {
  return parseData(value, param, 32);
}
