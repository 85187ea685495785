/**
 * Deposit source hashes (specs/protocol/deposits.md "Source hash computation"):
 * `keccak256(uint256(domain) ++ payloadHash)` with domain 0 = user deposit
 * (`payloadHash = keccak256(l1BlockHash ++ uint256(logIndex))`), 1 = L1-info deposit
 * (`keccak256(l1BlockHash ++ uint256(sequenceNumber))`), 2 = upgrade deposit (`keccak256(intent)`).
 */
import { keccak256 } from "../../util/keccak.js";
import { TypedError } from "../../util/errors.js";

/** Source-hash domain of user deposits (TransactionDeposited logs). */
const USER_DEPOSIT_DOMAIN = 0n;
/** Source-hash domain of the L1-info deposit. */
const L1_INFO_DEPOSIT_DOMAIN = 1n;
/** Source-hash domain of network-upgrade deposits. */
const UPGRADE_DEPOSIT_DOMAIN = 2n;
/** Word size of the hashed big-endian integers (uint256). */
const WORD = 32;

/** Stable code of {@link SourceHashInputError}. */
const SourceHashInputErrorCode = { HASH_INVALID_INPUT: "SOURCE_HASH_INVALID_INPUT" } as const;
/** A {@link SourceHashInputError}'s code with its metadata. */
type SourceHashInputErrorType = { code: typeof SourceHashInputErrorCode.HASH_INVALID_INPUT };

/** An input that cannot be hashed: a block hash that is not 32 bytes or an index outside uint256. */
export class SourceHashInputError extends TypedError<SourceHashInputErrorType> {
  constructor(message: string) {
    super({ code: SourceHashInputErrorCode.HASH_INVALID_INPUT }, message);
  }
}

function word(v: bigint): Uint8Array {
  if (v < 0n || v >= 1n << 256n) throw new SourceHashInputError(`source-hash integer ${v} does not fit in uint256`);
  const out = new Uint8Array(WORD);
  let x = v;
  for (let i = WORD - 1; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function domainHash(domain: bigint, payloadHash: Uint8Array): Uint8Array {
  const buf = new Uint8Array(2 * WORD);
  buf.set(word(domain), 0);
  buf.set(payloadHash, WORD);
  return keccak256(buf);
}

function blockScoped(l1BlockHash: Uint8Array, index: bigint | number): Uint8Array {
  if (l1BlockHash.length !== WORD) throw new SourceHashInputError(`L1 block hash is ${l1BlockHash.length} bytes, 32 expected`);
  const buf = new Uint8Array(2 * WORD);
  buf.set(l1BlockHash, 0);
  buf.set(word(BigInt(index)), WORD);
  return keccak256(buf);
}

/** Source hash of a user deposit: domain 0 over `keccak256(l1BlockHash ++ uint256(logIndex))`; `logIndex` is block-wide. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: bigint | number): Uint8Array {
  return domainHash(USER_DEPOSIT_DOMAIN, blockScoped(l1BlockHash, logIndex));
}

/** Source hash of the L1-info deposit: domain 1 over `keccak256(l1BlockHash ++ uint256(sequenceNumber))`. */
export function l1InfoSourceHash(l1BlockHash: Uint8Array, sequenceNumber: bigint | number): Uint8Array {
  return domainHash(L1_INFO_DEPOSIT_DOMAIN, blockScoped(l1BlockHash, sequenceNumber));
}

/** Source hash of an upgrade deposit: domain 2 over `keccak256(utf8(intent))`, e.g. "Ecotone: L1 Block Deployment". */
export function upgradeSourceHash(intent: string): Uint8Array {
  return domainHash(UPGRADE_DEPOSIT_DOMAIN, keccak256(new TextEncoder().encode(intent)));
}
