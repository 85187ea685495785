/**
 * Block parameters: tags (`latest`, `pending`, `safe`, `finalized`, `earliest`), hex numbers
 * and EIP-1898 objects (`{blockHash, requireCanonical}` / `{blockNumber}`), resolved to a
 * block of the chain — and, where flashblock-aware methods admit it, a pending block as of one
 * of its flashblocks: `{ "blockNumber": "0x…", "flashblockIndex": "0x…" }` (base/base issue #508).
 */
import type { Block } from "@ethereumjs/block";
import type { Chain } from "../blockchain/chain.js";
import { InvalidParamsError, ServerError } from "./errors.js";
import { parseHash, parseQuantity } from "./hexParams.js";
import { FLASHBLOCK_INDEX_MAX } from "./constants.js";

/** A parsed block parameter. */
export type BlockParam =
  | { kind: "tag"; tag: "latest" | "pending" | "safe" | "finalized" | "earliest" }
  | { kind: "number"; number: bigint }
  | { kind: "hash"; hash: Uint8Array; requireCanonical: boolean }
  /** Block `number` as of its flashblock `index`: the pending block's state and transactions then, or canonical block `number`. */
  | { kind: "flashblock"; number: number; index: number };

const TAGS = new Set(["latest", "pending", "safe", "finalized", "earliest"]);

/**
 * Parses parameter `index`. `allowHash` admits EIP-1898 objects (state methods, eth_call);
 * `allowFlashblock` admits `{blockNumber, flashblockIndex}` (flashblock-aware methods).
 * A missing parameter defaults to `latest` when `optional`.
 */
export function parseBlockParam(value: unknown, index: number, opts: { allowHash?: boolean; allowFlashblock?: boolean; optional?: boolean } = {}): BlockParam {
  if (value === undefined || value === null) {
    if (opts.optional === true) return { kind: "tag", tag: "latest" };
    throw new InvalidParamsError(`missing value for required argument ${index}`);
  }
  if (typeof value === "string") {
    if (TAGS.has(value)) return { kind: "tag", tag: value as "latest" };
    if (opts.allowHash === true && value.length === 66) return { kind: "hash", hash: parseHash(value, index), requireCanonical: false };
    return { kind: "number", number: parseQuantity(value, index) };
  }
  if (typeof value === "object" && !Array.isArray(value) && "flashblockIndex" in value) {
    if (opts.allowFlashblock !== true) throw new InvalidParamsError(`invalid argument ${index}: this method does not take a flashblockIndex`);
    return parseFlashblockParam(value as Record<string, unknown>, index);
  }
  if (opts.allowHash === true && typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (o.blockHash !== undefined && o.blockNumber !== undefined) {
      throw new InvalidParamsError(`invalid argument ${index}: cannot specify both BlockHash and BlockNumber, choose one or the other`);
    }
    if (o.blockHash !== undefined) {
      return { kind: "hash", hash: parseHash(o.blockHash, index), requireCanonical: o.requireCanonical === true };
    }
    if (o.blockNumber !== undefined) return parseBlockParam(o.blockNumber, index);
    throw new InvalidParamsError(`invalid argument ${index}: block number or hash expected`);
  }
  throw new InvalidParamsError(`invalid argument ${index}: block number or tag expected, got ${Array.isArray(value) ? "array" : typeof value}`);
}

/**
 * `{blockNumber, flashblockIndex}`: both hex quantities, the block a number (not a tag), the
 * index at most {@link FLASHBLOCK_INDEX_MAX}, no other key.
 */
function parseFlashblockParam(o: Record<string, unknown>, index: number): BlockParam {
  for (const k of Object.keys(o)) {
    if (k !== "blockNumber" && k !== "flashblockIndex") throw new InvalidParamsError(`invalid argument ${index}: unexpected key ${JSON.stringify(k)} beside flashblockIndex (expected only blockNumber and flashblockIndex)`);
  }
  if (o.blockNumber === undefined) throw new InvalidParamsError(`invalid argument ${index}: flashblockIndex needs a blockNumber`);
  const number = parseQuantity(o.blockNumber, index);
  if (number > BigInt(Number.MAX_SAFE_INTEGER)) throw new InvalidParamsError(`invalid argument ${index}: blockNumber ${number} is out of range`);
  const fb = parseQuantity(o.flashblockIndex, index);
  if (fb > BigInt(FLASHBLOCK_INDEX_MAX)) throw new InvalidParamsError(`invalid argument ${index}: flashblockIndex ${fb} is out of range (at most ${FLASHBLOCK_INDEX_MAX})`);
  return { kind: "flashblock", number: Number(number), index: Number(fb) };
}

/**
 * True for the `pending` tag (also as EIP-1898 `{blockNumber: "pending"}`). Methods that answer
 * `pending` from the pre-confirmed state check this first; {@link resolveBlock} maps it to the
 * latest block, the answer whenever there is no pending snapshot.
 */
export function isPendingParam(p: BlockParam): boolean {
  return p.kind === "tag" && p.tag === "pending";
}

/**
 * Resolves a block parameter; undefined when the block does not exist. `pending` resolves to the
 * latest sealed block: callers with pre-confirmed data ({@link isPendingParam}) answer before this.
 */
export function resolveBlock(chain: Chain, p: BlockParam): Block | undefined {
  switch (p.kind) {
    case "number":
      return chain.getBlockByNumber(p.number);
    case "flashblock":
      // Callers with pre-confirmed data resolve positions above the head first: here it is canonical block `number`.
      return chain.getBlockByNumber(BigInt(p.number));
    case "hash": {
      const b = chain.getBlockByHash(p.hash);
      if (b !== undefined && p.requireCanonical && !chain.isCanonical(p.hash)) {
        throw new ServerError(`hash ${"0x" + Buffer.from(p.hash).toString("hex")} is not currently canonical`);
      }
      return b;
    }
    case "tag":
      switch (p.tag) {
        case "latest":
        case "pending":
          // Without pre-confirmation data, `pending` answers from the latest sealed block.
          return chain.head;
        case "earliest":
          return chain.getBlockByNumber(0n);
        case "safe":
        case "finalized": {
          const b = chain.pointer(p.tag);
          if (b === undefined) throw new ServerError(`${p.tag} block not found`);
          return b;
        }
      }
  }
}

/** Resolves a block for state access: a missing block is an error (geth `header not found`). */
export function resolveStateBlock(chain: Chain, p: BlockParam): Block {
  const b = resolveBlock(chain, p);
  if (b === undefined) throw new ServerError("header not found");
  return b;
}
