import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM } from "@ethereumjs/evm";
import { RLP } from "@ethereumjs/rlp";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, bytesToBigInt, createAddressFromString, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { GAS_PRICE_ORACLE_JOVIAN_CREATION_CODE } from "../../../../src/chain/op/bytecode/gasPriceOracleJovian.js";
import { L1_BLOCK_JOVIAN_CREATION_CODE } from "../../../../src/chain/op/bytecode/l1BlockJovian.js";
import { OPERATOR_FEE_VAULT_ISTHMUS_CREATION_CODE } from "../../../../src/chain/op/bytecode/operatorFeeVaultIsthmus.js";
import { EIP2935_CREATION_CODE, EIP4788_CREATION_CODE } from "../../../../src/chain/op/bytecode/systemContracts.js";
import { GAS_PRICE_ORACLE_ALL_FORKS_FLAGS, opDevnetPredeployAlloc, type OpGenesisAllocAccount } from "../../../../src/chain/op/devnetAlloc.js";
import {
  BASE_FEE_VAULT_ADDRESS,
  BEACON_ROOTS_ADDRESS,
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE_HASH,
  GAS_PRICE_ORACLE_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  L1_BLOCK_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  L1_INFO_DEPOSITOR_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
  WETH9_ADDRESS,
} from "../../../../src/chain/op/predeploys.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const FIXTURES = path.join(REPO, "..", "shared", "fixtures", "op");

/**
 * keccak256 of the code expected at each address, with its source:
 * - L1Block / GasPriceOracle: specs jovian/derivation.md (ethereum-optimism/specs@fd72cf79) "MUST deploy … code hash";
 * - OperatorFeeVault: specs isthmus/derivation.md; EIP-2935: specs isthmus/derivation.md;
 * - EIP-4788: keccak of the EIP-4788 runtime (specs ecotone/derivation.md gives the init code);
 * - create2Deployer: op-geth consensus/misc/create2deployer.go `create2DeployerCodeHash`;
 * - L2ToL1MessagePasser, fee vaults, WETH9: keccak of the code in the Base mainnet genesis
 *   (superchain-registry@5b055be4; shared/fixtures/op/base-genesis), recorded here when this test was written.
 */
const CODE_HASHES: Record<string, string> = {
  [L1_BLOCK_ADDRESS]: "0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1",
  [GAS_PRICE_ORACLE_ADDRESS]: "0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614",
  [OPERATOR_FEE_VAULT_ADDRESS]: "0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971",
  [HISTORY_STORAGE_ADDRESS]: "0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d",
  [BEACON_ROOTS_ADDRESS]: "0xf57acd40259872606d76197ef052f3d35588dadf919ee1f0e3cb9b62d3f4b02c",
  [CREATE2_DEPLOYER_ADDRESS]: "0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2",
  [L2_TO_L1_MESSAGE_PASSER_ADDRESS]: "0x4f152c8d08fab270ed130102c534ec960b2c736a71b56466885eaf98f0ca0142",
  [SEQUENCER_FEE_VAULT_ADDRESS]: "0xc09dcbe48377f7b50868d133753064b2edaf19b00680a22f79272250e235f8ba",
  [BASE_FEE_VAULT_ADDRESS]: "0x5c759cb4eab54ae54534a793510037b2bb23e06d565f71ac52f2b976a297a5ea",
  [L1_FEE_VAULT_ADDRESS]: "0x5c759cb4eab54ae54534a793510037b2bb23e06d565f71ac52f2b976a297a5ea",
  [WETH9_ADDRESS]: "0x8a3a1f6a9f9dce633117adee5b458245835a8645a8c8726a26382a4622508b1c",
};

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });

function sel(signature: string): Uint8Array {
  return keccak_256(new TextEncoder().encode(signature)).slice(0, 4);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Big-endian fixed-width encoding. */
function be(n: bigint, bytes: number): Uint8Array {
  return fromHex(n.toString(16).padStart(bytes * 2, "0"));
}

/** ABI encoding of a single `bytes` argument. */
function abiBytes(data: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(data.length / 32) * 32);
  padded.set(data);
  return concat(be(32n, 32), be(BigInt(data.length), 32), padded);
}

/** A Prague EVM over a MerkleStateManager holding `alloc`. */
async function evmWith(alloc: Record<string, OpGenesisAllocAccount>): Promise<{ evm: EVM; sm: MerkleStateManager }> {
  const sm = new MerkleStateManager({ common });
  for (const [addr, a] of Object.entries(alloc)) {
    const address = createAddressFromString(addr);
    await sm.putAccount(address, new Account(BigInt(a.nonce ?? 0), BigInt(a.balance ?? 0)));
    if (a.code !== undefined) await sm.putCode(address, fromHex(a.code));
    for (const [k, v] of Object.entries(a.storage ?? {})) await sm.putStorage(address, fromHex(k), fromHex(v));
  }
  const evm = await createEVM({ common, stateManager: sm });
  return { evm, sm };
}

async function call(evm: EVM, to: string, data: Uint8Array, from = "0x00000000000000000000000000000000000000aa") {
  const caller = createAddressFromString(from.toLowerCase());
  const res = await evm.runCall({ caller, origin: caller, to: createAddressFromString(to.toLowerCase()), data, gasLimit: 1_000_000n });
  return res.execResult;
}

async function slot(sm: MerkleStateManager, address: string, n: bigint): Promise<bigint> {
  return bytesToBigInt(await sm.getStorage(createAddressFromString(address.toLowerCase()), setLengthLeft(be(n, 32), 32)));
}

/** Runtime code returned by running `creation` from `from` (nonce 0). */
async function deployedCode(creation: string, from: string): Promise<string> {
  const evm = await createEVM({ common });
  const caller = createAddressFromString(from);
  const res = await evm.runCall({ caller, origin: caller, data: fromHex(creation), gasLimit: 5_000_000n });
  expect(res.execResult.exceptionError).toBeUndefined();
  return to0x(res.execResult.returnValue);
}

interface BaseFeeVector {
  chain: string;
  rawTx: string;
  l1InfoDepositRaw: string;
  expected: {
    receipt: { l1GasUsed: number; l1Fee: number; l1BaseFeeScalar: number; l1BlobBaseFeeScalar: number; l1BlobBaseFee: number; l1GasPrice: number };
  };
}

describe("opDevnetPredeployAlloc: shape and code", () => {
  const alloc = opDevnetPredeployAlloc();

  it("holds every required account, in geth alloc format", () => {
    const required = [
      L1_BLOCK_ADDRESS,
      GAS_PRICE_ORACLE_ADDRESS,
      L2_TO_L1_MESSAGE_PASSER_ADDRESS,
      SEQUENCER_FEE_VAULT_ADDRESS,
      BASE_FEE_VAULT_ADDRESS,
      L1_FEE_VAULT_ADDRESS,
      OPERATOR_FEE_VAULT_ADDRESS,
      CREATE2_DEPLOYER_ADDRESS,
      BEACON_ROOTS_ADDRESS,
      HISTORY_STORAGE_ADDRESS,
      WETH9_ADDRESS,
    ].map((a) => a.toLowerCase());
    expect(Object.keys(alloc).sort()).toEqual([...required].sort());
    for (const [addr, a] of Object.entries(alloc)) {
      expect(addr).toMatch(/^0x[0-9a-f]{40}$/);
      expect(a.code).toMatch(/^0x([0-9a-f]{2})+$/);
      for (const [k, v] of Object.entries(a.storage ?? {})) {
        expect(k).toMatch(/^0x[0-9a-f]{64}$/);
        expect(v).toMatch(/^0x[0-9a-f]{64}$/);
      }
    }
  });

  it("code hashes are the recorded ones", () => {
    for (const [addr, hash] of Object.entries(CODE_HASHES)) {
      const code = alloc[addr.toLowerCase()]?.code;
      expect(code, addr).toBeDefined();
      expect(to0x(keccak_256(fromHex(code!))), addr).toBe(hash);
    }
    expect(CODE_HASHES[CREATE2_DEPLOYER_ADDRESS]).toBe(CREATE2_DEPLOYER_CODE_HASH);
  });

  it("embedded runtimes equal what the upgrade creation codes deploy", async () => {
    expect(await deployedCode(L1_BLOCK_JOVIAN_CREATION_CODE, "0x4210000000000000000000000000000000000006")).toBe(alloc[L1_BLOCK_ADDRESS]!.code);
    expect(await deployedCode(GAS_PRICE_ORACLE_JOVIAN_CREATION_CODE, "0x4210000000000000000000000000000000000007")).toBe(
      alloc[GAS_PRICE_ORACLE_ADDRESS.toLowerCase()]!.code,
    );
    expect(await deployedCode(OPERATOR_FEE_VAULT_ISTHMUS_CREATION_CODE, "0x4210000000000000000000000000000000000005")).toBe(
      alloc[OPERATOR_FEE_VAULT_ADDRESS.toLowerCase()]!.code,
    );
    const beacon = alloc[BEACON_ROOTS_ADDRESS.toLowerCase()]!.code;
    const history = alloc[HISTORY_STORAGE_ADDRESS.toLowerCase()]!.code;
    expect(await deployedCode(EIP4788_CREATION_CODE, "0x0b799c86a49deeb90402691f1041aa3af2d3c875")).toBe(beacon);
    expect(await deployedCode(EIP2935_CREATION_CODE, "0x3462413af4609098e1e27a490f554f260213d685")).toBe(history);
  });

  it("message passer, fee vaults and WETH9 are the Base mainnet genesis code (implementations behind the proxies)", () => {
    const genesis = JSON.parse(readFileSync(path.join(FIXTURES, "base-genesis", "base-mainnet-genesis.json"), "utf8")) as {
      alloc: Record<string, { code?: string; storage?: Record<string, string> }>;
    };
    const g = Object.fromEntries(Object.entries(genesis.alloc).map(([k, v]) => [k.toLowerCase().replace(/^0x/, ""), v]));
    const impl = (suffix: string) => g[`c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3${suffix}`]!.code!.toLowerCase();
    expect(alloc[L2_TO_L1_MESSAGE_PASSER_ADDRESS.toLowerCase()]!.code).toBe(impl("0016"));
    expect(alloc[SEQUENCER_FEE_VAULT_ADDRESS.toLowerCase()]!.code).toBe(impl("0011"));
    expect(alloc[BASE_FEE_VAULT_ADDRESS.toLowerCase()]!.code).toBe(impl("0019"));
    expect(alloc[L1_FEE_VAULT_ADDRESS.toLowerCase()]!.code).toBe(impl("001a"));
    const weth = g["4200000000000000000000000000000000000006"]!;
    expect(alloc[WETH9_ADDRESS.toLowerCase()]!.code).toBe(weth.code!.toLowerCase());
    expect(alloc[WETH9_ADDRESS.toLowerCase()]!.storage).toEqual(weth.storage);
  });

  it("is deterministic and returns independent copies", () => {
    const a = opDevnetPredeployAlloc();
    expect(a).toEqual(opDevnetPredeployAlloc());
    a[GAS_PRICE_ORACLE_ADDRESS.toLowerCase()]!.storage![`0x${"00".repeat(32)}`] = "0x00";
    delete a[L1_BLOCK_ADDRESS];
    const b = opDevnetPredeployAlloc();
    expect(b[L1_BLOCK_ADDRESS]).toBeDefined();
    expect(b[GAS_PRICE_ORACLE_ADDRESS.toLowerCase()]!.storage![`0x${"00".repeat(32)}`]).toBe(`0x${"00".repeat(28)}01010101`);
  });
});

describe("opDevnetPredeployAlloc: contracts run", () => {
  let evm: EVM;
  let sm: MerkleStateManager;
  let vector: BaseFeeVector;
  /** Ecotone-format L1-info calldata of Base mainnet block 21713817 (selector 0x440a5e20, 164 bytes). */
  let ecotoneCalldata: Uint8Array;
  const OPERATOR_FEE_SCALAR = 1000n;
  const OPERATOR_FEE_CONSTANT = 10n;
  const DA_FOOTPRINT_GAS_SCALAR = 400n;

  beforeAll(async () => {
    ({ evm, sm } = await evmWith(opDevnetPredeployAlloc()));
    const vectors = JSON.parse(readFileSync(path.join(FIXTURES, "op-fee-vectors.json"), "utf8")) as { l1_cost_real: BaseFeeVector[] };
    vector = vectors.l1_cost_real.find((v) => v.chain === "Base Mainnet")!;
    const deposit = RLP.decode(fromHex(vector.l1InfoDepositRaw).subarray(1)) as Uint8Array[];
    ecotoneCalldata = deposit[7]!;
  });

  /** Jovian calldata (derivation.md §1.10): Ecotone layout ++ operatorFeeScalar u32 ++ operatorFeeConstant u64 ++ daFootprintGasScalar u16. */
  function jovianCalldata(): Uint8Array {
    return concat(
      fromHex("0x3db6be2b"),
      ecotoneCalldata.subarray(4),
      be(OPERATOR_FEE_SCALAR, 4),
      be(OPERATOR_FEE_CONSTANT, 8),
      be(DA_FOOTPRINT_GAS_SCALAR, 2),
    );
  }

  it("L1Block.setL1BlockValuesJovian rejects callers other than the depositor", async () => {
    expect(ecotoneCalldata).toHaveLength(164);
    expect(to0x(ecotoneCalldata.subarray(0, 4))).toBe("0x440a5e20");
    expect(to0x(sel("setL1BlockValuesJovian()"))).toBe("0x3db6be2b");
    const res = await call(evm, L1_BLOCK_ADDRESS, jovianCalldata());
    expect(res.exceptionError).toBeDefined();
    expect(await slot(sm, L1_BLOCK_ADDRESS, 1n)).toBe(0n);
  });

  it("L1Block.setL1BlockValuesJovian from the depositor fills the slots op-revm reads", async () => {
    const data = jovianCalldata();
    expect(data).toHaveLength(178);
    const res = await call(evm, L1_BLOCK_ADDRESS, data, L1_INFO_DEPOSITOR_ADDRESS);
    expect(res.exceptionError).toBeUndefined();
    const f = (from: number, to: number) => bytesToBigInt(ecotoneCalldata.subarray(from, to));
    const [baseFeeScalar, blobBaseFeeScalar, seq, time, num] = [f(4, 8), f(8, 12), f(12, 20), f(20, 28), f(28, 36)];
    const [basefee, blobBaseFee, hash, batcher] = [f(36, 68), f(68, 100), f(100, 132), f(132, 164)];
    expect(baseFeeScalar).toBe(BigInt(vector.expected.receipt.l1BaseFeeScalar));
    expect(blobBaseFeeScalar).toBe(BigInt(vector.expected.receipt.l1BlobBaseFeeScalar));
    expect(basefee).toBe(BigInt(vector.expected.receipt.l1GasPrice));
    expect(blobBaseFee).toBe(BigInt(vector.expected.receipt.l1BlobBaseFee));
    // Slot layout (L1Block 1.7.0; op-revm constants.rs offsets are byte offsets inside the 32-byte word).
    expect(await slot(sm, L1_BLOCK_ADDRESS, 0n)).toBe((time << 64n) | num);
    expect(await slot(sm, L1_BLOCK_ADDRESS, 1n)).toBe(basefee); // L1_BASE_FEE_SLOT
    expect(await slot(sm, L1_BLOCK_ADDRESS, 2n)).toBe(hash);
    // ECOTONE_L1_FEE_SCALARS_SLOT: baseFeeScalar at byte 16, blobBaseFeeScalar at byte 20, sequence number in the last 8.
    expect(await slot(sm, L1_BLOCK_ADDRESS, 3n)).toBe((baseFeeScalar << 96n) | (blobBaseFeeScalar << 64n) | seq);
    expect(await slot(sm, L1_BLOCK_ADDRESS, 4n)).toBe(batcher);
    expect(await slot(sm, L1_BLOCK_ADDRESS, 7n)).toBe(blobBaseFee); // ECOTONE_L1_BLOB_BASE_FEE_SLOT
    // OPERATOR_FEE_SCALARS_SLOT / DA_FOOTPRINT_GAS_SCALAR_SLOT: daFootprint at byte 18, scalar at 20, constant at 24.
    expect(await slot(sm, L1_BLOCK_ADDRESS, 8n)).toBe(
      (DA_FOOTPRINT_GAS_SCALAR << 96n) | (OPERATOR_FEE_SCALAR << 64n) | OPERATOR_FEE_CONSTANT,
    );
    const view = async (sig: string) => bytesToBigInt((await call(evm, L1_BLOCK_ADDRESS, sel(sig))).returnValue);
    expect(await view("daFootprintGasScalar()")).toBe(DA_FOOTPRINT_GAS_SCALAR);
    expect(await view("operatorFeeScalar()")).toBe(OPERATOR_FEE_SCALAR);
    expect(await view("operatorFeeConstant()")).toBe(OPERATOR_FEE_CONSTANT);
    expect(await view("sequenceNumber()")).toBe(seq);
  });

  it("GasPriceOracle has every fork flag and prices L1 data like the real Base receipt", async () => {
    for (const flag of ["isEcotone()", "isFjord()", "isIsthmus()", "isJovian()"]) {
      const r = await call(evm, GAS_PRICE_ORACLE_ADDRESS, sel(flag));
      expect(bytesToBigInt(r.returnValue), flag).toBe(1n);
    }
    // getL1Fee takes the unsigned RLP transaction (the oracle adds 68 bytes for the signature).
    const raw = fromHex(vector.rawTx);
    const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
    const unsigned = concat(raw.subarray(0, 1), RLP.encode(fields.slice(0, 9)));
    const fee = await call(evm, GAS_PRICE_ORACLE_ADDRESS, concat(sel("getL1Fee(bytes)"), abiBytes(unsigned)));
    expect(fee.exceptionError).toBeUndefined();
    // Base mainnet block 21713817 receipt (op-fee-vectors.json, origin: explorer): both estimates hit the Fjord
    // minimum size (100 bytes), so the oracle's fee and gas equal the receipt's.
    expect(bytesToBigInt(fee.returnValue)).toBe(BigInt(vector.expected.receipt.l1Fee));
    expect(bytesToBigInt(fee.returnValue)).toBe(191150293412n);
    const gasUsed = await call(evm, GAS_PRICE_ORACLE_ADDRESS, concat(sel("getL1GasUsed(bytes)"), abiBytes(unsigned)));
    expect(bytesToBigInt(gasUsed.returnValue)).toBe(BigInt(vector.expected.receipt.l1GasUsed));
    // Jovian operator fee: gas * scalar * 100 + constant (op-fee-vectors operator_fee: 1000, 10, 1000 gas → 100000010).
    const opFee = await call(evm, GAS_PRICE_ORACLE_ADDRESS, concat(sel("getOperatorFee(uint256)"), be(1000n, 32)));
    expect(bytesToBigInt(opFee.returnValue)).toBe(100_000_010n);
  });

  it("the flag word equals what the four enable upgrade deposits write into a fresh GasPriceOracle", async () => {
    const fresh = opDevnetPredeployAlloc();
    delete fresh[GAS_PRICE_ORACLE_ADDRESS.toLowerCase()]!.storage;
    const { evm: e, sm: s } = await evmWith(fresh);
    expect(await slot(s, GAS_PRICE_ORACLE_ADDRESS, 0n)).toBe(0n);
    // Out of order is rejected by the contract (Fjord requires Ecotone).
    expect((await call(e, GAS_PRICE_ORACLE_ADDRESS, sel("setFjord()"), L1_INFO_DEPOSITOR_ADDRESS)).exceptionError).toBeDefined();
    for (const setter of ["setEcotone()", "setFjord()", "setIsthmus()", "setJovian()"]) {
      const r = await call(e, GAS_PRICE_ORACLE_ADDRESS, sel(setter), L1_INFO_DEPOSITOR_ADDRESS);
      expect(r.exceptionError, setter).toBeUndefined();
    }
    expect(await slot(s, GAS_PRICE_ORACLE_ADDRESS, 0n)).toBe(GAS_PRICE_ORACLE_ALL_FORKS_FLAGS);
    expect(GAS_PRICE_ORACLE_ALL_FORKS_FLAGS).toBe(0x01010101n);
  });

  it("fee vaults carry the documented immutables", async () => {
    const word = async (to: string, sig: string) => bytesToBigInt((await call(evm, to, sel(sig))).returnValue);
    for (const v of [SEQUENCER_FEE_VAULT_ADDRESS, BASE_FEE_VAULT_ADDRESS, L1_FEE_VAULT_ADDRESS]) {
      expect(await word(v, "RECIPIENT()")).toBe(0x09c7bad99688a55a2e83644bfaed09e62bdcccban);
      expect(await word(v, "MIN_WITHDRAWAL_AMOUNT()")).toBe(2n * 10n ** 18n);
      expect(await word(v, "WITHDRAWAL_NETWORK()")).toBe(1n);
    }
    expect(await word(OPERATOR_FEE_VAULT_ADDRESS, "RECIPIENT()")).toBe(BigInt(BASE_FEE_VAULT_ADDRESS));
    expect(await word(OPERATOR_FEE_VAULT_ADDRESS, "MIN_WITHDRAWAL_AMOUNT()")).toBe(0n);
    expect(await word(OPERATOR_FEE_VAULT_ADDRESS, "WITHDRAWAL_NETWORK()")).toBe(1n);
  });

  it("create2Deployer computes CREATE2 addresses", async () => {
    const salt = new Uint8Array(32).fill(0x11);
    const codeHash = keccak_256(fromHex("0x6000"));
    const r = await call(evm, CREATE2_DEPLOYER_ADDRESS, concat(sel("computeAddress(bytes32,bytes32)"), salt, codeHash));
    const expected = keccak_256(concat(fromHex("0xff"), fromHex(CREATE2_DEPLOYER_ADDRESS), salt, codeHash)).subarray(12);
    expect(to0x(r.returnValue.subarray(12))).toBe(to0x(expected));
  });
});
