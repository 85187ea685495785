/**
 * Gas costs and protocol limits of the fast EVM, as the Ethereum specifications define them (the
 * EIP that sets or last changed each value is named). These are protocol constants, not tunables.
 */

/** Cheapest tiers of the yellow paper's fee schedule. */
export const G_ZERO = 0;
export const G_BASE = 2;
export const G_VERYLOW = 3;
export const G_LOW = 5;
export const G_MID = 8;
export const G_HIGH = 10;
export const G_JUMPDEST = 1;
/** EXP base cost and per exponent byte (EIP-160). */
export const G_EXP = 10;
export const G_EXP_BYTE = 50;
/** KECCAK256 base and per word. */
export const G_KECCAK = 30;
export const G_KECCAK_WORD = 6;
/** Per word copied by *COPY opcodes. */
export const G_COPY_WORD = 3;
/** Memory: linear cost per word; the quadratic part divides words² by this. */
const G_MEMORY = 3;
const MEMORY_QUAD_DIVISOR = 512;
/** LOG base, per topic and per data byte. */
export const G_LOG = 375;
export const G_LOG_TOPIC = 375;
export const G_LOG_DATA = 8;
/** BLOCKHASH. */
export const G_BLOCKHASH = 20;

/** EIP-2929: warm access, cold account access, cold storage slot read. */
export const WARM_STORAGE_READ = 100;
export const COLD_ACCOUNT_ACCESS = 2600;
export const COLD_SLOAD = 2100;
/** EIP-2200/EIP-2929: SSTORE of a fresh slot, and of a clean slot (5000 − cold SLOAD). */
export const SSTORE_SET = 20000;
export const SSTORE_RESET = 2900;
/** EIP-3529: refund for clearing a slot (SSTORE_RESET + access list storage key cost). */
export const SSTORE_CLEARS_REFUND = 4800;
/** EIP-2200: SSTORE fails when no more than the call stipend is left. */
export const SSTORE_SENTRY = 2300;

/** CALL family: value transfer surcharge, new account surcharge, the stipend given to the callee. */
export const CALL_VALUE = 9000;
export const CALL_NEW_ACCOUNT = 25000;
export const CALL_STIPEND = 2300;
/** CREATE / CREATE2 base cost. */
export const G_CREATE = 32000;
/** EIP-3860: per initcode word for CREATE/CREATE2 and creation transactions. */
export const INITCODE_WORD = 2;
/** Per byte of deployed code. */
export const CODE_DEPOSIT = 200;
/** SELFDESTRUCT base cost (EIP-150) and surcharge when funding an empty beneficiary. */
export const G_SELFDESTRUCT = 5000;
/** TLOAD / TSTORE (EIP-1153): the warm storage read cost. */
export const G_TRANSIENT = 100;
/** CLZ (EIP-7939). */
export const G_CLZ = 5;

/** Transaction: base, creation surcharge, calldata per zero / non-zero byte (EIP-2028). */
export const TX_GAS = 21000;
export const TX_CREATE = 32000;
export const TX_DATA_ZERO = 4;
export const TX_DATA_NONZERO = 16;
/** EIP-2930 access list: per address and per storage key. */
export const ACCESS_LIST_ADDRESS = 2400;
export const ACCESS_LIST_STORAGE_KEY = 1900;
/** EIP-7702: intrinsic cost per authorization and the refund when the authority already exists. */
export const PER_EMPTY_ACCOUNT_COST = 25000;
export const PER_AUTH_BASE_COST = 12500;
/** EIP-7623: calldata floor per token (a zero byte is one token, a non-zero byte four). */
export const TOTAL_COST_FLOOR_PER_TOKEN = 10;
/** EIP-3529: at most gasUsed / 5 is refunded. */
export const MAX_REFUND_QUOTIENT = 5;
/** EIP-4844: blob gas per blob. */
export const GAS_PER_BLOB = 131072;

/** Call depth limit (EIP-150 era constant). */
export const MAX_CALL_DEPTH = 1024;
/** Stack limit in words. */
export const STACK_LIMIT = 1024;
/** EIP-170: largest deployed code. */
export const MAX_CODE_SIZE = 24576;
/** EIP-3860: largest initcode (2 × MAX_CODE_SIZE). */
export const MAX_INITCODE_SIZE = 49152;
/** EIP-7702: the delegation designator prefix and its full length (prefix + 20-byte address). */
export const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
export const DELEGATION_LENGTH = 23;
/** EIP-2681: nonces stay below 2^64 − 1. */
export const MAX_NONCE = 2n ** 64n - 1n;

/** Memory expansion cost of `words` 32-byte words (yellow paper C_mem). */
export function memoryCost(words: number): number {
  return G_MEMORY * words + Math.floor((words * words) / MEMORY_QUAD_DIVISOR);
}
