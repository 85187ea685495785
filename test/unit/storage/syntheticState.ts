/**
 * A deterministic synthetic state for the storage tests: `n` accounts in ascending hashed-address
 * order, every tenth with three slots in ascending hashed-slot order, and the second one with
 * 2,000 (more than a test's transaction holds: a load cut short inside an account).
 */
import type { BulkAccount } from "../../../src/storage/bulkLoad.js";
import { keccak256 } from "../../../src/util/keccak.js";

export function* syntheticAccounts(n: number): Generator<BulkAccount> {
  const keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) keys.push(keccak256(Buffer.from(`account ${i}`)));
  keys.sort((a, b) => Buffer.compare(a, b));
  for (const [i, hashedAddress] of keys.entries()) {
    yield {
      hashedAddress,
      nonce: BigInt(i % 7),
      balance: BigInt(i) * 10n ** 15n + 1n,
      ...(i % 10 === 0 || i === 1
        ? {
            storage: Array.from({ length: i === 1 ? 2_000 : 3 }, (_, s) => s)
              .map((s) => keccak256(Buffer.from(`slot ${i} ${s}`)))
              .sort((a, b) => Buffer.compare(a, b))
              .map((hashedSlot) => ({ hashedSlot, value: Uint8Array.of(1 + (i % 200)) })),
          }
        : {}),
    };
  }
}
