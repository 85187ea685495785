/**
 * The record types the store keeps, shared by storage, execution and the JSON renderers.
 * Blocks and transactions are @ethereumjs objects; receipts are basalt's own.
 */

/** An EVM log as stored in a receipt. */
export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/**
 * A transaction receipt as stored (the consensus fields). Derived fields of the RPC form
 * (gasUsed, logIndex, effectiveGasPrice, contractAddress, …) are computed by the formatter
 * from the block, the receipt list and the senders.
 */
export interface StoredReceipt {
  /** EIP-2718 transaction type (0 legacy). */
  type: number;
  /** Byzantium and later: 1 success, 0 failure. */
  status?: 0 | 1;
  /** Before Byzantium: the intermediate state root after the transaction. */
  root?: Uint8Array;
  cumulativeGasUsed: bigint;
  logs: Log[];
  /** 256-byte logs bloom. */
  bloom: Uint8Array;
  /** OP deposits (Regolith+): the sender's nonce before the deposit executed. */
  depositNonce?: bigint;
  /** OP deposits (Canyon+): receipt encoding version (1). */
  depositReceiptVersion?: number;
}
