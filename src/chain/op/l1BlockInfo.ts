/**
 * The L1 fee parameters of an L2 block ("L1 block info"), as op-revm keeps them in its
 * `L1BlockInfo` (base/base crates/execution/revm/src/l1block.rs): loaded from the L1Block
 * predeploy's storage during execution, or decoded from the block's L1-info deposit calldata
 * when op-reth builds RPC receipts (base/base crates/execution/evm/src/l1.rs `parse_l1_info`).
 */
import { OpFork } from "./forks.js";
import { L1InfoCalldataError, L1InfoSelector } from "./l1InfoTx.js";

/** The L1Block predeploy `0x4200…0015` whose storage op-revm reads (defined next to the L1-info tx that targets it). */
export { L1_BLOCK_ADDRESS } from "./l1InfoTx.js";

/** Storage slot of `basefee` (L1 base fee) in L1Block (op-revm `L1_BASE_FEE_SLOT`). */
export const L1_BASE_FEE_SLOT = 1n;
/**
 * Storage slot holding `sequenceNumber` (u64, bytes [24,32)) and, from Ecotone, the packed
 * `blobBaseFeeScalar` (u32, bytes [20,24)) and `baseFeeScalar` (u32, bytes [16,20))
 * (op-revm `ECOTONE_L1_FEE_SCALARS_SLOT`; specs ecotone/l1-attributes.md).
 */
export const ECOTONE_L1_FEE_SCALARS_SLOT = 3n;
/** Storage slot of the pre-Ecotone `l1FeeOverhead` (op-revm `L1_OVERHEAD_SLOT`). */
export const L1_OVERHEAD_SLOT = 5n;
/** Storage slot of the pre-Ecotone `l1FeeScalar` (op-revm `L1_SCALAR_SLOT`). */
export const L1_SCALAR_SLOT = 6n;
/** Storage slot of the Ecotone `blobBaseFee` (op-revm `ECOTONE_L1_BLOB_BASE_FEE_SLOT`). */
export const ECOTONE_L1_BLOB_BASE_FEE_SLOT = 7n;
/**
 * Storage slot holding the Isthmus `operatorFeeScalar` (u32, bytes [20,24)) and
 * `operatorFeeConstant` (u64, bytes [24,32)) and, from Jovian, `daFootprintGasScalar`
 * (u16, bytes [18,20)) (op-revm `OPERATOR_FEE_SCALARS_SLOT` = `DA_FOOTPRINT_GAS_SCALAR_SLOT`).
 */
export const OPERATOR_FEE_SCALARS_SLOT = 8n;
/** Same slot as {@link OPERATOR_FEE_SCALARS_SLOT}; named for the Jovian DA footprint scalar. */
const DA_FOOTPRINT_GAS_SCALAR_SLOT = 8n;

/** Byte offset (big-endian slot view) of the 4-byte `baseFeeScalar` in slot 3 (op-revm `BASE_FEE_SCALAR_OFFSET`). */
export const BASE_FEE_SCALAR_OFFSET = 16;
/** Byte offset of the 4-byte `blobBaseFeeScalar` in slot 3 (op-revm `BLOB_BASE_FEE_SCALAR_OFFSET`). */
const BLOB_BASE_FEE_SCALAR_OFFSET = 20;
/** Byte offset of the 4-byte `operatorFeeScalar` in slot 8 (op-revm `OPERATOR_FEE_SCALAR_OFFSET`). */
const OPERATOR_FEE_SCALAR_OFFSET = 20;
/** Byte offset of the 8-byte `operatorFeeConstant` in slot 8 (op-revm `OPERATOR_FEE_CONSTANT_OFFSET`). */
const OPERATOR_FEE_CONSTANT_OFFSET = 24;
/**
 * Byte offset of the 2-byte `daFootprintGasScalar` in slot 8 (op-revm `DA_FOOTPRINT_GAS_SCALAR_OFFSET`;
 * the spec's "offset 12" counts Solidity packing from the low end: 32 - 12 - 2 = 18).
 */
export const DA_FOOTPRINT_GAS_SCALAR_OFFSET = 18;

/**
 * The L1 fee parameters in effect for an L2 block, with op-revm's field semantics.
 *
 * `l1BaseFeeScalar` is op-revm's single `l1_base_fee_scalar`: the pre-Ecotone `l1FeeScalar`
 * (slot 6 / Bedrock calldata word 7) before Ecotone, the Ecotone `baseFeeScalar` afterwards.
 * Optional fields are `undefined` exactly where op-revm keeps `None`.
 */
export interface L1BlockInfo {
  /** Base fee of the L1 origin block. */
  l1BaseFee: bigint;
  /** Pre-Ecotone fee overhead; from Ecotone only set when `emptyEcotoneScalars` (and from Bedrock-format calldata). */
  l1FeeOverhead?: bigint;
  /** Pre-Ecotone `l1FeeScalar`, or the Ecotone `baseFeeScalar`. */
  l1BaseFeeScalar: bigint;
  /** L1 blob base fee (Ecotone+). */
  l1BlobBaseFee?: bigint;
  /** L1 blob base fee scalar (Ecotone+). */
  l1BlobBaseFeeScalar?: bigint;
  /** Operator fee scalar (Isthmus+). */
  operatorFeeScalar?: bigint;
  /** Operator fee constant (Isthmus+). */
  operatorFeeConstant?: bigint;
  /** DA footprint gas scalar, as stored (Jovian+; no default applied here). */
  daFootprintGasScalar?: bigint;
  /** Ecotone is active but the L1Block Ecotone scalars are still unset: the Bedrock cost function applies. */
  emptyEcotoneScalars: boolean;
}

/** Big-endian unsigned integer of `bytes[start, start+len)` of a 32-byte slot value. */
function slotField(word: bigint, start: number, len: number): bigint {
  const shift = BigInt((32 - start - len) * 8);
  return (word >> shift) & ((1n << BigInt(len * 8)) - 1n);
}

/**
 * Loads the L1 block info from L1Block storage exactly as op-revm's `L1BlockInfo::try_fetch`
 * does for `fork`:
 * - always `l1BaseFee` (slot 1);
 * - before Ecotone: `l1BaseFeeScalar` = slot 6 and `l1FeeOverhead` = slot 5;
 * - from Ecotone: `l1BlobBaseFee` = slot 7, `l1BaseFeeScalar`/`l1BlobBaseFeeScalar` from slot 3;
 *   `emptyEcotoneScalars` when both packed scalars are zero (the first Ecotone block, before
 *   the L1Block upgrade has been fed), and only then `l1FeeOverhead` = slot 5. Like op-revm,
 *   the scalar used by the Bedrock fallback is then the (zero) Ecotone `baseFeeScalar`;
 * - from Isthmus: operator fee scalar/constant from slot 8; from Jovian: DA footprint scalar from slot 8.
 * `readSlot` returns the 32-byte slot value as an unsigned bigint (0 for unset slots).
 */
export async function loadL1BlockInfo(readSlot: (slot: bigint) => Promise<bigint>, fork: OpFork): Promise<L1BlockInfo> {
  const l1BaseFee = await readSlot(L1_BASE_FEE_SLOT);
  if (fork < OpFork.ecotone) {
    const l1BaseFeeScalar = await readSlot(L1_SCALAR_SLOT);
    const l1FeeOverhead = await readSlot(L1_OVERHEAD_SLOT);
    return { l1BaseFee, l1BaseFeeScalar, l1FeeOverhead, emptyEcotoneScalars: false };
  }
  const l1BlobBaseFee = await readSlot(ECOTONE_L1_BLOB_BASE_FEE_SLOT);
  const scalars = await readSlot(ECOTONE_L1_FEE_SCALARS_SLOT);
  const l1BaseFeeScalar = slotField(scalars, BASE_FEE_SCALAR_OFFSET, 4);
  const l1BlobBaseFeeScalar = slotField(scalars, BLOB_BASE_FEE_SCALAR_OFFSET, 4);
  const emptyEcotoneScalars = l1BaseFeeScalar === 0n && l1BlobBaseFeeScalar === 0n;
  const info: L1BlockInfo = { l1BaseFee, l1BaseFeeScalar, l1BlobBaseFee, l1BlobBaseFeeScalar, emptyEcotoneScalars };
  if (emptyEcotoneScalars) info.l1FeeOverhead = await readSlot(L1_OVERHEAD_SLOT);
  if (fork >= OpFork.isthmus) {
    const packed = await readSlot(OPERATOR_FEE_SCALARS_SLOT);
    info.operatorFeeScalar = slotField(packed, OPERATOR_FEE_SCALAR_OFFSET, 4);
    info.operatorFeeConstant = slotField(packed, OPERATOR_FEE_CONSTANT_OFFSET, 8);
  }
  if (fork >= OpFork.jovian) {
    const packed = await readSlot(DA_FOOTPRINT_GAS_SCALAR_SLOT);
    info.daFootprintGasScalar = slotField(packed, DA_FOOTPRINT_GAS_SCALAR_OFFSET, 2);
  }
  return info;
}

/** Calldata body lengths (after the 4-byte selector) op-reth's `parse_l1_info_tx_*` accept. */
const BODY_LEN = { bedrock: 256, ecotone: 160, isthmus: 172, jovian: 174 } as const;

function be(data: Uint8Array, start: number, end: number): bigint {
  let v = 0n;
  for (let i = start; i < end; i++) v = (v << 8n) | BigInt(data[i]!);
  return v;
}

function checkBodyLength(body: Uint8Array, variant: keyof typeof BODY_LEN): void {
  if (body.length !== BODY_LEN[variant]) {
    throw new L1InfoCalldataError({ code: "L1_INFO_BAD_LENGTH", variant, length: body.length + 4 }, `${variant} L1-info calldata has ${body.length + 4} bytes, ${BODY_LEN[variant] + 4} expected (selector + ${BODY_LEN[variant]})`);
  }
}

function selectorEquals(data: Uint8Array, selector: Uint8Array): boolean {
  return data[0] === selector[0] && data[1] === selector[1] && data[2] === selector[2] && data[3] === selector[3];
}

/**
 * Decodes the L1 block info from the calldata of a block's L1-info deposit, as op-reth does for
 * RPC receipts (base/base crates/execution/evm/src/l1.rs `parse_l1_info`): the Jovian, Isthmus
 * and Ecotone selectors select their layouts, and **any other selector is parsed as Bedrock**
 * `setL1BlockValues` (op-reth does not check the Bedrock selector). `emptyEcotoneScalars` is
 * always false here; the DA footprint scalar is the raw calldata value.
 * @throws L1InfoCalldataError on calldata shorter than 4 bytes or a body length not matching the layout.
 */
export function l1BlockInfoFromCalldata(calldata: Uint8Array): L1BlockInfo {
  if (calldata.length < 4) {
    throw new L1InfoCalldataError({ code: "L1_INFO_MISSING_SELECTOR", length: calldata.length }, `L1-info calldata has ${calldata.length} bytes, at least a 4-byte selector expected`);
  }
  const body = calldata.subarray(4);
  const isJovian = selectorEquals(calldata, L1InfoSelector.jovian);
  const isIsthmus = selectorEquals(calldata, L1InfoSelector.isthmus);
  if (isJovian || isIsthmus || selectorEquals(calldata, L1InfoSelector.ecotone)) {
    checkBodyLength(body, isJovian ? "jovian" : isIsthmus ? "isthmus" : "ecotone");
    const info: L1BlockInfo = {
      l1BaseFee: be(body, 32, 64),
      l1BaseFeeScalar: be(body, 0, 4),
      l1BlobBaseFee: be(body, 64, 96),
      l1BlobBaseFeeScalar: be(body, 4, 8),
      emptyEcotoneScalars: false,
    };
    if (isJovian || isIsthmus) {
      info.operatorFeeScalar = be(body, 160, 164);
      info.operatorFeeConstant = be(body, 164, 172);
    }
    if (isJovian) info.daFootprintGasScalar = be(body, 172, 174);
    return info;
  }
  checkBodyLength(body, "bedrock");
  return { l1BaseFee: be(body, 64, 96), l1FeeOverhead: be(body, 192, 224), l1BaseFeeScalar: be(body, 224, 256), emptyEcotoneScalars: false };
}
