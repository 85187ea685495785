/**
 * testing_buildBlockV1 (execution-apis `testing` namespace, geth eth/catalyst/api_testing.go):
 * builds a block on the head from payload attributes — with exactly the given transactions, an
 * empty list for an empty block, or `null` for the mempool's — with the given extra data, and
 * answers its execution payload envelope (engine_getPayloadV4's form). Nothing is committed: the
 * chain is unchanged (as when the Engine API builds, mempool transactions that can never apply are
 * dropped from the pool). Plain Ethereum chains only; not served on public endpoints.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { buildOnHead } from "../../blockchain/blockBuilder.js";
import { GAS_LIMIT_BOUND_DIVISOR, MIN_GAS_LIMIT, TESTING_BUILD_GAS_CEIL } from "../constants.js";
import { decodeRawTransaction } from "../../txpool/txpool.js";
import { poolSource } from "../../txpool/poolSource.js";
import { bytesEqual } from "../../util/bytes.js";
import type { RpcBackend } from "../backend.js";
import { InvalidParamsError, ServerError } from "../errors.js";
import { parseAddress, parseData, parseHash, parseQuantity } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { blobsBundleOf, payloadEnvelope } from "./payloadEnvelope.js";

/**
 * geth `CalcGasLimit`: the parent's gas limit moved toward `desired` by at most parent/1024 - 1.
 */
export function calcGasLimit(parentGasLimit: bigint, desired: bigint): bigint {
  const delta = parentGasLimit / GAS_LIMIT_BOUND_DIVISOR - 1n;
  const target = desired < MIN_GAS_LIMIT ? MIN_GAS_LIMIT : desired;
  if (parentGasLimit < target) return parentGasLimit + delta > target ? target : parentGasLimit + delta;
  if (parentGasLimit > target) return parentGasLimit - delta < target ? target : parentGasLimit - delta;
  return parentGasLimit;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Handlers of the `testing` namespace. */
export function testingMethods(b: RpcBackend): MethodTable {
  const { chain } = b;
  return {
    /** testing_buildBlockV1(parentHash, payloadAttributes, transactions | null, extraData | null) */
    testing_buildBlockV1: async (params) => {
      maxParams(params, 4);
      const parentHash = parseHash(required(params, 0), 0);
      const attrs = required(params, 1);
      if (!isRecord(attrs)) throw new InvalidParamsError("invalid argument 1: payload attributes object expected");
      const rawTxs = params[2];
      if (rawTxs !== undefined && rawTxs !== null && !Array.isArray(rawTxs)) throw new InvalidParamsError("invalid argument 2: array of raw transactions expected");
      const extraData = params[3] === undefined || params[3] === null ? new Uint8Array() : parseData(params[3], 3);
      if (chain.op !== undefined) throw new ServerError("testing_buildBlockV1 builds plain Ethereum blocks only: this is an OP Stack chain");
      // geth builds on the current head only.
      if (!bytesEqual(chain.head.hash(), parentHash)) throw new ServerError("parentHash is not current head");
      const timestamp = parseQuantity(attrs.timestamp, "1.timestamp", { bits: 64 });
      const withdrawals = Array.isArray(attrs.withdrawals)
        ? attrs.withdrawals.map((w: unknown, i) => {
            if (!isRecord(w)) throw new InvalidParamsError(`invalid argument 1: withdrawals[${i}]: object expected`);
            return {
              index: parseQuantity(w.index, `1.withdrawals[${i}].index`, { bits: 64 }),
              validatorIndex: parseQuantity(w.validatorIndex, `1.withdrawals[${i}].validatorIndex`, { bits: 64 }),
              address: parseAddress(w.address, `1.withdrawals[${i}].address`),
              amount: parseQuantity(w.amount, `1.withdrawals[${i}].amount`, { bits: 64 }),
            };
          })
        : undefined;
      let transactions: TypedTransaction[] | undefined;
      if (Array.isArray(rawTxs)) transactions = rawTxs.map((raw, i) => decodeRawTransaction(chain, parseData(raw, `2[${i}]`)).tx);
      const ex = await buildOnHead(chain, poolSource(b.pool), {
        timestamp,
        feeRecipient: parseAddress(attrs.suggestedFeeRecipient, "1.suggestedFeeRecipient"),
        prevRandao: parseHash(attrs.prevRandao, "1.prevRandao"),
        withdrawals,
        parentBeaconBlockRoot: attrs.parentBeaconBlockRoot == null ? undefined : parseHash(attrs.parentBeaconBlockRoot, "1.parentBeaconBlockRoot"),
        gasLimit: calcGasLimit(chain.head.header.gasLimit, TESTING_BUILD_GAS_CEIL),
        extraData,
        noTxPool: transactions !== undefined && transactions.length === 0,
        transactions: transactions !== undefined && transactions.length > 0 ? transactions : undefined,
      });
      return payloadEnvelope(ex, 4, blobsBundleOf(ex.block, b.pool), false);
    },
  };
}
