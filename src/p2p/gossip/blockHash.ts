/**
 * The block hash a gossiped payload's fields hash to (op-node `ExecutionPayloadEnvelope.CheckBlockHash`,
 * base/base gossip `block_valid`): keccak256 of the RLP header rebuilt from the payload, with the
 * fields a payload does not carry fixed as the OP Stack fixes them.
 *
 * Header, in order: parentHash, ommersHash = keccak256(rlp([])), coinbase = feeRecipient,
 * stateRoot, transactionsRoot (ordered trie of the EIP-2718 transaction bytes), receiptsRoot,
 * logsBloom, difficulty 0, number, gasLimit, gasUsed, timestamp, extraData, mixHash = prevRandao,
 * nonce = 8 zero bytes, baseFeePerGas; v2+ withdrawalsRoot (the ordered trie of the withdrawals:
 * the empty-trie root for OP's empty list; v4: the payload's own `withdrawalsRoot`, Isthmus' L2ToL1MessagePasser
 * storage root); v3+ blobGasUsed, excessBlobGas, parentBeaconBlockRoot; v4 requestsHash =
 * sha256("") (Isthmus has Prague's field but no EL requests: op-geth `EmptyRequestsHash`, base/base
 * `EMPTY_REQUESTS_HASH`).
 */
import { RLP } from "@ethereumjs/rlp";
import { sha256 } from "@noble/hashes/sha2.js";
import { orderedTrieRoot } from "../../chain/orderedTrie.js";
import { keccak256 } from "../../util/keccak.js";
import type { GossipEnvelope, GossipWithdrawal } from "./payload.js";
import type { BlocksVersion } from "./topics.js";

/** keccak256(rlp([])): the ommers hash of every post-merge header. */
const EMPTY_OMMERS_HASH = keccak256(RLP.encode([]));
/** sha256 of no requests (EIP-7685 with an empty list), the requestsHash of every Isthmus block. */
const EMPTY_REQUESTS_HASH = sha256(new Uint8Array(0));
/** The PoS nonce: 8 zero bytes. */
const ZERO_NONCE = new Uint8Array(8);

/** Root of the withdrawals trie (EIP-4895: rlp([index, validatorIndex, address, amount]) by position). */
function withdrawalsRoot(ws: readonly GossipWithdrawal[]): Uint8Array {
  return orderedTrieRoot(ws.map((w) => RLP.encode([w.index, w.validatorIndex, w.address, w.amount])));
}

/**
 * The hash of the header `env`'s payload describes on a `version` topic (see the module doc). A
 * payload is consistent when this equals its `blockHash`.
 */
export function payloadBlockHash(env: GossipEnvelope, version: BlocksVersion): Uint8Array {
  const p = env.payload;
  const fields: (Uint8Array | bigint)[] = [
    p.parentHash,
    EMPTY_OMMERS_HASH,
    p.feeRecipient,
    p.stateRoot,
    orderedTrieRoot(p.transactions),
    p.receiptsRoot,
    p.logsBloom,
    0n,
    p.blockNumber,
    p.gasLimit,
    p.gasUsed,
    p.timestamp,
    p.extraData,
    p.prevRandao,
    ZERO_NONCE,
    p.baseFeePerGas,
  ];
  if (version >= 2) fields.push(version >= 4 && p.withdrawalsRoot !== undefined ? p.withdrawalsRoot : withdrawalsRoot(p.withdrawals ?? []));
  if (version >= 3) fields.push(p.blobGasUsed ?? 0n, p.excessBlobGas ?? 0n, env.parentBeaconBlockRoot ?? new Uint8Array(32));
  if (version >= 4) fields.push(EMPTY_REQUESTS_HASH);
  return keccak256(RLP.encode(fields));
}
