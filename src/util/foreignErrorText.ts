/**
 * The one place basalt reads an error's message text. Code basalt does not own states some
 * reasons only there: @ethereumjs (why it refused a transaction, decoding or adding it to a
 * block) and the JSON-RPC and HTTP servers of other nodes (geth's and anvil's txpool refusals, an
 * L1's revert without data, a beacon node's 404 body). Each function turns such a text into a
 * typed answer; the caller builds its own typed error from that. Nothing else in src/ or workers/
 * branches on a message (test/unit/noMessageControlFlow.test.ts), and basalt's own errors carry
 * every distinction in their code and meta. When a library bump changes a text, the tests of the
 * callers (geth's messages for eth_call, eth_sendRawTransaction, block building) show it here.
 */

/**
 * Why @ethereumjs refused a transaction (`runTx`, `BlockBuilder.addTransaction`, tx validation),
 * named as geth's invalid-call reasons: `gas-limit` is any other gas-limit refusal, `rejected` any
 * other refusal.
 */
type EthereumjsTxRefusal =
  | "insufficient-funds"
  | "intrinsic-gas"
  | "fee-cap-below-base-fee"
  | "tip-above-fee-cap"
  | "sender-not-eoa"
  | "gas-limit-too-high"
  | "gas-limit"
  | "rejected";

/** The reason of an @ethereumjs transaction refusal, read from its message (geth's `core.Err*` order of checks). */
export function ethereumjsTxRefusal(message: string): EthereumjsTxRefusal {
  if (/enough funds|insufficient/i.test(message)) return "insufficient-funds";
  if (/base fee exceeds gas limit|intrinsic/i.test(message)) return "intrinsic-gas";
  if (/less than the block's baseFeePerGas|fee cap less than/i.test(message)) return "fee-cap-below-base-fee";
  if (/priority fee .*greater than|maxPriorityFeePerGas cannot be greater/i.test(message)) return "tip-above-fee-cap";
  if (/EIP-3607|not EOA/i.test(message)) return "sender-not-eoa";
  if (/gas limit.*max|exceeds.*cap|7825/i.test(message)) return "gas-limit-too-high";
  return /gas limit/i.test(message) ? "gas-limit" : "rejected";
}

/**
 * The nonces of an @ethereumjs nonce refusal ("account has nonce of: S tx has nonce of: G"), which
 * geth words as "nonce too high"/"nonce too low"; undefined for any other refusal.
 */
export function ethereumjsNonceMismatch(message: string): { state: bigint; given: bigint } | undefined {
  const m = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(message);
  return m === null ? undefined : { state: BigInt(m[1]!), given: BigInt(m[2]!) };
}

/**
 * Whether @ethereumjs's block builder refused a transaction because the block is full (its gas
 * or blob gas would pass the block's limit): the transaction waits for the next block rather
 * than being dropped. The builder reports a full block only in its message.
 */
export function ethereumjsBlockFull(message: string): boolean {
  return /block gas limit|blob gas limit/i.test(message);
}

/** Whether @ethereumjs refused to decode a transaction for its gas limit above EIP-7825's cap (2^24). */
export function ethereumjsEip7825Decode(message: string): boolean {
  return /exceeds the maximum allowed by EIP-7825/.test(message);
}

/** How a node's txpool refused `eth_sendRawTransaction` (geth, anvil). */
export type SendRefusal = "known" | "underpriced" | "nonce_too_low" | "other";

/**
 * The refusal in a JSON-RPC error message of `eth_sendRawTransaction`: geth (`txpool.ErrAlreadyKnown`,
 * `core.ErrNonceTooLow`, `txpool.ErrUnderpriced`/`ErrReplaceUnderpriced`) and anvil answer them all
 * with code -32000 (or -32003), so only the text tells them apart.
 */
export function sendRefusal(message: string): SendRefusal {
  const m = message.toLowerCase();
  if (m.includes("already known") || m.includes("already imported") || m.includes("known transaction")) return "known";
  if (m.includes("nonce too low")) return "nonce_too_low";
  if (m.includes("underpriced")) return "underpriced";
  return "other";
}

/** Whether a JSON-RPC error message says the call reverted (geth's "execution reverted" carries no data when there is no reason). */
export function isRevertText(message: string): boolean {
  return /revert/i.test(message);
}

/**
 * Whether the `message` of a beacon node's 404 body names a route, a page or an unknown endpoint
 * (fastify's "Route GET:/eth/v1/beacon/blobs/1 not found", Go's "404 page not found") rather
 * than a missing block ("Block not found").
 */
export function isMissingRouteText(message: string): boolean {
  return /route|page not found|unknown endpoint|not implemented/i.test(message);
}

/** An @ethereumjs refusal's own words without the block and transaction context it appends ("… (block number=…", "… (tx type=…"). */
export function ethereumjsRefusalText(message: string): string {
  return message.replace(/ \(block number=.*$/s, "").replace(/ \(tx type=.*$/s, "");
}

/** The column family RocksDB names when it refuses to open a database without it ("Column family not found: X"); undefined for another refusal. */
export function rocksdbMissingColumnFamily(message: string): string | undefined {
  return /Column family not found: (\S+)/.exec(message)?.[1];
}
