/**
 * Decoded @ethereumjs transactions (blocks from the store, the network and the Engine API are
 * decoded with @ethereumjs/tx) in the fast engine's form. Sender recovery is the transaction's
 * own (cached, recovered ahead of time on the execution pool during import).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { authorizationFromBytes, type EvmTransaction } from "./transaction.js";

const NO_LIST: readonly never[] = [];

interface TxFields {
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList?: [Uint8Array, Uint8Array[]][];
  blobVersionedHashes?: string[];
  maxFeePerBlobGas?: bigint;
  authorizationList?: Uint8Array[][];
}

/** The fast engine's view of `tx` (its sender must be recoverable). */
export function evmTransactionOf(tx: TypedTransaction, sender: Uint8Array = tx.getSenderAddress().bytes): EvmTransaction {
  const t = tx as unknown as TxFields;
  const maxFee = t.maxFeePerGas ?? t.gasPrice ?? 0n;
  const tip = t.maxPriorityFeePerGas ?? t.gasPrice ?? 0n;
  return {
    type: tx.type,
    sender,
    to: tx.to?.bytes,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    value: tx.value,
    data: tx.data,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: tip,
    accessList: t.accessList === undefined ? NO_LIST : t.accessList.map(([address, storageKeys]) => ({ address, storageKeys })),
    blobVersionedHashes: t.blobVersionedHashes === undefined ? NO_LIST : t.blobVersionedHashes.map((h) => hexToBytes(h as `0x${string}`)),
    maxFeePerBlobGas: t.maxFeePerBlobGas ?? 0n,
    authorizationList: t.authorizationList === undefined ? NO_LIST : t.authorizationList.map(authorizationFromBytes),
  };
}
