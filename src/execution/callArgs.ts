/**
 * Call arguments (geth `TransactionArgs`), decoded: the one form a call object takes from the
 * RPC thread's parser (src/rpc/params.ts, eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1, debug_traceCall*, trace_call*) to the EVM. It crosses the thread boundary as
 * is, inside the request's msgpack (src/execution/pool/protocol.ts carries bigint and bytes).
 */

/** Call arguments, decoded (geth `TransactionArgs`). */
export interface CallArgs {
  from?: Uint8Array;
  to?: Uint8Array | null;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[];
  blobVersionedHashes?: Uint8Array[];
  /** EIP-7702 authorizations: each one's six fields (chain id, address, nonce, y parity, r, s) as bytes. */
  authorizationList?: Uint8Array[][];
  chainId?: bigint;
}
