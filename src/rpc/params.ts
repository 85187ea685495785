/**
 * Shared parameter decoding for method families (beyond the primitives in format/quantity).
 */
import { InvalidParamsError } from "./errors.js";
import { parseAddress, parseData, parseQuantity } from "./hexParams.js";
import { isHexDigits } from "../util/hex.js";
import type { CallArgs } from "../execution/callArgs.js";

/** Throws when a required parameter is missing. */
export function required(params: unknown[], index: number): unknown {
  if (params.length <= index || params[index] === undefined) throw new InvalidParamsError(`missing value for required argument ${index}`);
  return params[index];
}

/** Rejects calls with more parameters than the method takes (geth: "too many arguments"). */
export function maxParams(params: unknown[], n: number): void {
  if (params.length > n) throw new InvalidParamsError(`too many arguments, want at most ${n}`);
}

/** A boolean parameter. */
export function parseBool(value: unknown, index: number): boolean {
  if (typeof value !== "boolean") throw new InvalidParamsError(`invalid argument ${index}: json: cannot unmarshal ${typeof value} into Go value of type bool`);
  return value;
}

/**
 * A storage key as geth decodes it (`decodeStorageKey`): hex, at most 32 bytes, left-padded.
 */
export function parseStorageKey(value: unknown): Uint8Array {
  if (typeof value !== "string") throw new InvalidParamsError("invalid argument: storage key must be a hex string");
  let h = value.startsWith("0x") || value.startsWith("0X") ? value.slice(2) : value;
  if (h.length % 2 === 1) h = "0" + h;
  if (!isHexDigits(h)) throw new InvalidParamsError(`invalid hex in storage key: ${JSON.stringify(value)}`);
  if (h.length > 64) throw new InvalidParamsError(`storage key too long (want at most 32 bytes): ${JSON.stringify(value)}`);
  return new Uint8Array(Buffer.from(h.padStart(64, "0"), "hex"));
}

/** A transaction call object (geth `TransactionArgs`). */
export function parseCallArgs(value: unknown, index: number): CallArgs {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidParamsError(`invalid argument ${index}: transaction call object expected`);
  }
  const o = value as Record<string, unknown>;
  const q = (k: string, bits: 64 | 256 = 256): bigint | undefined => (o[k] === undefined || o[k] === null ? undefined : parseQuantity(o[k], `${index}.${k}`, { bits }));
  if (o.data !== undefined && o.input !== undefined && o.data !== null && o.input !== null && o.data !== o.input) {
    throw new InvalidParamsError(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`);
  }
  if (o.gasPrice !== undefined && o.gasPrice !== null && (o.maxFeePerGas != null || o.maxPriorityFeePerGas != null)) {
    throw new InvalidParamsError("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
  }
  const input = o.input ?? o.data;
  const args: CallArgs = {
    from: o.from == null ? undefined : parseAddress(o.from, `${index}.from`),
    to: o.to == null ? undefined : parseAddress(o.to, `${index}.to`),
    gas: q("gas", 64),
    gasPrice: q("gasPrice"),
    maxFeePerGas: q("maxFeePerGas"),
    maxPriorityFeePerGas: q("maxPriorityFeePerGas"),
    maxFeePerBlobGas: q("maxFeePerBlobGas"),
    value: q("value"),
    nonce: q("nonce", 64),
    data: input == null ? undefined : parseData(input, `${index}.input`),
    chainId: q("chainId"),
  };
  if (Array.isArray(o.accessList)) {
    args.accessList = o.accessList.map((e: unknown, i) => {
      const en = e as Record<string, unknown>;
      return {
        address: parseAddress(en.address, `${index}.accessList[${i}].address`),
        storageKeys: ((en.storageKeys as unknown[]) ?? []).map((k, j) => parseData(k, `${index}.accessList[${i}].storageKeys[${j}]`, 32)),
      };
    });
  }
  if (Array.isArray(o.blobVersionedHashes)) {
    args.blobVersionedHashes = o.blobVersionedHashes.map((h, i) => parseData(h, `${index}.blobVersionedHashes[${i}]`, 32));
  }
  if (Array.isArray(o.authorizationList)) {
    args.authorizationList = o.authorizationList.map((a: unknown) => {
      const au = a as Record<string, unknown>;
      const yp = au.yParity ?? au.v;
      return [au.chainId, au.address, au.nonce, yp, au.r, au.s].map((v) => {
        const s = String(v);
        const h = s.startsWith("0x") ? s.slice(2) : s;
        const bytes = Buffer.from(h.length % 2 ? "0" + h : h, "hex");
        let i = 0;
        while (i < bytes.length - 0 && bytes[i] === 0 && bytes.length - i > (s === au.address ? 20 : 0)) i++;
        return new Uint8Array(s === au.address ? bytes : bytes.subarray(i));
      });
    });
  }
  return args;
}
