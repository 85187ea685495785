/**
 * Derived attributes applied to the chain through the operations the Engine API performs
 * (`engine_forkchoiceUpdated` with attributes → build; `engine_getPayload`/`newPayload` → the
 * built block stored; `engine_forkchoiceUpdated` → head and safe moved): specs derivation.md
 * "Engine Queue" with Holocene's rules.
 *
 * - The canonical block after the safe head matches the attributes (`consolidate.ts`): it becomes
 *   safe; nothing is executed.
 * - Otherwise a block is built from the attributes on the safe head and made head and safe: the
 *   unsafe blocks after the safe head, if any, are reorganized away.
 * - A payload that cannot be built (a batch transaction that does not apply) is replaced by a
 *   deposits-only block of the same attributes (holocene/derivation.md "Engine Queue").
 * - Attributes at or after an upgrade basalt does not implement (`Chain.upgrades`) are refused
 *   before anything else with `UnknownUpgradeError`: derivation stops there (`service.ts`).
 * Runs on the thread that owns the chain (the main thread).
 */
import type { Logger } from "pino";
import { equalsBytes } from "@ethereumjs/util";
import type { Chain } from "../blockchain/chain.js";
import { buildOpOnParent } from "../blockchain/opBuilder.js";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.js";
import { UnknownUpgradeError } from "../chain/errors.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";
import { to0x } from "../util/bytes.js";
import { attributesMatchBlock } from "./consolidate.js";
import type { AppliedResult } from "./protocol.js";

/** What applying one block's attributes did. */
interface Applied {
  result: AppliedResult;
  /** The new safe head (absent for `reset`). */
  safeHash?: Uint8Array;
  /** For `replaced`: how many unsafe blocks were reorganized away. */
  reorged?: number;
  /** For `replaced` over an unsafe block: the first field that differed. */
  mismatch?: string;
}

/** The safe head: the `safe` pointer, else the genesis block. */
export function safeHeadOf(chain: Chain): { hash: Uint8Array; number: bigint } {
  const b = chain.pointer("safe") ?? chain.getBlockByNumber(0n)!;
  return { hash: b.hash(), number: b.header.number };
}

/**
 * Applies derived attributes on `parentHash`, which must be the safe head (see the module comment).
 * @throws UnknownUpgradeError when the attributes' timestamp is at or after an upgrade basalt does not implement.
 */
export async function applyDerivedAttributes(chain: Chain, attrs: OpPayloadAttributes, parentHash: Uint8Array, log?: Logger): Promise<Applied> {
  const op = chain.op!;
  const safe = safeHeadOf(chain);
  if (!equalsBytes(safe.hash, parentHash)) return { result: "reset" };
  const parent = chain.getBlockByHash(parentHash);
  if (parent === undefined) return { result: "reset" };
  const number = parent.header.number + 1n;
  chain.upgrades.check(attrs.timestamp, { number, action: "build" });
  const unsafe = chain.getBlockByNumber(number);
  let mismatch: string | undefined;
  if (unsafe !== undefined) {
    const m = attributesMatchBlock(attrs, parentHash, unsafe, op);
    if (m.match) {
      await chain.setHead(chain.headHash, unsafe.hash());
      return { result: "consolidated", safeHash: unsafe.hash() };
    }
    mismatch = m.field;
    log?.warn({ number: number.toString(), field: m.field, unsafe: to0x(unsafe.hash()) }, "derived attributes differ from the unsafe block: replacing the unsafe chain from here");
    log?.debug({ number: number.toString(), field: m.field, derived: m.derived, block: m.block }, "derived vs unsafe block");
  }
  let result: AppliedResult = unsafe === undefined ? "built" : "replaced";
  let built;
  try {
    built = await buildOpOnParent(chain, parent, undefined, attrs);
  } catch (e) {
    if (e instanceof UnknownUpgradeError) throw e;
    log?.warn({ number: number.toString(), err: e }, "derived payload is invalid: building the deposits-only block instead (Holocene)");
    const deposits = attrs.transactions.filter((t) => t[0] === DEPOSIT_TX_TYPE);
    built = await buildOpOnParent(chain, parent, undefined, { ...attrs, transactions: deposits });
    result = "depositsOnly";
  }
  const hash = built.block.hash();
  const before = chain.head.header.number;
  chain.rememberBuilt(built);
  await chain.setHead(hash, hash);
  const reorged = before >= number ? Number(before - number + 1n) : 0;
  const out: Applied = { result, safeHash: hash, reorged };
  if (mismatch !== undefined) out.mismatch = mismatch;
  return out;
}
