/**
 * The decoded form of a gossiped block (op-node `eth.ExecutionPayloadEnvelope`): the execution
 * payload with every field of its version, plus the parent beacon block root from v3 on. Types
 * only, shared by the SSZ codec (./ssz.ts) and the conversions (./envelope.ts).
 */

/** A withdrawal of a payload (EIP-4895; OP payloads carry none, but v2+ have the empty list). */
export interface GossipWithdrawal {
  index: bigint;
  validatorIndex: bigint;
  /** 20 bytes. */
  address: Uint8Array;
  /** In gwei. */
  amount: bigint;
}

/** An execution payload as gossip carries it (op-service/eth `ExecutionPayload`); byte fields are fixed-size as noted. */
export interface GossipPayload {
  /** 32 bytes. */
  parentHash: Uint8Array;
  /** 20 bytes. */
  feeRecipient: Uint8Array;
  /** 32 bytes. */
  stateRoot: Uint8Array;
  /** 32 bytes. */
  receiptsRoot: Uint8Array;
  /** 256 bytes. */
  logsBloom: Uint8Array;
  /** 32 bytes (the header's mixHash). */
  prevRandao: Uint8Array;
  blockNumber: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  /** At most 32 bytes. */
  extraData: Uint8Array;
  baseFeePerGas: bigint;
  /** 32 bytes. */
  blockHash: Uint8Array;
  /** EIP-2718 encoded transactions, deposits included. */
  transactions: Uint8Array[];
  /** v2+ only (always empty on OP chains). */
  withdrawals?: GossipWithdrawal[];
  /** v3+ only; from Jovian the block's DA footprint. */
  blobGasUsed?: bigint;
  /** v3+ only. */
  excessBlobGas?: bigint;
  /** v4 only: the L2ToL1MessagePasser storage root (specs isthmus/exec-engine.md), 32 bytes. */
  withdrawalsRoot?: Uint8Array;
}

/** A decoded gossip block: the payload, and from v3 on the parent beacon block root (32 bytes) signed with it. */
export interface GossipEnvelope {
  parentBeaconBlockRoot?: Uint8Array;
  payload: GossipPayload;
}
