/**
 * An account as the flat state holds it: slim RLP (storage/accountCodec.ts), straight from an
 * @ethereumjs `Account` without encoding the full form first.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, equalsBytes, type Account } from "@ethereumjs/util";

const EMPTY = new Uint8Array(0);

/** The slim RLP of an account: `[nonce, balance, storageRoot | "", codeHash | ""]`. */
export function slimAccountRlp(a: Account): Uint8Array {
  return RLP.encode([
    bigIntToUnpaddedBytes(a.nonce),
    bigIntToUnpaddedBytes(a.balance),
    equalsBytes(a.storageRoot, KECCAK256_RLP) ? EMPTY : a.storageRoot,
    equalsBytes(a.codeHash, KECCAK256_NULL) ? EMPTY : a.codeHash,
  ]);
}
