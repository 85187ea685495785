/**
 * The OP flavour of the Engine API (specs protocol/exec-engine.md and the per-fork
 * exec-engine pages): payload attributes carry forced `transactions`, `noTxPool`,
 * `gasLimit`, Holocene `eip1559Params` and Jovian `minBaseFee`; Isthmus payloads carry the
 * `withdrawalsRoot` (the L2ToL1MessagePasser storage root); bodies hold deposit transactions.
 */
import { Block, createBlockHeader } from "@ethereumjs/block";
import { KECCAK256_RLP, bytesToHex, equalsBytes, hexToBytes } from "@ethereumjs/util";
import type { Chain } from "../../blockchain/chain.js";
import { OpFork, opForkAt } from "../../chain/op/forks.js";
import { EMPTY_REQUESTS_HASH, decodeOpTransaction, type OpPayloadAttributes } from "../../execution/op/opPayload.js";
import { RpcCode, RpcError } from "../errors.js";

type Json = Record<string, unknown>;

const bad = (msg: string): RpcError => new RpcError(RpcCode.InvalidPayloadAttributes, msg);

function hex(v: unknown, what: string, len?: number): Uint8Array {
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw bad(`${what}: expected 0x-prefixed hex bytes`);
  const b = hexToBytes(v as `0x${string}`);
  if (len !== undefined && b.length !== len) throw bad(`${what}: expected ${len} bytes, got ${b.length}`);
  return b;
}

function quantity(v: unknown, what: string): bigint {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]+$/.test(v)) throw bad(`${what}: expected a hex quantity`);
  return BigInt(v);
}

/** Parses OP payload attributes, checking the fork-dependent fields as op-geth/op-reth do. */
export function parseOpPayloadAttributes(a: Json, chain: Chain): OpPayloadAttributes {
  const op = chain.op!;
  const timestamp = quantity(a.timestamp, "timestamp");
  const fork = opForkAt(op, timestamp);
  if (a.gasLimit == null) throw bad("missing gasLimit (required on OP chains)");
  const txs = a.transactions == null ? [] : a.transactions;
  if (!Array.isArray(txs)) throw bad("transactions: expected an array of hex strings");
  let eip1559Params: Uint8Array | undefined;
  if (fork >= OpFork.holocene) {
    if (a.eip1559Params == null) throw bad("missing eip1559Params (required from Holocene)");
    eip1559Params = hex(a.eip1559Params, "eip1559Params", 8);
  } else if (a.eip1559Params != null) throw bad("eip1559Params must be absent before Holocene");
  let minBaseFee: bigint | undefined;
  if (fork >= OpFork.jovian) {
    if (a.minBaseFee == null) throw bad("missing minBaseFee (required from Jovian)");
    minBaseFee = quantity(a.minBaseFee, "minBaseFee");
  } else if (a.minBaseFee != null) throw bad("minBaseFee must be absent before Jovian");
  if (fork >= OpFork.canyon && Array.isArray(a.withdrawals) && a.withdrawals.length > 0) throw bad("withdrawals must be empty on OP chains");
  return {
    timestamp,
    prevRandao: hex(a.prevRandao, "prevRandao", 32),
    suggestedFeeRecipient: hex(a.suggestedFeeRecipient, "suggestedFeeRecipient", 20),
    parentBeaconBlockRoot: a.parentBeaconBlockRoot == null ? undefined : hex(a.parentBeaconBlockRoot, "parentBeaconBlockRoot", 32),
    transactions: txs.map((t, i) => hex(t, `transactions[${i}]`)),
    noTxPool: a.noTxPool === true,
    gasLimit: quantity(a.gasLimit, "gasLimit"),
    eip1559Params,
    minBaseFee,
  };
}

/**
 * Builds a block from an OP execution payload (V1–V4 JSON, with `parentBeaconBlockRoot`
 * merged in for V3+). Deposits are decoded; the Isthmus `withdrawalsRoot` is taken from the
 * payload; the block hash must equal `blockHash`.
 */
export async function blockFromOpPayload(chain: Chain, p: Json): Promise<Block> {
  const number = BigInt(p.blockNumber as string);
  const timestamp = BigInt(p.timestamp as string);
  const common = chain.commonAt(number, timestamp);
  const fork = opForkAt(chain.op!, timestamp);
  const txs = (p.transactions as string[]).map((t, i) => decodeOpTransaction(hexToBytes(t as `0x${string}`), common, i));
  const header: Record<string, unknown> = {
    parentHash: p.parentHash,
    coinbase: p.feeRecipient,
    stateRoot: p.stateRoot,
    receiptTrie: p.receiptsRoot,
    logsBloom: p.logsBloom,
    mixHash: p.prevRandao,
    number,
    gasLimit: p.gasLimit,
    gasUsed: p.gasUsed,
    timestamp,
    extraData: p.extraData,
    baseFeePerGas: p.baseFeePerGas,
    difficulty: 0n,
    nonce: new Uint8Array(8),
  };
  if (common.isActivatedEIP(4895)) {
    if (Array.isArray(p.withdrawals) && p.withdrawals.length > 0) throw new Error("withdrawals must be empty on OP chains");
    header.withdrawalsRoot = fork >= OpFork.isthmus ? p.withdrawalsRoot : bytesToHex(KECCAK256_RLP);
    if (header.withdrawalsRoot == null) throw new Error("missing withdrawalsRoot (required from Isthmus)");
  }
  if (common.isActivatedEIP(4844)) {
    header.blobGasUsed = p.blobGasUsed;
    header.excessBlobGas = p.excessBlobGas;
  }
  if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = p.parentBeaconBlockRoot;
  if (common.isActivatedEIP(7685)) header.requestsHash = EMPTY_REQUESTS_HASH;
  const opts = { common, skipConsensusFormatValidation: true };
  const withdrawals = common.isActivatedEIP(4895) ? [] : undefined;
  const draft = new Block(createBlockHeader(header as never, opts), txs as never, [], withdrawals, opts);
  header.transactionsTrie = await draft.genTxTrie();
  const block = new Block(createBlockHeader(header as never, opts), txs as never, [], withdrawals, opts);
  if (!equalsBytes(block.hash(), hexToBytes(p.blockHash as `0x${string}`))) {
    throw new Error(`blockHash mismatch: payload says ${String(p.blockHash)}, its fields hash to ${bytesToHex(block.hash())}`);
  }
  return block;
}
