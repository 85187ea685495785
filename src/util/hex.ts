/**
 * The one validator of hex text in JSON (EIP-1474 DATA and QUANTITY), for every reader of hex
 * from outside: JSON-RPC parameters (src/rpc/hexParams.ts, eth_simulateV1's overrides), blocks
 * fetched over RPC (src/sync/blockFromRpc.ts), flashblocks (src/flashblocks/codec.ts) and the
 * beacon API (src/derivation/beaconClient.ts). Callers keep their own error types and texts.
 */

/** Whether `digits` are hex digits only (any case, no prefix; empty is true). */
export function isHexDigits(digits: string): boolean {
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    // 0-9, A-F, a-f
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * Whether `v` is DATA: `0x` (lower-case x) then whole bytes of hex digits; of exactly `bytes`
 * bytes when given.
 */
export function isHexData(v: unknown, bytes?: number): v is string {
  if (typeof v !== "string" || v.length % 2 !== 0 || v.charCodeAt(0) !== 48 || v.charCodeAt(1) !== 120) return false;
  if (bytes !== undefined && v.length !== 2 + 2 * bytes) return false;
  return isHexDigits(v.slice(2));
}

/** Whether `v` is a QUANTITY: `0x` (lower-case x) then at least one hex digit, no leading zero (`0x0` for zero). */
export function isHexQuantity(v: unknown): v is string {
  if (typeof v !== "string" || v.length < 3 || v.charCodeAt(0) !== 48 || v.charCodeAt(1) !== 120) return false;
  if (v.length > 3 && v.charCodeAt(2) === 48) return false;
  return isHexDigits(v.slice(2));
}
