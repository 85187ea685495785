/**
 * The checks of the scenario's answers, as validator factories (bench/load/validator.ts): the
 * generator's threads import this module to rebuild them, so it imports nothing heavy.
 */
import type { Validate } from "../load/validator.js";

/** This module's URL: where the generator's threads find the factories. */
export const CHECKS_MODULE = import.meta.url;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const WORD = /^0x[0-9a-f]{64}$/;

/** Validator factory: a block of at least `minTxs` transactions, objects when `full`, else hashes. */
export function blockCheck(minTxs: number, full: boolean): Validate {
  return (r) => {
    if (!isObject(r) || !Array.isArray(r.transactions)) return "block object with transactions expected";
    if (r.transactions.length < minTxs) return `${r.transactions.length} transactions, at least ${minTxs} expected`;
    if (full) return r.transactions.every(isObject) ? undefined : "full transaction objects expected";
    return r.transactions.every((t) => typeof t === "string") ? undefined : "transaction hashes expected";
  };
}

/** Validator factory: at least `minTxs` receipts, each with status 0x1. */
export function receiptsCheck(minTxs: number): Validate {
  return (r) => {
    if (!Array.isArray(r)) return "array of receipts expected";
    if (r.length < minTxs) return `${r.length} receipts, at least ${minTxs} expected`;
    return r.every((x) => isObject(x) && x.status === "0x1") ? undefined : "every receipt with status 0x1 expected";
  };
}

/** Validator factory: a positive quantity. */
export function positiveQuantityCheck(): Validate {
  return (r) => (typeof r === "string" && QUANTITY.test(r) && r !== "0x0" ? undefined : "positive quantity expected");
}

/** Validator factory: the successful receipt of `hashes[bodyIndex]`. */
export function txReceiptCheck(hashes: string[]): Validate {
  return (r, i) => {
    if (!isObject(r)) return "receipt object expected";
    if (r.transactionHash !== hashes[i ?? 0]) return `receipt of ${String(r.transactionHash)}, ${hashes[i ?? 0]} expected`;
    return r.status === "0x1" ? undefined : `status ${String(r.status)}, 0x1 expected`;
  };
}

/** Validator factory: a nonzero 32-byte word (a balance). */
export function nonzeroWordCheck(): Validate {
  return (r) => (typeof r === "string" && WORD.test(r) && BigInt(r) > 0n ? undefined : "nonzero 32-byte balance expected");
}

/** Validator factory: the word 1 (an ERC-20 `transfer` returning true). */
export function trueWordCheck(): Validate {
  return (r) => (typeof r === "string" && WORD.test(r) && BigInt(r) === 1n ? undefined : "true (word 1) expected");
}

/** Validator factory: a gas quantity in (`above`, `atMost`]. */
export function gasCheck(above: bigint, atMost: bigint): Validate {
  return (r) => {
    if (typeof r !== "string" || !QUANTITY.test(r)) return "quantity expected";
    const g = BigInt(r);
    return g > above && g <= atMost ? undefined : `${g} gas, more than ${above} and at most ${atMost} expected`;
  };
}

/** Validator factory: the balance of body `i` — positive for the first `present` bodies (funded accounts), 0x0 after (absent ones). */
export function balanceCheck(present: number): Validate {
  return (r, i) => {
    if (typeof r !== "string" || !QUANTITY.test(r)) return "quantity expected";
    if ((i ?? 0) < present) return r !== "0x0" ? undefined : "positive balance of a funded account expected";
    return r === "0x0" ? undefined : `balance ${r} of an absent account, 0x0 expected`;
  };
}

/** Validator factory: block `numbers[bodyIndex]` with full transaction objects. */
export function blockAtCheck(numbers: string[]): Validate {
  return (r, i) => {
    if (!isObject(r) || !Array.isArray(r.transactions)) return "block object with transactions expected";
    if (r.number !== numbers[i ?? 0]) return `block ${String(r.number)}, ${numbers[i ?? 0]} expected`;
    return r.transactions.every(isObject) ? undefined : "full transaction objects expected";
  };
}

/** Validator factory: the receipts of block `numbers[bodyIndex]` (at least one: the L1-info deposit or a transaction), each of that block. */
export function receiptsAtCheck(numbers: string[]): Validate {
  return (r, i) => {
    if (!Array.isArray(r) || r.length === 0) return "a non-empty array of receipts expected";
    const want = numbers[i ?? 0];
    return r.every((x) => isObject(x) && x.blockNumber === want) ? undefined : `receipts of block ${want} expected`;
  };
}
