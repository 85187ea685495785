/**
 * What L1 contributes to payload attributes: the L1-info deposit rebuilt byte for byte for Base
 * mainnet block 43,127,820 (the real derivation output, shared/fixtures/op/derivation), its 181
 * batched transactions, the user deposits of an L1 block (kona attributes/stateful.rs
 * `derive_deposits` tests, op-node deposit_log_test.go `TestDeriveUserDeposits` scenarios) and
 * the SystemConfig updates of an L1 block.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { BASE_SYSTEM_CONFIG, CONTEXT, DIR, INPUTS_43127820, payloadTransactions } from "../../helpers/base43127820.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { ConfigUpdateErrorCode, encodeConfigUpdateLog } from "../../../src/chain/op/configUpdate.js";
import { encodeDepositLog, TRANSACTION_DEPOSITED_TOPIC_BYTES, type DepositLogFields } from "../../../src/chain/op/depositLog.js";
import { DepositTransaction } from "../../../src/chain/op/depositTx.js";
import { extraDataFromEip1559Params } from "../../../src/chain/op/eip1559.js";
import { OpFork } from "../../../src/chain/op/forks.js";
import { decodeL1InfoCalldata, L1_INFO_DEPOSIT_GAS, PRE_REGOLITH_L1_INFO_DEPOSIT_GAS } from "../../../src/chain/op/l1InfoTx.js";
import { OP_NETWORKS, opGenesisConfig } from "../../../src/chain/op/networks.js";
import { userDepositSourceHash } from "../../../src/chain/op/sourceHash.js";
import { applyConfigUpdates, systemConfigAttributes, systemConfigFromL2Block, type SystemConfig } from "../../../src/chain/op/systemConfig.js";
import { configUpdatesOf, l1InfoDeposit, l1InfoFor, l1OriginDeposits, type L1Receipt } from "../../../src/derivation/attributesL1.js";
import { L1InputError, L1InputErrorCode } from "../../../src/derivation/l1InputErrors.js";
import { decodeOpTransaction } from "../../../src/execution/op/opPayload.js";
import type { Log } from "../../../src/storage/types.js";
import { fromHex, to0x } from "../../../src/util/bytes.js";

const BASE = OP_NETWORKS["base-mainnet"];
const info = CONTEXT.expected_l1_block_info_jovian;
const extras = CONTEXT.expected_payload_attributes_extras;

describe("Base mainnet block 43,127,820", () => {
  const txs = payloadTransactions();

  it("the dump holds the L1-info deposit and 181 batched transactions", () => {
    // 182 transactions: the fixture README and context say 184 / 183 because the README's line
    // pattern also matches the two other bare hex lines of the dump (parent_beacon_block_root and
    // eip_1559_params). The dump is byte-identical to base/base's testdata (226,590 chars), which
    // base/base writes from the on-chain block's transaction list.
    expect(txs.length).toBe(182);
    const text = readFileSync(path.join(DIR, "base-mainnet-43127820-payload-attributes.txt"), "utf8");
    const bareHexLines = [...text.matchAll(/^\s+(0x[0-9a-f]+),?$/gm)].map((m) => m[1]!);
    expect(bareHexLines.length).toBe(extras.transaction_count);
    expect(bareHexLines.filter((h) => !txs.some((t) => to0x(t) === h))).toEqual([
      "0xabe0b45682c4171d9e7f36225c7b7fb5a1c719880933b72b939be445cdbd3e6b",
      extras.eip_1559_params,
    ]);
    expect(txs[0]![0]).toBe(0x7e);
    expect(txs.slice(1).some((t) => t[0] === 0x7e)).toBe(false);
  });

  it("rebuilds the Jovian L1-info deposit byte for byte (blob base fee from BPO2, DA footprint scalar 139)", () => {
    expect(INPUTS_43127820.sequenceNumber).toBe(BigInt(CONTEXT.l2_parent.l1info_sequence_number) + 1n);
    const { variant, values } = l1InfoFor(INPUTS_43127820, BASE);
    expect(variant).toBe("jovian");
    expect(values.blobBaseFee).toBe(BigInt(info.blob_base_fee));
    expect(values.blobBaseFee).toBe(2_135_385n);
    const tx = l1InfoDeposit(INPUTS_43127820, BASE);
    expect(to0x(tx.serialize())).toBe(to0x(txs[0]!));
    expect(tx.gasLimit).toBe(L1_INFO_DEPOSIT_GAS);
    expect(tx.isSystemTx).toBe(false);
  });

  it("with the default DA footprint scalar 400 (the proof-pipeline bug of the fixture) the deposit differs", () => {
    const tx = l1InfoDeposit({ ...INPUTS_43127820, systemConfig: { ...BASE_SYSTEM_CONFIG, daFootprintGasScalar: undefined } }, BASE);
    expect(to0x(tx.serialize())).not.toBe(to0x(txs[0]!));
    expect(decodeL1InfoCalldata(tx.data).values.daFootprintGasScalar).toBe(400n);
  });

  it("decodes all 181 batched transactions as signed EIP-2718 transactions of chain 8453 with recoverable senders", () => {
    const common = commonFromGenesis({ config: opGenesisConfig("base-mainnet"), gasLimit: "0x0", difficulty: "0x0", nonce: "0x0", extraData: "0x", timestamp: "0x0", alloc: {} });
    common.setHardforkBy({ blockNumber: BigInt(CONTEXT.l2_target_block), timestamp: BigInt(CONTEXT.l2_target_timestamp) });
    const user = txs.slice(1);
    expect(user.length).toBe(181);
    const senders = new Set<string>();
    const types = new Map<number, number>();
    for (const [i, raw] of user.entries()) {
      const tx = decodeOpTransaction(raw, common, i + 1);
      expect(tx).not.toBeInstanceOf(DepositTransaction);
      // Typed transactions name chain 8453; legacy ones are EIP-155 protected for it (v = 8453·2 + 35/36) or unprotected.
      if (tx.type === 0) expect([27n, 28n, 16_941n, 16_942n]).toContain((tx as { v?: bigint }).v);
      else expect((tx as { chainId?: bigint }).chainId).toBe(8453n);
      expect(tx.isSigned()).toBe(true);
      senders.add(tx.getSenderAddress().toString());
      types.set(tx.type, (types.get(tx.type) ?? 0) + 1);
    }
    expect(Object.fromEntries(types)).toEqual({ 0: 11, 2: 170 });
    expect(senders.size).toBeGreaterThan(1);
  });

  it("the SystemConfig gives the block's gas limit, eip1559Params and minBaseFee", () => {
    const attrs = systemConfigAttributes(BASE_SYSTEM_CONFIG, BASE, INPUTS_43127820.parentTimestamp!, INPUTS_43127820.timestamp);
    expect(attrs.gasLimit).toBe(375_000_000n);
    expect(to0x(attrs.eip1559Params!)).toBe(extras.eip_1559_params);
    expect(attrs.minBaseFee).toBe(5_000_000n);
  });

  it("rebuilding the SystemConfig from the block and the deposit from that config round trips", () => {
    const attrs = systemConfigAttributes(BASE_SYSTEM_CONFIG, BASE, INPUTS_43127820.parentTimestamp!, INPUTS_43127820.timestamp);
    const defaults = { denominator: BASE.eip1559.eip1559DenominatorCanyon, elasticity: BASE.eip1559.eip1559Elasticity };
    const block = {
      header: {
        number: BigInt(CONTEXT.l2_target_block),
        timestamp: INPUTS_43127820.timestamp,
        gasLimit: attrs.gasLimit,
        extraData: extraDataFromEip1559Params(attrs.eip1559Params!, defaults, OpFork.jovian, attrs.minBaseFee),
        hash: () => new Uint8Array(32),
      },
      transactions: [DepositTransaction.fromSerialized(txs[0]!)],
    };
    const rebuilt = systemConfigFromL2Block(block, BASE);
    expect(rebuilt).toEqual(BASE_SYSTEM_CONFIG);
    expect(to0x(l1InfoDeposit({ ...INPUTS_43127820, systemConfig: rebuilt }, BASE).serialize())).toBe(to0x(txs[0]!));
  });
});

describe("l1InfoFor: layout by fork, activation blocks, Regolith", () => {
  const sc: SystemConfig = { batcherAddress: fromHex(info.batcher_address), overhead: 0xbcn, scalar: 0xa6fe0n, gasLimit: 30_000_000n };
  const origin = { number: 19_000_000n, timestamp: 1_709_000_000n, hash: new Uint8Array(32).fill(7), baseFeePerGas: 30n, excessBlobGas: 0n };

  it("Bedrock layout before Ecotone: raw overhead and scalar", () => {
    const t = BASE.forkTimes.ecotone! - 2n;
    const { variant, values } = l1InfoFor({ l1Origin: origin, sequenceNumber: 2n, systemConfig: sc, timestamp: t, parentTimestamp: t - 2n }, BASE);
    expect(variant).toBe("bedrock");
    expect([values.l1FeeOverhead, values.l1FeeScalar, values.blobBaseFee]).toEqual([0xbcn, 0xa6fe0n, undefined]);
  });

  it("the Ecotone activation block keeps the Bedrock layout; the next block switches", () => {
    const t = BASE.forkTimes.ecotone!;
    const at = (timestamp: bigint): string => l1InfoFor({ l1Origin: origin, sequenceNumber: 0n, systemConfig: sc, timestamp, parentTimestamp: timestamp - 2n }, BASE).variant;
    expect(at(t + 1n)).toBe("bedrock");
    expect(at(t + 3n)).toBe("ecotone");
  });

  it("the Jovian activation block keeps the Isthmus layout (no DA scalar)", () => {
    const t = BASE.forkTimes.jovian!;
    const { variant, values } = l1InfoFor({ ...INPUTS_43127820, timestamp: t, parentTimestamp: t - 2n }, BASE);
    expect(variant).toBe("isthmus");
    expect(values.daFootprintGasScalar).toBeUndefined();
    expect(values.operatorFeeScalar).toBe(0n);
  });

  it("a version-0 scalar gives blob base fee scalar 0 (specs system-config.md)", () => {
    const { values } = l1InfoFor({ ...INPUTS_43127820, systemConfig: { ...BASE_SYSTEM_CONFIG, scalar: 0xa6fe0n } }, BASE);
    expect([values.baseFeeScalar, values.blobBaseFeeScalar]).toEqual([0xa6fe0n, 0n]);
  });

  it("pre-Regolith deposits are system transactions with 150M gas", () => {
    const cfg = { forkTimes: { regolith: 100n }, l1ChainId: 1n };
    const tx = l1InfoDeposit({ l1Origin: origin, sequenceNumber: 0n, systemConfig: sc, timestamp: 50n, parentTimestamp: 48n }, cfg);
    expect([tx.gasLimit, tx.isSystemTx]).toEqual([PRE_REGOLITH_L1_INFO_DEPOSIT_GAS, true]);
  });

  it("blob base fee: 1 without blob fields on any L1; a typed error with blob fields on an unknown L1", () => {
    const cfg = { forkTimes: { regolith: 0n, ecotone: 0n }, l1ChainId: 4242n };
    const noBlobs = { ...origin, excessBlobGas: undefined };
    expect(l1InfoFor({ l1Origin: noBlobs, sequenceNumber: 1n, systemConfig: sc, timestamp: 10n, parentTimestamp: 8n }, cfg).values.blobBaseFee).toBe(1n);
    let error: unknown;
    try {
      l1InfoFor({ l1Origin: origin, sequenceNumber: 1n, systemConfig: sc, timestamp: 10n, parentTimestamp: 8n }, cfg);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(L1InputError);
    expect((error as L1InputError).type).toEqual({ code: L1InputErrorCode.UNKNOWN_L1_BLOB_SCHEDULE, l1ChainId: "4242" });
  });
});

const PORTAL = fromHex("0x1111111111111111111111111111111111111111");

/** kona stateful.rs `generate_valid_log`: mint 10, value 100, gas 1000, creation, from 0x22…22, to 0x33…33. */
function validDepositLog(): Log {
  const fields: DepositLogFields = {
    from: new Address(fromHex("0x2222222222222222222222222222222222222222")),
    to: undefined,
    mint: 10n,
    value: 100n,
    gasLimit: 1000n,
    data: new Uint8Array(128 - 73),
  };
  const log = encodeDepositLog(fields, PORTAL);
  log.topics[2] = fromHex("0x0000000000000000000000003333333333333333333333333333333333333333");
  return log;
}

/** kona stateful.rs `generate_valid_receipt`: a valid deposit, one with a zero `from` (still valid), one with a zero topic 0 (not a deposit). */
function validReceipt(): L1Receipt {
  const badDest = validDepositLog();
  badDest.topics[1] = new Uint8Array(32);
  const invalidTopic = validDepositLog();
  invalidTopic.topics[0] = new Uint8Array(32);
  return { status: 1, logs: [validDepositLog(), badDest, invalidTopic] };
}

describe("l1OriginDeposits: kona stateful.rs derive_deposits tests", () => {
  const hash = new Uint8Array(32);

  it("test_derive_deposits_empty", () => {
    expect(l1OriginDeposits([], PORTAL, hash)).toEqual([]);
  });

  it("test_derive_deposits_succeeds: 2 deposits per receipt, block-level log indexes", () => {
    const deposits = l1OriginDeposits([validReceipt(), validReceipt()], PORTAL, hash);
    expect(deposits.length).toBe(4);
    // Log indexes 0, 1 (receipt 0) and 3, 4 (receipt 1): the non-deposit log 2 still counts.
    expect(deposits.map((d) => to0x(d.sourceHash))).toEqual([0, 1, 3, 4].map((i) => to0x(userDepositSourceHash(hash, i))));
    expect(deposits[1]!.from.toString()).toBe("0x0000000000000000000000000000000000000000");
  });

  it("test_derive_deposits_non_deposit_events_filtered_out", () => {
    const invalid = validReceipt();
    invalid.logs[0] = { ...invalid.logs[0]!, topics: [], data: new Uint8Array(0) };
    expect(l1OriginDeposits([validReceipt(), validReceipt(), invalid], PORTAL, hash).length).toBe(5);
  });

  it("test_derive_deposits_non_deposit_contract_addr", () => {
    const invalid = validReceipt();
    invalid.logs[0] = { ...invalid.logs[0]!, address: new Uint8Array(20) };
    expect(l1OriginDeposits([validReceipt(), validReceipt(), invalid], PORTAL, hash).length).toBe(5);
  });

  it("test_derive_deposits_decoding_errors: a malformed deposit log is a critical error", () => {
    const invalid = validReceipt();
    invalid.logs[0] = { ...invalid.logs[0]!, topics: [TRANSACTION_DEPOSITED_TOPIC_BYTES], data: new Uint8Array(0) };
    let error: unknown;
    try {
      l1OriginDeposits([validReceipt(), validReceipt(), invalid], PORTAL, fromHex("0x" + "ab".repeat(32)));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(L1InputError);
    expect((error as L1InputError).type).toEqual({
      code: L1InputErrorCode.BAD_DEPOSIT_LOG,
      l1BlockHash: "0x" + "ab".repeat(32),
      logIndex: 6,
      reason: "DEPOSIT_LOG_TOPIC_COUNT",
      critical: true,
    });
  });
});

describe("l1OriginDeposits: op-node TestDeriveUserDeposits scenarios", () => {
  const hash = fromHex("0x" + "5c".repeat(32));
  /** [receipt succeeded, which of its logs are deposits] as in op-node's table. */
  const cases: [string, [boolean, boolean[]][]][] = [
    ["no deposits", []],
    ["other log", [[true, [false]]]],
    ["success deposit", [[true, [true]]]],
    ["failed deposit", [[false, [true]]]],
    ["mixed deposits", [[true, [true]], [false, [true]]]],
    ["success multiple logs", [[true, [true, true]]]],
    ["failed multiple logs", [[false, [true, true]]]],
    ["not all deposit logs", [[true, [true, false, true]]]],
    ["random", [[true, [false, false, true]], [false, []], [true, [true]]]],
  ];
  it.each(cases)("%s", (_name, table) => {
    const receipts: L1Receipt[] = [];
    const expected: string[] = [];
    let logIndex = 0;
    for (const [ok, kinds] of table) {
      const logs: Log[] = [];
      for (const isDeposit of kinds) {
        const fields: DepositLogFields = {
          from: new Address(fromHex("0x" + (logIndex + 1).toString(16).padStart(40, "0"))),
          to: new Address(fromHex("0x" + "42".repeat(20))),
          mint: BigInt(logIndex) * 1000n,
          value: 7n,
          gasLimit: 100_000n,
          data: Uint8Array.of(logIndex),
        };
        if (isDeposit) {
          logs.push(encodeDepositLog(fields, PORTAL));
          if (ok) expected.push(to0x(new DepositTransaction({ ...fields, sourceHash: userDepositSourceHash(hash, logIndex), isSystemTx: false }).serialize()));
        } else {
          logs.push({ address: fromHex("0x" + "99".repeat(20)), topics: [new Uint8Array(32).fill(1)], data: new Uint8Array(5) });
        }
        logIndex++;
      }
      receipts.push({ status: ok ? 1 : 0, logs });
    }
    expect(l1OriginDeposits(receipts, PORTAL, hash).map((d) => to0x(d.serialize()))).toEqual(expected);
  });
});

describe("configUpdatesOf", () => {
  const SC = fromHex(BASE.addresses.systemConfigProxy);
  const start: SystemConfig = { batcherAddress: new Uint8Array(20), overhead: 0xbcn, scalar: 0xa6fe0n, gasLimit: 30_000_000n };
  const feeLog = encodeConfigUpdateLog({ type: "feeScalars", overhead: 0xbcn, scalar: BASE_SYSTEM_CONFIG.scalar }, SC);

  it("takes ConfigUpdate logs of the SystemConfig in successful receipts, in order, with block-level indexes", () => {
    const receipts: L1Receipt[] = [
      { status: 1, logs: [encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 60_000_000n }, SC), validDepositLog()] },
      { status: 0, logs: [encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 1n }, SC)] },
      {
        status: 1,
        logs: [
          encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 2n }, fromHex("0x" + "77".repeat(20))),
          { ...encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 3n }, SC), data: new Uint8Array(64) },
          { ...encodeConfigUpdateLog({ type: "minBaseFee", minBaseFee: 0n }, SC), topics: [feeLog.topics[0]!, feeLog.topics[1]!, fromHex("0x" + "00".repeat(31) + "08")] },
          feeLog,
          encodeConfigUpdateLog({ type: "daFootprintGasScalar", daFootprintGasScalar: 139n }, SC),
        ],
      },
    ];
    const updates = configUpdatesOf(receipts, SC, BASE, BASE.forkTimes.ecotone!);
    expect(updates.map((u) => [u.logIndex, u.kind === "update" ? u.update.type : u.error.code])).toEqual([
      [0, "gasLimit"],
      [4, ConfigUpdateErrorCode.BAD_DATA_LENGTH],
      [5, ConfigUpdateErrorCode.UNKNOWN_TYPE],
      [6, "feeScalars"],
      [7, "daFootprintGasScalar"],
    ]);
    const cfg = applyConfigUpdates(start, updates);
    expect(cfg).toEqual({ ...start, gasLimit: 60_000_000n, overhead: 0n, scalar: BASE_SYSTEM_CONFIG.scalar, daFootprintGasScalar: 139n });
  });

  it("fee scalars follow Ecotone rules by the L1 timestamp", () => {
    const before = configUpdatesOf([{ status: 1, logs: [feeLog] }], SC, BASE, BASE.forkTimes.ecotone! - 1n);
    expect(applyConfigUpdates(start, before)).toEqual({ ...start, overhead: 0xbcn, scalar: BASE_SYSTEM_CONFIG.scalar });
    const after = configUpdatesOf([{ status: 1, logs: [feeLog] }], SC, BASE, BASE.forkTimes.ecotone!);
    expect(applyConfigUpdates(start, after)).toEqual({ ...start, overhead: 0n, scalar: BASE_SYSTEM_CONFIG.scalar });
  });
});
