/**
 * Deposits for Engine API tests: the L1-attributes deposit (Jovian calldata) of an L1 origin
 * and a user deposit, as an OP consensus client puts them in payload attributes.
 */
import { Address, bytesToHex, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { DepositTransaction } from "../../src/chain/op/depositTx.js";
import { batcherHashFromAddress, encodeL1InfoCalldata, L1_INFO_DEPOSIT_GAS } from "../../src/chain/op/l1InfoTx.js";
import { L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR_ADDRESS } from "../../src/chain/op/predeploys.js";
import { l1InfoSourceHash, userDepositSourceHash } from "../../src/chain/op/sourceHash.js";

/** Hash of the test L1 origin (block 1). */
export const TEST_L1_HASH = keccak_256(new TextEncoder().encode("test L1 block 1"));

/** The L1-attributes deposit (hex) of sequence number `seq` of L1 block 1 (`l1Hash`); `sourceHash` overrides the correct one. */
export function l1InfoTx(seq: bigint, l1Hash = TEST_L1_HASH, sourceHash?: Uint8Array): string {
  const data = encodeL1InfoCalldata(
    {
      number: 1n,
      timestamp: 1_700_000_000n,
      baseFee: 7n * 10n ** 9n,
      hash: l1Hash,
      sequenceNumber: seq,
      batcherHash: batcherHashFromAddress(new Uint8Array(20).fill(0xba)),
      baseFeeScalar: 2269n,
      blobBaseFeeScalar: 1_055_762n,
      blobBaseFee: 3n,
      operatorFeeScalar: 0n,
      operatorFeeConstant: 0n,
      daFootprintGasScalar: 0n,
    },
    "jovian",
  );
  const tx = new DepositTransaction({
    sourceHash: sourceHash ?? l1InfoSourceHash(l1Hash, seq),
    from: new Address(hexToBytes(L1_INFO_DEPOSITOR_ADDRESS)),
    to: new Address(hexToBytes(L1_BLOCK_ADDRESS)),
    mint: 0n,
    value: 0n,
    gasLimit: L1_INFO_DEPOSIT_GAS,
    isSystemTx: false,
    data,
  });
  return bytesToHex(tx.serialize());
}

/** A user deposit (hex) minting and sending `mint` to `to`, log 0 of the test L1 block. */
export function userDeposit(to: Uint8Array, mint: bigint): string {
  const tx = new DepositTransaction({
    sourceHash: userDepositSourceHash(TEST_L1_HASH, 0),
    from: new Address(new Uint8Array(20).fill(0x11)),
    to: new Address(to),
    mint,
    value: mint,
    gasLimit: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(0),
  });
  return bytesToHex(tx.serialize());
}
