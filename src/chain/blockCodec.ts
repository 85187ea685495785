/**
 * Decoding blocks from the wire/file RLP with the right fork rules.
 */
import { Block, createBlockFromBytesArray, createBlockHeaderFromBytesArray } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createTxFromBlockBodyData } from "@ethereumjs/tx";
import { DEPOSIT_TX_TYPE, DepositTransaction } from "./op/depositTx.js";
import { envelopeOf, rememberEnvelope } from "./envelope.js";
import { RLP } from "@ethereumjs/rlp";
import { TypedError } from "../util/errors.js";
import { toHex } from "../util/bytes.js";
import type { OpChainConfig } from "./op/forks.js";

/**
 * The fork rules blocks are decoded with: the Common of a block number and timestamp, and the
 * OP configuration on OP chains (bodies may hold deposits). The chain service implements it.
 */
interface BlockDecodeRules {
  readonly op: OpChainConfig | undefined;
  /** A Common set to the hardfork of (number, timestamp). */
  commonAt(number: bigint, timestamp: bigint): Common;
}

/** Stable code of {@link BlockDecodeError}. */
const BlockDecodeErrorCode = { DECODE_FAILED: "BLOCK_DECODE_FAILED" } as const;
/** A {@link BlockDecodeError}'s code with its metadata. */
type BlockDecodeErrorType = { code: typeof BlockDecodeErrorCode.DECODE_FAILED };

/** A block whose RLP cannot be decoded. */
export class BlockDecodeError extends TypedError<BlockDecodeErrorType> {
  constructor(message: string) {
    super({ code: BlockDecodeErrorCode.DECODE_FAILED }, message);
  }
}

/** Decodes a full block RLP ([header, txs, uncles, withdrawals?]) with the chain's fork rules. */
export function decodeBlockFromRlp(chain: BlockDecodeRules, bytes: Uint8Array): Block {
  let values: unknown;
  try {
    values = RLP.decode(bytes);
  } catch (e) {
    throw new BlockDecodeError(`malformed block RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(values) || values.length < 3 || !Array.isArray(values[0])) {
    throw new BlockDecodeError("block RLP must be a list [header, transactions, uncles, ...]");
  }
  const header = values[0] as Uint8Array[];
  if (header.length < 15) throw new BlockDecodeError(`header has ${header.length} fields, at least 15 expected`);
  const number = BigInt("0x" + (toHex(header[8]) || "0"));
  try {
    return blockFromValues(chain, values as unknown[]);
  } catch (e) {
    throw new BlockDecodeError(`block ${number}: ${(e as Error).message}`);
  }
}

/**
 * Builds a Block from decoded RLP values. Uncle headers are decoded with their own fork's
 * rules (an uncle of the first London block is a Berlin header), which @ethereumjs does not
 * do by itself.
 */
export function blockFromValues(chain: BlockDecodeRules, values: unknown[]): Block {
  const header = values[0] as Uint8Array[];
  const number = BigInt("0x" + (toHex(header[8]) || "0"));
  const timestamp = BigInt("0x" + (toHex(header[11]) || "0"));
  const uncles = (values[2] ?? []) as Uint8Array[][];
  const opts = { common: chain.commonAt(number, timestamp), skipConsensusFormatValidation: true };
  if (chain.op !== undefined) {
    // OP bodies may hold deposit transactions (0x7e), which @ethereumjs does not know.
    const txValues = (values[1] ?? []) as (Uint8Array | Uint8Array[])[];
    const b = createBlockFromBytesArray([values[0], [], [], ...values.slice(3)] as never, opts);
    const txs = txValues.map((t) =>
      t instanceof Uint8Array && t[0] === DEPOSIT_TX_TYPE ? DepositTransaction.fromSerialized(t) : createTxFromBlockBodyData(t as never, { common: opts.common }),
    );
    if (uncles.length > 0) throw new BlockDecodeError(`block ${number}: OP blocks have no ommers, found ${uncles.length}`);
    return withEnvelopes(new Block(b.header, txs as never, [], b.withdrawals, opts), txValues);
  }
  if (uncles.length === 0) return withEnvelopes(createBlockFromBytesArray(values as never, opts), (values[1] ?? []) as unknown[]);
  const withoutUncles = [values[0], values[1], [], ...values.slice(3)];
  const b = createBlockFromBytesArray(withoutUncles as never, opts);
  const uncleHeaders = uncles.map((u) => {
    const un = BigInt("0x" + (toHex(u[8]) || "0"));
    const ut = BigInt("0x" + (toHex(u[11]) || "0"));
    return createBlockHeaderFromBytesArray(u, { common: chain.commonAt(un, ut), skipConsensusFormatValidation: true });
  });
  return withEnvelopes(new Block(b.header, b.transactions, uncleHeaders, b.withdrawals, opts), (values[1] ?? []) as unknown[]);
}

/**
 * Remembers each typed transaction's envelope: in a block body a typed transaction is its
 * envelope bytes, so its hash, the transactions root and the stored body need no re-encoding.
 */
function withEnvelopes(block: Block, txValues: readonly unknown[]): Block {
  const txs = block.transactions;
  for (let i = 0; i < txs.length; i++) {
    const v = txValues[i];
    if (v instanceof Uint8Array) rememberEnvelope(txs[i]!, v);
  }
  return block;
}

/** RLP of a block body: [txs, uncles, withdrawals?]. */
export function encodeBody(block: Block): Uint8Array {
  // As block.raw() without the header, typed transactions as their (cached) envelopes.
  const txs = block.transactions.map((tx) => (tx.type === 0 ? tx.raw() : envelopeOf(tx)));
  const parts: unknown[] = [txs, block.uncleHeaders.map((h) => h.raw())];
  if (block.withdrawals !== undefined) parts.push(block.withdrawals.map((w) => w.raw()));
  return RLP.encode(parts as never);
}
