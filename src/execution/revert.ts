/**
 * Revert errors of eth_call / eth_estimateGas / eth_createAccessList, exactly as geth reports
 * them (`internal/ethapi` `newRevertError` over `accounts/abi` `UnpackRevert`): message
 * `execution reverted` plus `: <reason>` when the data is an ABI `Error(string)` or
 * `Panic(uint256)`, and the revert bytes. On the wire (src/rpc/errors.ts) a revert with data is
 * code 3 with `data` = the bytes as hex; one without data is -32000 without `data`.
 */
import { toData } from "../chain/json/quantity.js";
import { ExecutionError, ExecutionErrorCode } from "./errors.js";

/** Selector of `Error(string)`: keccak256("Error(string)")[:4]. */
const ERROR_SELECTOR = Uint8Array.of(0x08, 0xc3, 0x79, 0xa0);
/** Selector of `Panic(uint256)`: keccak256("Panic(uint256)")[:4]. */
const PANIC_SELECTOR = Uint8Array.of(0x4e, 0x48, 0x7b, 0x71);

/** Solidity panic codes and geth's texts for them (`accounts/abi` `panicReasons`). */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, "generic panic"],
  [0x01n, "assert(false)"],
  [0x11n, "arithmetic underflow or overflow"],
  [0x12n, "division or modulo by zero"],
  [0x21n, "enum overflow"],
  [0x22n, "invalid encoded storage byte array accessed"],
  [0x31n, "out-of-bounds array access; popping on an empty array"],
  [0x32n, "out-of-bounds access of an array or bytesN"],
  [0x41n, "out of memory"],
  [0x51n, "uninitialized function"],
]);

/** The plain message geth uses for every revert (`vm.ErrExecutionReverted`). */
const EXECUTION_REVERTED = "execution reverted";

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

function readWord(data: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = offset; i < offset + 32; i++) v = (v << 8n) | BigInt(data[i]!);
  return v;
}

/**
 * Decodes bytes the way Go turns `string(bytes)` into JSON: valid UTF-8 is kept, and every byte
 * that does not start a valid sequence becomes U+FFFD on its own (unlike TextDecoder, which
 * replaces maximal subparts).
 */
export function goBytesToString(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    }
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    let cp = 0;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1;
      cp = b0 & 0x1f;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2;
      cp = b0 & 0x0f;
      if (b0 === 0xe0) lo = 0xa0;
      if (b0 === 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3;
      cp = b0 & 0x07;
      if (b0 === 0xf0) lo = 0x90;
      if (b0 === 0xf4) hi = 0x8f;
    }
    let ok = need > 0;
    if (ok) {
      for (let k = 1; k <= need; k++) {
        const b = bytes[i + k];
        const min = k === 1 ? lo : 0x80;
        const max = k === 1 ? hi : 0xbf;
        if (b === undefined || b < min || b > max) {
          ok = false;
          break;
        }
        cp = (cp << 6) | (b & 0x3f);
      }
    }
    if (ok) {
      out += String.fromCodePoint(cp);
      i += need + 1;
    } else {
      out += "\ufffd";
      i++;
    }
  }
  return out;
}

/** geth's `abi.Arguments{string}.Unpack`: a length-prefixed string at the offset in word 0. */
function unpackAbiString(output: Uint8Array): string | undefined {
  if (output.length < 32) return undefined;
  const offsetEnd = readWord(output, 0) + 32n;
  const len = BigInt(output.length);
  if (offsetEnd > len) return undefined;
  const start = Number(offsetEnd);
  const length = readWord(output, start - 32);
  if (offsetEnd + length > len) return undefined;
  return goBytesToString(output.subarray(start, start + Number(length)));
}

/**
 * The revert reason geth derives from revert data (`abi.UnpackRevert`): the string of an
 * `Error(string)`, the panic text of a `Panic(uint256)` (`unknown panic code: 0x…` for codes
 * without one), or undefined when the data is neither (or malformed).
 */
export function unpackRevert(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  if (startsWith(data, ERROR_SELECTOR)) return unpackAbiString(data.subarray(4));
  if (startsWith(data, PANIC_SELECTOR)) {
    const body = data.subarray(4);
    if (body.length < 32) return undefined;
    const code = readWord(body, 0);
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/**
 * The error of a reverted eth_call, eth_estimateGas or eth_createAccessList, as geth gives it:
 * message `execution reverted[: reason]`, the revert bytes as 0x hex in `data` (`0x` when the
 * revert carried none, which geth reports without a reason).
 */
export function revertError(data: Uint8Array): ExecutionError {
  if (data.length === 0) return new ExecutionError({ code: ExecutionErrorCode.REVERTED, data: "0x" }, EXECUTION_REVERTED);
  const reason = unpackRevert(data);
  const message = reason === undefined ? EXECUTION_REVERTED : `${EXECUTION_REVERTED}: ${reason}`;
  return new ExecutionError({ code: ExecutionErrorCode.REVERTED, data: toData(data) }, message);
}
