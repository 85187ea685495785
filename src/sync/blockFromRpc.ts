/**
 * Rebuilds a block from its JSON-RPC form (eth_getBlockByNumber / eth_getBlockByHash with full
 * transactions), as follow mode receives it from the trusted L2 RPC: the header from its JSON
 * fields, every transaction from its JSON object (legacy with or without EIP-155, 2930, 1559,
 * 4844, 7702 and OP deposits 0x7e), the withdrawals. Nothing is trusted: each rebuilt transaction
 * must hash to its JSON `hash`, the header to the block's `hash`, and the transactions to the
 * header's `transactionsRoot`; any difference is a {@link BlockFromRpcError} naming the block,
 * the transaction index and the field.
 */
import { Block, createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Address, bigIntToUnpaddedBytes, createWithdrawal, equalsBytes, type Withdrawal } from "@ethereumjs/util";
import type { OpChainConfig } from "../chain/op/forks.js";
import { DEPOSIT_TX_TYPE, DepositTransaction } from "../chain/op/depositTx.js";
import { fromHex, to0x } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { isHexData, isHexQuantity } from "../util/hex.js";

/** What rebuilding needs from the chain: the fork rules at a block, and whether it is an OP chain. */
export interface BlockRulesSource {
  /** A Common set to the hardfork of (number, timestamp) (see `Chain.commonAt`). */
  commonAt(number: bigint, timestamp: bigint): Common;
  /** The chain's OP Stack configuration; undefined on plain Ethereum chains. */
  readonly op: OpChainConfig | undefined;
}

/** Where a {@link BlockFromRpcError} was found. */
interface BlockFromRpcErrorMeta extends Record<string, unknown> {
  /** Block number (decimal), when the JSON had a readable one. */
  block?: string;
  /** Index of the offending transaction; absent for header faults. */
  txIndex?: number;
  /** JSON field at fault (`hash` for a hash mismatch, `transactionsRoot` for a root mismatch). */
  field: string;
}

/** Stable code of {@link BlockFromRpcError}. */
const BlockFromRpcErrorCode = { BLOCK_JSON_INVALID: "SYNC_BLOCK_JSON_INVALID" } as const;
/** A {@link BlockFromRpcError}'s code with its metadata. */
type BlockFromRpcErrorType = { code: typeof BlockFromRpcErrorCode.BLOCK_JSON_INVALID } & BlockFromRpcErrorMeta;

/** A block JSON that cannot be rebuilt, or whose rebuilt form does not hash to what the JSON says. */
export class BlockFromRpcError extends TypedError<BlockFromRpcErrorType> {
  constructor(message: string, meta: BlockFromRpcErrorMeta) {
    super({ code: BlockFromRpcErrorCode.BLOCK_JSON_INVALID, ...meta }, message);
  }
}

type Json = Record<string, unknown>;


/** Reads the fields of one JSON object, failing with the location and field name. */
class FieldReader {
  constructor(
    private readonly o: Json,
    private readonly where: string,
    private readonly meta: Omit<BlockFromRpcErrorMeta, "field">,
  ) {}

  fail(field: string, why: string): never {
    throw new BlockFromRpcError(`${this.where}: field ${field} ${why}`, { ...this.meta, field });
  }

  has(field: string): boolean {
    return this.o[field] !== undefined && this.o[field] !== null;
  }

  raw(field: string): unknown {
    return this.o[field];
  }

  quantity(field: string): bigint {
    const v = this.o[field];
    if (!isHexQuantity(v)) this.fail(field, `must be a hex quantity, got ${JSON.stringify(v) ?? "nothing"}`);
    return BigInt(v);
  }

  optQuantity(field: string): bigint | undefined {
    return this.has(field) ? this.quantity(field) : undefined;
  }

  bytes(field: string, len?: number): Uint8Array {
    const v = this.o[field];
    if (!isHexData(v)) this.fail(field, `must be 0x-prefixed hex bytes, got ${JSON.stringify(v) ?? "nothing"}`);
    const b = fromHex(v);
    if (len !== undefined && b.length !== len) this.fail(field, `must be ${len} bytes, got ${b.length}`);
    return b;
  }

  optBytes(field: string, len?: number): Uint8Array | undefined {
    return this.has(field) ? this.bytes(field, len) : undefined;
  }

  /** An address, or undefined for `null`/absent (contract creation). */
  optAddress(field: string): Address | undefined {
    return this.has(field) ? new Address(this.bytes(field, 20)) : undefined;
  }

  array(field: string): unknown[] {
    const v = this.o[field];
    if (!Array.isArray(v)) this.fail(field, `must be an array, got ${JSON.stringify(v) ?? "nothing"}`);
    return v;
  }

  /** A JSON object, checked. */
  static object(v: unknown, where: string, meta: BlockFromRpcErrorMeta): Json {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new BlockFromRpcError(`${where}: expected a JSON object`, meta);
    return v as Json;
  }
}

/** The signature value of a typed transaction: `yParity` (geth, op-reth), else `v` (older servers). */
function yParityOf(r: FieldReader): bigint {
  const y = r.has("yParity") ? r.quantity("yParity") : r.quantity("v");
  if (y !== 0n && y !== 1n) r.fail(r.has("yParity") ? "yParity" : "v", `must be 0 or 1, got ${y}`);
  return y;
}

/** An access list in @ethereumjs's JSON form. */
type AccessListJson = { address: `0x${string}`; storageKeys: `0x${string}`[] }[];

function accessListOf(r: FieldReader): AccessListJson {
  if (!r.has("accessList")) return [];
  return r.array("accessList").map((e, i) => {
    const item = FieldReader.object(e, `accessList[${i}]`, { field: "accessList" });
    const address = item.address;
    const keys = item.storageKeys;
    if (!isHexData(address, 20)) r.fail(`accessList[${i}].address`, "must be a 20-byte address");
    if (!Array.isArray(keys) || keys.some((k) => !isHexData(k, 32))) {
      r.fail(`accessList[${i}].storageKeys`, "must be an array of 32-byte hex keys");
    }
    return { address: address as `0x${string}`, storageKeys: keys as `0x${string}`[] };
  });
}

function authorizationListOf(r: FieldReader, where: string, meta: Omit<BlockFromRpcErrorMeta, "field">): Uint8Array[][] {
  return r.array("authorizationList").map((e, i) => {
    const at = `${where} authorizationList[${i}]`;
    const a = new FieldReader(FieldReader.object(e, at, { ...meta, field: "authorizationList" }), at, meta);
    return [
      bigIntToUnpaddedBytes(a.quantity("chainId")),
      a.bytes("address", 20),
      bigIntToUnpaddedBytes(a.quantity("nonce")),
      bigIntToUnpaddedBytes(a.quantity("yParity")),
      bigIntToUnpaddedBytes(a.quantity("r")),
      bigIntToUnpaddedBytes(a.quantity("s")),
    ];
  });
}

/** The calldata: `input` (geth and op-reth), else `data`. */
function inputOf(r: FieldReader): Uint8Array {
  return r.bytes(r.has("input") || !r.has("data") ? "input" : "data");
}

/** Rebuilds the deposit transaction of a JSON object (op-reth and op-geth forms). */
function depositFromJson(r: FieldReader): DepositTransaction {
  const sys = r.raw("isSystemTx");
  let isSystemTx: boolean;
  if (sys === undefined || sys === null || sys === false) isSystemTx = false;
  else if (sys === true) isSystemTx = true;
  else isSystemTx = r.quantity("isSystemTx") !== 0n;
  return new DepositTransaction({
    sourceHash: r.bytes("sourceHash", 32),
    from: new Address(r.bytes("from", 20)),
    to: r.optAddress("to"),
    // op-geth omits `mint` when zero (a nil *big.Int).
    mint: r.optQuantity("mint") ?? 0n,
    value: r.quantity("value"),
    gasLimit: r.quantity("gas"),
    isSystemTx,
    data: inputOf(r),
  });
}

/** Rebuilds a signed @ethereumjs transaction from its JSON object. */
function signedTxFromJson(r: FieldReader, type: number, common: Common): TypedTransaction {
  const base = {
    nonce: r.quantity("nonce"),
    gasLimit: r.quantity("gas"),
    to: r.optAddress("to"),
    value: r.quantity("value"),
    data: inputOf(r),
    r: r.quantity("r"),
    s: r.quantity("s"),
  };
  const opts = { common };
  switch (type) {
    case 0:
      return createLegacyTx({ ...base, gasPrice: r.quantity("gasPrice"), v: r.quantity("v") }, opts);
    case 1:
      return createAccessList2930Tx(
        { ...base, chainId: r.quantity("chainId"), gasPrice: r.quantity("gasPrice"), accessList: accessListOf(r), v: yParityOf(r) },
        opts,
      );
    case 2:
      return createFeeMarket1559Tx(
        {
          ...base,
          chainId: r.quantity("chainId"),
          maxFeePerGas: r.quantity("maxFeePerGas"),
          maxPriorityFeePerGas: r.quantity("maxPriorityFeePerGas"),
          accessList: accessListOf(r),
          v: yParityOf(r),
        },
        opts,
      );
    case 3: {
      const hashes = r.array("blobVersionedHashes").map((h, i) => {
        if (!isHexData(h, 32)) r.fail(`blobVersionedHashes[${i}]`, "must be a 32-byte hash");
        return h as `0x${string}`;
      });
      return createBlob4844Tx(
        {
          ...base,
          chainId: r.quantity("chainId"),
          maxFeePerGas: r.quantity("maxFeePerGas"),
          maxPriorityFeePerGas: r.quantity("maxPriorityFeePerGas"),
          maxFeePerBlobGas: r.quantity("maxFeePerBlobGas"),
          blobVersionedHashes: hashes,
          accessList: accessListOf(r),
          v: yParityOf(r),
        },
        opts,
      );
    }
    default:
      throw new Error(`unreachable type ${type}`);
  }
}

/** Rebuilds transaction `index` of block `number` and checks it hashes to its JSON `hash`. */
function txFromJson(json: unknown, index: number, block: bigint, common: Common, op: OpChainConfig | undefined): TypedTransaction | DepositTransaction {
  const where = `block ${block}, transaction ${index}`;
  const meta = { block: block.toString(), txIndex: index };
  if (typeof json === "string") {
    throw new BlockFromRpcError(`${where}: got a transaction hash; the block must be fetched with full transactions`, { ...meta, field: "transactions" });
  }
  const r = new FieldReader(FieldReader.object(json, where, { ...meta, field: "transactions" }), where, meta);
  const type = Number(r.quantity("type"));
  let tx: TypedTransaction | DepositTransaction;
  try {
    if (type === DEPOSIT_TX_TYPE) {
      tx = op === undefined ? r.fail("type", "is 0x7e (OP deposit) but the chain is not an OP Stack chain") : depositFromJson(r);
    } else if (type === 4) {
      tx = createEOACode7702Tx(
        {
          nonce: r.quantity("nonce"),
          gasLimit: r.quantity("gas"),
          to: r.optAddress("to"),
          value: r.quantity("value"),
          data: inputOf(r),
          chainId: r.quantity("chainId"),
          maxFeePerGas: r.quantity("maxFeePerGas"),
          maxPriorityFeePerGas: r.quantity("maxPriorityFeePerGas"),
          accessList: accessListOf(r),
          authorizationList: authorizationListOf(r, where, meta) as never,
          v: yParityOf(r),
          r: r.quantity("r"),
          s: r.quantity("s"),
        },
        { common },
      );
    } else if (type >= 0 && type <= 3) {
      tx = signedTxFromJson(r, type, common);
    } else {
      tx = r.fail("type", `0x${type.toString(16)} is not a transaction type this chain can hold`);
    }
  } catch (e) {
    if (e instanceof BlockFromRpcError) throw e;
    // @ethereumjs refuses inconsistent values (chain id, signature range, fork rules).
    throw new BlockFromRpcError(`${where}: cannot rebuild the type ${type} transaction: ${(e as Error).message}`, { ...meta, field: "transaction" });
  }
  const expected = r.bytes("hash", 32);
  if (!equalsBytes(tx.hash(), expected)) {
    throw new BlockFromRpcError(`${where}: rebuilt transaction hashes to ${to0x(tx.hash())}, but the JSON says ${to0x(expected)}`, { ...meta, field: "hash" });
  }
  return tx;
}

/**
 * Rebuilds the header of a block JSON (every fork field it carries) with the fork rules of its
 * number and timestamp, and checks it hashes to the JSON's `hash`. `requireHash: false` admits
 * header JSON without a `hash` (test fixtures such as kona's `parent_header`); a `hash` that is
 * present is always checked.
 */
export function headerFromRpc(json: unknown, rules: BlockRulesSource, opts: { requireHash?: boolean } = {}): BlockHeader {
  const o = FieldReader.object(json, "block", { field: "block" });
  const pre = new FieldReader(o, "block", {});
  const number = pre.quantity("number");
  const where = `block ${number}`;
  const r = new FieldReader(o, where, { block: number.toString() });
  const timestamp = r.quantity("timestamp");
  const common = rules.commonAt(number, timestamp);
  const data = {
    parentHash: r.bytes("parentHash", 32),
    uncleHash: r.bytes("sha3Uncles", 32),
    coinbase: new Address(r.bytes("miner", 20)),
    stateRoot: r.bytes("stateRoot", 32),
    transactionsTrie: r.bytes("transactionsRoot", 32),
    receiptTrie: r.bytes("receiptsRoot", 32),
    logsBloom: r.bytes("logsBloom", 256),
    difficulty: r.quantity("difficulty"),
    number,
    gasLimit: r.quantity("gasLimit"),
    gasUsed: r.quantity("gasUsed"),
    timestamp,
    extraData: r.bytes("extraData"),
    mixHash: r.bytes("mixHash", 32),
    nonce: r.bytes("nonce", 8),
    baseFeePerGas: r.optQuantity("baseFeePerGas"),
    withdrawalsRoot: r.optBytes("withdrawalsRoot", 32),
    blobGasUsed: r.optQuantity("blobGasUsed"),
    excessBlobGas: r.optQuantity("excessBlobGas"),
    parentBeaconBlockRoot: r.optBytes("parentBeaconBlockRoot", 32),
    requestsHash: r.optBytes("requestsHash", 32),
  };
  let header: BlockHeader;
  try {
    header = createBlockHeader(data, { common, skipConsensusFormatValidation: true });
  } catch (e) {
    throw new BlockFromRpcError(`${where}: cannot rebuild the header: ${(e as Error).message}`, { block: number.toString(), field: "header" });
  }
  // @ethereumjs fills fork fields the JSON lacks with defaults; the hash check below catches a
  // missing one (the default rarely matches), but name it when it is plainly absent.
  for (const [field, value] of [
    ["baseFeePerGas", header.baseFeePerGas],
    ["withdrawalsRoot", header.withdrawalsRoot],
    ["blobGasUsed", header.blobGasUsed],
    ["excessBlobGas", header.excessBlobGas],
    ["parentBeaconBlockRoot", header.parentBeaconBlockRoot],
    ["requestsHash", header.requestsHash],
  ] as const) {
    if (value !== undefined && !r.has(field)) r.fail(field, `is missing, but the fork at block ${number} (timestamp ${timestamp}) has it`);
  }
  if (opts.requireHash === false && !r.has("hash")) return header;
  const expected = r.bytes("hash", 32);
  if (!equalsBytes(header.hash(), expected)) {
    throw new BlockFromRpcError(`${where}: rebuilt header hashes to ${to0x(header.hash())}, but the JSON says ${to0x(expected)}`, {
      block: number.toString(),
      field: "hash",
    });
  }
  return header;
}

/**
 * Rebuilds a block from its JSON-RPC form with full transactions (eth_getBlockByNumber(n, true)):
 * the header (all fork fields, incl. OP Isthmus `withdrawalsRoot` and `requestsHash`), each
 * transaction (legacy, 2930, 1559, 4844, 7702, OP deposits), the withdrawals. Checks that each
 * transaction hashes to its `hash`, the header to the block `hash`, and the transactions to
 * `transactionsRoot`; on any difference throws {@link BlockFromRpcError}. Blocks with ommers
 * cannot be rebuilt (the JSON only lists their hashes) and are refused.
 */
export async function blockFromRpc(json: unknown, rules: BlockRulesSource): Promise<Block> {
  const header = headerFromRpc(json, rules);
  const o = json as Json;
  const number = header.number;
  const where = `block ${number}`;
  const r = new FieldReader(o, where, { block: number.toString() });
  const uncles = r.has("uncles") ? r.array("uncles") : [];
  if (uncles.length > 0) {
    r.fail("uncles", `lists ${uncles.length} ommer(s); their headers are not in the block JSON, so the block cannot be rebuilt`);
  }
  const common = header.common;
  const txs = r.array("transactions").map((t, i) => txFromJson(t, i, number, common, rules.op));
  let withdrawals: Withdrawal[] | undefined;
  if (common.isActivatedEIP(4895)) {
    withdrawals = r.array("withdrawals").map((w, i) => {
      const at = `${where} withdrawals[${i}]`;
      const wr = new FieldReader(FieldReader.object(w, at, { block: number.toString(), field: "withdrawals" }), at, { block: number.toString() });
      return createWithdrawal({
        index: wr.quantity("index"),
        validatorIndex: wr.quantity("validatorIndex"),
        address: wr.bytes("address", 20),
        amount: wr.quantity("amount"),
      });
    });
    if (rules.op !== undefined && withdrawals.length > 0) r.fail("withdrawals", `holds ${withdrawals.length} entries; OP blocks have none`);
  }
  const opts = { common, skipConsensusFormatValidation: true };
  const block = new Block(header, txs as TypedTransaction[], [], withdrawals, opts);
  const root = await block.genTxTrie();
  if (!equalsBytes(root, header.transactionsTrie)) {
    throw new BlockFromRpcError(`${where}: the ${txs.length} transactions have root ${to0x(root)}, but transactionsRoot is ${to0x(header.transactionsTrie)}`, {
      block: number.toString(),
      field: "transactionsRoot",
    });
  }
  // OP Isthmus reuses withdrawalsRoot for the L2ToL1MessagePasser storage root: only Ethereum's is a withdrawals trie.
  if (withdrawals !== undefined && rules.op === undefined && !(await block.withdrawalsTrieIsValid())) {
    throw new BlockFromRpcError(`${where}: the withdrawals do not match withdrawalsRoot ${to0x(header.withdrawalsRoot!)}`, {
      block: number.toString(),
      field: "withdrawalsRoot",
    });
  }
  return block;
}
